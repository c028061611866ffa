/**
 * The Diff against a State snapshot (docs/state-snapshots.md#the-diff-against-a-snapshot). A
 * snapshot holds no Secret hashes, so a Secret entry it records as present is compared by its
 * render instead: unchanged when the base and head renders of the Secret are the same, otherwise
 * listed as not compared. Every other entry is classified exactly as against the cluster.
 */
import { compareBytes } from './byte-order.js'
import type { DiffEntry } from './diff.js'
import { resourceOf } from './key.js'
import type { StateSnapshot } from './snapshot.js'
import type { State } from './state.js'

/**
 * The hash a Secret entry of a snapshot is read with: not hex, so it never equals a ContentHash,
 * and a removed Secret's row shows `(was: withheld)`.
 */
export const WITHHELD_HASH = 'withheld'

/** A Secret entry whose change cannot be told without the cluster. */
export interface NotComparedEntry {
  manifest: string
  key: string
}

/** The State each manifest of a snapshot records, Secret entries with {@link WITHHELD_HASH}. */
export function statesOfSnapshot(snapshot: StateSnapshot): Map<string, State> {
  const states = new Map<string, State>()
  for (const [manifest, m] of snapshot.manifests) {
    const entries = new Map(m.entries)
    for (const key of m.secrets) entries.set(key, WITHHELD_HASH)
    states.set(manifest, { metadata: { ...m.metadata }, entries })
  }
  return states
}

/**
 * Settles the Secret entries of a Diff computed against {@link statesOfSnapshot}: a modified
 * entry whose stored hash is withheld leaves the Diff, as unchanged when `renderUnchanged` says
 * its base and head renders are the same, else into `notCompared`. Added, removed and always-sync
 * entries need no stored hash and stay. Manifests keep their order and other fields.
 */
export function settleWithheldSecrets<
  D extends { manifest: string; entries: readonly DiffEntry[] }
>(
  diffs: readonly D[],
  renderUnchanged: (manifest: string, key: string) => boolean = () => false
): { manifests: D[]; notCompared: NotComparedEntry[] } {
  const notCompared: NotComparedEntry[] = []
  const manifests = diffs.map((d) => {
    const entries = d.entries.filter((e) => {
      if (e.type !== 'modified' || e.oldHash !== WITHHELD_HASH) return true
      if (!renderUnchanged(d.manifest, e.key))
        notCompared.push({ manifest: d.manifest, key: e.key })
      return false
    })
    return { ...d, entries }
  })
  return { manifests, notCompared }
}

/**
 * The lines after the `state diff` table that list the Secret entries not compared, each as
 * `#   <manifest>: <resource>`; `''` when there are none.
 */
export function renderNotComparedText(entries: readonly NotComparedEntry[]): string {
  if (entries.length === 0) return ''
  const sorted = [...entries].sort(
    (a, b) => compareBytes(a.manifest, b.manifest) || compareBytes(a.key, b.key)
  )
  const lines = sorted.map((e) => `#   ${e.manifest}: ${resourceOf(e.key)}\n`)
  return `# Not compared without cluster access (a State snapshot holds no Secret hashes):\n${lines.join('')}`
}
