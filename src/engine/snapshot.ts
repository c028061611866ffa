/**
 * State snapshots as steps over the engine (docs/state-snapshots.md), for both entry points:
 * writing one from the State the cluster records, and the Diff against one, computed by an
 * engine whose session is the snapshot (src/engine/snapshot-session.ts): no cluster request.
 */
import type { ManifestDiff } from '../report/model.js'
import { settleWithheldSecrets, type NotComparedEntry } from '../state/snapshot-diff.js'
import { snapshotManifestOf, type SnapshotConfig, type StateSnapshot } from '../state/snapshot.js'
import type { ConfigRun, Engine } from './engine.js'
import type { ClusterSession } from './ports.js'
import { snapshotSession } from './snapshot-session.js'

/** What a snapshot says about where it came from, besides the State. */
export interface SnapshotOrigin {
  config: SnapshotConfig
  commit: string
  createdAt: string
  writtenBy: string
  version: string
}

/**
 * The snapshot of every named manifest of `run` (tags are ignored, as by `state list`): its
 * State as recorded, Secret entries without their hash. Reads State with one request.
 */
export async function takeSnapshot(
  engine: Pick<Engine, 'listState'>,
  run: ConfigRun,
  origin: SnapshotOrigin
): Promise<StateSnapshot> {
  const listed = await engine.listState(run)
  return {
    ...origin,
    manifests: new Map(listed.map((l) => [l.manifest, snapshotManifestOf(l.state)]))
  }
}

/** The Diff against a snapshot, and the Secret entries it could not compare. */
export interface SnapshotDiffOutcome {
  manifests: ManifestDiff[]
  notCompared: NotComparedEntry[]
}

/**
 * Every named manifest's Diff against `snapshot` (already verified, src/state/snapshot-read.ts)
 * by an engine `engineOver` builds on the snapshot's session; `source` names the snapshot in
 * messages. `renderUnchanged` tells whether a Secret's base and head renders are the same
 * (without a base commit: never).
 */
export async function diffAgainstSnapshot(
  engineOver: (session: ClusterSession) => Engine,
  snapshot: StateSnapshot,
  options: { source: string; renderUnchanged?: (manifest: string, key: string) => boolean }
): Promise<SnapshotDiffOutcome> {
  const engine = engineOver(snapshotSession(snapshot, options.source))
  try {
    const run = await engine.loadExpanded()
    return settleWithheldSecrets(await engine.diff(run), options.renderUnchanged)
  } finally {
    engine.close()
  }
}
