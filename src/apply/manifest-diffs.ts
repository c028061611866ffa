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
import { buildFailure } from './sync-manifest.js'

/** One manifest's Diff (empty `entries`: no changes). */
export interface ManifestDiff {
  manifest: string
  type: string
  entries: DiffEntry[]
  /** Why it has no Diff: `manifest "m": failed to build: …` (only with `keepFailures`). */
  error?: string
}

/**
 * Manifests rendered at once while diffing: enough that the native program has work while the
 * cluster client loads (docs/ARCHITECTURE.md#rendering-ahead; 8 against 4: 0.92-0.97x wall).
 */
const BUILD_CONCURRENCY = 8

/**
 * Diffs every manifest in declaration order. Unnamed manifests are skipped with a warning
 * (docs/compatibility.md#state-diff-text: no validation, no tag filter). The renders start
 * while State is read (the store may still be opening its session); a State read failure is
 * reported first, then the first manifest in declaration order that failed to render, by name;
 * with `keepFailures` (the pull request's Diff) each failed manifest carries its error instead
 * and the others keep their Diff.
 */
export async function computeManifestDiffs<M extends ManifestUnit>(
  manifests: readonly M[],
  deps: {
    store: Pick<StateStore, 'readMany'>
    build: BuildDesired<M>
    log: ApplyLog
    keepFailures?: boolean
  }
): Promise<ManifestDiff[]> {
  const named = manifests.filter((m) => {
    if (m.name === '') deps.log.warn(`manifest has no name, skipping (type ${m.type})`)
    return m.name !== ''
  })
  // Renders first: the State read may have to load the cluster client before it can ask.
  const rendering = mapConcurrently(named, BUILD_CONCURRENCY, (m) =>
    deps.build(m).then(
      (desired) => ({ desired }),
      (error: unknown) => ({ error })
    )
  )
  const reading = deps.store.readMany(named.map((m) => m.name))
  const stored = await reading
  const rendered = await rendering
  return named.map((m, i) => {
    const render = rendered[i]!
    if (!('desired' in render)) {
      const failure = buildFailure(m.name, render.error)
      if (deps.keepFailures !== true) throw failure
      return { manifest: m.name, type: m.type, entries: [], error: failure.message }
    }
    const { desired } = render
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
