/**
 * A cluster session over a State snapshot (docs/state-snapshots.md): its State store reads the
 * snapshot, and everything else refuses without sending anything, so an engine built on it
 * computes the Diff with no request to the cluster and no kubeconfig.
 */
import { ClusterError } from '../errors.js'
import type { LeaseStore } from '../apply/lease-lock.js'
import type { StoredState } from '../apply/ports.js'
import { statesOfSnapshot } from '../state/snapshot-diff.js'
import type { StateSnapshot } from '../state/snapshot.js'
import { emptyState } from '../state/state.js'
import type { ClusterSession } from './ports.js'

/**
 * The session of a Diff against `snapshot` (`source` names it in messages). Helm capabilities are
 * not in a snapshot: a helmfile manifest without `kubeVersion` fails, naming the way out. A
 * kind's scope comes from the built-in kinds and the manifest's CRDs only.
 */
export function snapshotSession(snapshot: StateSnapshot, source: string): ClusterSession {
  const states = statesOfSnapshot(snapshot)
  const refuse = (what: string) => (): Promise<never> =>
    Promise.reject(
      new ClusterError(`${what} needs the cluster; a Diff against ${source} has no access to it`)
    )
  const read = (manifest: string): StoredState => ({
    state: states.get(manifest) ?? emptyState()
  })
  const leases: LeaseStore = {
    read: refuse('the run lock'),
    create: refuse('the run lock'),
    update: refuse('the run lock'),
    remove: refuse('the run lock')
  }
  return {
    store: {
      read: (manifest) => Promise.resolve(read(manifest)),
      readMany: (manifests) => Promise.resolve(new Map(manifests.map((m) => [m, read(m)]))),
      save: refuse('saving State')
    },
    cluster: { apply: refuse('apply'), delete: refuse('delete'), get: refuse('reading an object') },
    discovery: {
      capabilities: refuse(
        'a helmfile manifest without helmfile.kubeVersion (Helm capabilities of the server)'
      ),
      namespaced: () => Promise.resolve(undefined)
    },
    leases,
    context: '',
    describe: source,
    close: () => undefined
  }
}
