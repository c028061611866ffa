/**
 * The plain data the reports are rendered from: the Diff of every manifest (PR flow) and the
 * result of a layered apply (merge flow). Renderers in this folder are pure functions of it.
 */
import type { ConfigProblem } from '../errors.js'
import type { DiffEntry } from '../state/diff.js'
import type { ContentReport } from './content-diff.js'
import type { RendererVersions } from '../render/ports.js'
import type { Risk } from '../risk/model.js'
import type { NotComparedEntry } from '../state/snapshot-diff.js'

export type { DiffEntry, DiffType } from '../state/diff.js'
export { diffTypes, sortEntries } from '../state/diff.js'

/** The Diff of one manifest. */
export interface ManifestDiff {
  manifest: string
  /** Manifest type (kustomize, helmfile, ...). */
  type: string
  entries: readonly DiffEntry[]
  /**
   * Set when the manifest failed to render (no entries then): `manifest "m": failed to build: …`,
   * naming the file and object (the pull request's Diff shows it on the manifest).
   */
  error?: string
}

/** A manifest as the apply plan sees it. */
export interface PlanNode {
  name: string
  dependsOn: readonly string[]
}

/**
 * The apply plan: layers of manifest names (docs/compatibility.md#layers) and the dependsOn graph
 * behind them.
 */
export interface ApplyPlan {
  layers: readonly (readonly string[])[]
  nodes: readonly PlanNode[]
}

/** Identifies a report: which configuration, environment and commit it describes. */
export interface ReportTarget {
  /** tazuna.yaml path as given in the `config` input. */
  config: string
  environment: string
  /**
   * Input `target`: the cluster the job deploys to, when one config and environment go to
   * several (a matrix, README.md#one-workflow-for-a-fleet); absent or '' as before.
   */
  target?: string
  /** The commit the report is about (PR head or pushed commit). */
  sha: string
  /** What rendered the objects (docs/renderers.md); absent when nothing was rendered. */
  renderers?: RendererVersions
}

/** Everything the PR comment and the diff job summary show. */
export interface DiffReport extends ReportTarget {
  /** Every manifest in declaration order, including those without entries. */
  manifests: readonly ManifestDiff[]
  /** Absent when the configuration did not load far enough to plan. */
  plan?: ApplyPlan
  problems: readonly ConfigProblem[]
  /** What changes inside each object (input `content-diff`); absent when off. */
  content?: ContentReport
  /** What a reviewer must not miss (docs/risks.md); absent or empty when nothing was found. */
  risks?: readonly Risk[]
  /** The State snapshot the Diff was computed against; absent when it read the cluster. */
  snapshot?: SnapshotSource
  /** Secret entries a Diff against a snapshot could not compare. */
  notCompared?: readonly NotComparedEntry[]
}

/** Where a Diff's State came from when it was a State snapshot (docs/state-snapshots.md). */
export interface SnapshotSource {
  /** The git ref it was fetched from. */
  ref: string
  /** The commit the snapshot is of (the merge run's pushed commit). */
  commit: string
  createdAt: string
  /** The run that wrote it (its URL), as the snapshot says. */
  writtenBy: string
  /** The pull request's base commit; the snapshot is stale when it is of another commit. */
  baseSha?: string
}

/** Entry counts by type. */
export interface DiffCounts {
  added: number
  modified: number
  removed: number
  alwaysSync: number
}

/**
 * How one manifest's apply ended (`filtered`: not selected by tags; `cancelled`: under way when
 * the run was cancelled, State not saved; `not-run`: a layer failed, or the run was cancelled).
 */
export type ApplyResult =
  'applied' | 'unchanged' | 'skipped' | 'filtered' | 'failed' | 'cancelled' | 'not-run'

/** What an apply did, by Diff entry type; `pruned` of the `removed` entries were deleted. */
export interface ApplyCounts extends DiffCounts {
  pruned: number
}

/** One manifest of a layered apply. */
export interface ManifestApply {
  manifest: string
  result: ApplyResult
  counts: ApplyCounts
  durationMs: number
  /** Why it failed: names the object and the API's or tool's message (never Secret values). */
  error?: string
}

/** One object's health after its layer (docs/health.md#reporting). */
export interface ObjectHealthNote {
  manifest: string
  ref: { apiVersion: string; kind: string; namespace?: string; name: string }
  /** kstatus's status: Current, InProgress, Failed, Terminating, NotFound, Unknown. */
  status: string
  message: string
  reason?: string
  /** From the start of the layer to the object becoming Current. */
  currentAfterMs?: number
  /** Failing Pods' container states and the newest Warning Events (src/health/cause.ts). */
  cause?: { pods: string[]; events: string[] }
}

/** A layer's health: healthy or not, how long it took, every object. */
export interface LayerHealthNote {
  healthy: boolean
  ended: 'current' | 'failed' | 'timeout'
  durationMs: number
  timeout: string
  objects: ObjectHealthNote[]
}

/** The outcome of a layered apply. */
export interface ApplyOutcome {
  layers: readonly (readonly ManifestApply[])[]
  /**
   * Set when the run waited for health (`wait`): per layer, its health (null for a layer that
   * did not get so far).
   */
  health?: readonly (LayerHealthNote | null)[]
  /** Set when the run failed: Tazuna's error message and the layer (0-based), if in one. */
  failure?: { layer?: number; message: string }
  /**
   * Set when the run was cancelled (a signal; `failure` is set too): where (layer 0-based;
   * absent: after the last layer) and why, e.g. `SIGINT`.
   */
  cancelled?: { layer?: number; reason: string }
}

/** Everything the apply job summary shows. */
export interface ApplyReport extends ReportTarget, ApplyOutcome {}

/** Counts the entries of one or more Diffs. */
export function countEntries(entries: Iterable<DiffEntry>): DiffCounts {
  const counts: DiffCounts = { added: 0, modified: 0, removed: 0, alwaysSync: 0 }
  for (const entry of entries) {
    if (entry.type === 'always-sync') counts.alwaysSync++
    else counts[entry.type]++
  }
  return counts
}

/** Adds counts together. */
export function sumCounts(all: Iterable<DiffCounts>): DiffCounts {
  const total: DiffCounts = { added: 0, modified: 0, removed: 0, alwaysSync: 0 }
  for (const c of all) {
    total.added += c.added
    total.modified += c.modified
    total.removed += c.removed
    total.alwaysSync += c.alwaysSync
  }
  return total
}

/**
 * True when something would change: always-sync entries alone are not a change
 * (docs/compatibility.md#what-counts-as-a-change).
 */
export function hasChanges(counts: DiffCounts): boolean {
  return counts.added + counts.modified + counts.removed > 0
}
