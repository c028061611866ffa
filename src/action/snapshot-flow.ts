/**
 * The State snapshot of a merge or drift run (input `state-snapshot`,
 * docs/state-snapshots.md#on-a-git-ref): after an apply with State sync, or after a drift report,
 * every manifest's State as recorded is written as a snapshot and published on the configured
 * git ref, for pull-request runs without cluster access.
 */
import type { ConfigRun } from '../engine/engine.js'
import { takeSnapshot, type SnapshotOrigin } from '../engine/snapshot.js'
import { serializeSnapshot, type StateSnapshot } from '../state/snapshot.js'
import { formatSyncTime } from '../state/state.js'
import type { FlowEngine, Runner } from './ports.js'

/** Where and as what the merge run publishes its snapshot. */
export interface SnapshotPublishing {
  /** The git ref (`refs/tazuna-state/...`). */
  ref: string
  /** What the snapshot says of its origin, but the time. */
  origin: Omit<SnapshotOrigin, 'createdAt'>
  now: () => number
  /** Publishes the text on the ref (src/adapters/git-snapshot.ts); returns the commit. */
  publish: (ref: string, text: string, message: string) => Promise<string>
}

/**
 * Takes the snapshot of `run` (State read after the apply, one request) and publishes it; sets
 * output `state-snapshot-ref` and logs the commit. Throws what the publish throws. `of`:
 * `run`, the commit the run applied (a merge run, which has just recorded it); `recorded`, the
 * one commit every manifest's State records, or "" when they differ (a drift run, which
 * applies nothing: the commit its checkout is at need not be deployed, and a snapshot that
 * claimed it would hide a stale State from the pull request's stale warning).
 */
export async function publishStateSnapshot(
  deps: { engine: Pick<FlowEngine, 'listState'>; runner: Runner },
  run: ConfigRun,
  publishing: SnapshotPublishing,
  of: 'run' | 'recorded' = 'run'
): Promise<void> {
  const { ref } = publishing
  const taken = await takeSnapshot(deps.engine, run, {
    ...publishing.origin,
    createdAt: formatSyncTime(new Date(publishing.now()))
  })
  const snapshot = of === 'run' ? taken : { ...taken, commit: recordedCommit(taken) }
  const origin = { ...publishing.origin, commit: snapshot.commit }
  const message = `State snapshot of ${origin.commit || 'an unknown commit'} (${origin.config.path}, environment "${origin.config.environment}")`
  const commit = await publishing.publish(ref, serializeSnapshot(snapshot), message)
  deps.runner.info(
    `State snapshot of ${snapshot.manifests.size} manifests written to ${ref} (commit ${commit})`
  )
  deps.runner.setOutputs({ 'state-snapshot-ref': ref })
}

/** The commit every manifest of `snapshot` records, or "" when none does or they differ. */
export function recordedCommit(snapshot: Pick<StateSnapshot, 'manifests'>): string {
  const commits = new Set([...snapshot.manifests.values()].map((m) => m.metadata.gitCommitHash))
  return commits.size === 1 ? [...commits][0]! : ''
}
