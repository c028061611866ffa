/**
 * The read-only half of the engine (docs/compatibility.md#state-diff-text `state diff`, used by PR
 * runs): every named manifest's Diff between its recorded State and what its manifests render now.
 * Reads State with one list request; never writes, so a read-only kubeconfig suffices.
 */
import { resolveLayers, type LayerInput } from '../plan/layers.js'
import { computeDiff, type DiffEntry } from '../state/diff.js'
import type { BuildDesired, ManifestUnit } from './manifest-unit.js'
import { mapConcurrently } from './layered-apply.js'
import type { ApplyLog, StateStore } from './ports.js'
import { messageOf } from './sync-manifest.js'

/** One manifest's Diff (empty `entries`: no changes). */
export interface ManifestDiff {
  manifest: string
  type: string
  entries: DiffEntry[]
}

/** Manifests rendered at once while diffing. */
const BUILD_CONCURRENCY = 4

/**
 * Diffs every manifest in declaration order. Unnamed manifests are skipped with a warning
 * (docs/compatibility.md#state-diff-text: no validation, no tag filter). A render or State read
 * failure names the manifest.
 */
export async function computeManifestDiffs<M extends ManifestUnit>(
  manifests: readonly M[],
  deps: { store: StateStore; build: BuildDesired<M>; log: ApplyLog }
): Promise<ManifestDiff[]> {
  const named = manifests.filter((m) => {
    if (m.name === '') deps.log.warn(`manifest has no name, skipping (type ${m.type})`)
    return m.name !== ''
  })
  const stored = await deps.store.readMany(named.map((m) => m.name))
  return mapConcurrently(named, BUILD_CONCURRENCY, async (m) => {
    let desired
    try {
      desired = await deps.build(m)
    } catch (error) {
      throw new Error(`manifest "${m.name}": failed to build: ${messageOf(error)}`, {
        cause: error
      })
    }
    const entries = stored.get(m.name)?.state.entries ?? new Map<string, string>()
    return {
      manifest: m.name,
      type: m.type,
      entries: computeDiff(entries, desired.entries, desired.alwaysSync)
    }
  })
}

/** What a pull-request run shows: every manifest's Diff and the apply layers (names). */
export interface DiffPlan {
  diffs: ManifestDiff[]
  /**
   * resolveLayers over every manifest (docs/compatibility.md#layers); throws LayerError for a bad
   * dependsOn graph.
   */
  layers: string[][]
}

/**
 * The read-only PR computation: layers first (so a bad dependsOn graph fails before any
 * request), then every manifest's Diff with one State list request.
 */
export async function computeDiffPlan<M extends ManifestUnit & LayerInput>(
  manifests: readonly M[],
  deps: { store: StateStore; build: BuildDesired<M>; log: ApplyLog }
): Promise<DiffPlan> {
  const layers = resolveLayers(manifests).map((layer) => layer.map((m) => m.name))
  return { diffs: await computeManifestDiffs(manifests, deps), layers }
}
