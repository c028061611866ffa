/**
 * What the apply core needs to know about one manifest of tazuna.yaml (after include
 * expansion and path rewriting), and what it needs from the renderer.
 */
import type { JsonObject } from '../go/yaml.js'
import type { TestPluginSpec } from './test-plugins.js'
import type { StoredState } from './ports.js'
import type { RenderRecord } from '../state/render-record.js'

/** The fields of a tazuna.yaml manifest the apply core reads (structurally a config Manifest). */
export interface ManifestUnit {
  name: string
  type: string
  description?: string
  tests?: readonly TestPluginSpec[]
  helmfile?: { wait?: boolean; timeoutSeconds?: number }
  oras?: { delegate?: { type?: string; helmfile?: { wait?: boolean; timeoutSeconds?: number } } }
}

/**
 * A manifest's rendered objects and their State entries (docs/compatibility.md#yaml-to-objects,
 * #contenthash, #diff-classification).
 */
export interface DesiredState {
  /** In apply order: CRDs first, then as rendered. */
  objects: readonly JsonObject[]
  /** Logical state key → content hash; duplicates collapsed, last wins. */
  entries: ReadonlyMap<string, string>
  /** Keys that are always applied (genesissecret). */
  alwaysSync: ReadonlySet<string>
  /**
   * The render's record, to keep with the State this render produces; resolves undefined when
   * the render cannot be recorded (docs/renderers.md#skipping-unchanged-renders). Absent: no
   * record (neither kustomize nor helmfile, or records are off).
   */
  record?: () => Promise<RenderRecord | undefined>
  /**
   * Not rendered: the State `stored` has a render record that holds, so a render would produce
   * exactly its entries (`entries` are those; `objects` is empty). `render` renders after all.
   */
  skipped?: { stored: StoredState; render: () => Promise<DesiredState> }
}

/** Renders one manifest (no cluster writes). */
export type BuildDesired<M extends ManifestUnit> = (manifest: M) => Promise<DesiredState>

/**
 * The readiness wait a manifest asks for (docs/compatibility.md#readiness, #sync-mode): helmfile
 * `wait: true`, also through an oras helmfile delegate; undefined when none.
 */
export function readinessWaitOf(m: ManifestUnit): { timeoutSeconds: number } | undefined {
  const helmfile =
    m.type === 'helmfile'
      ? m.helmfile
      : m.type === 'oras' && m.oras?.delegate?.type === 'helmfile'
        ? m.oras.delegate.helmfile
        : undefined
  return helmfile?.wait === true ? { timeoutSeconds: helmfile.timeoutSeconds ?? 0 } : undefined
}
