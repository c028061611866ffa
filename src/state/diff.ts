/**
 * Diff between recorded state and the current build (docs/compatibility.md#diff-classification),
 * ordered exactly like `tazuna state diff` prints it.
 */
import { compareBytes } from './byte-order.js'

/** How a state key changed. always-sync marks keys applied on every sync (genesissecret). */
export type DiffType = 'added' | 'modified' | 'removed' | 'always-sync'

/** One changed state key with the hashes that matter for its type. */
export interface DiffEntry {
  type: DiffType
  key: string
  /** Stored hash (modified, removed). */
  oldHash?: string
  /** Current hash (added, modified, always-sync). */
  newHash?: string
}

const TYPE_ORDER: Record<DiffType, number> = {
  added: 0,
  modified: 1,
  removed: 2,
  'always-sync': 3
}

/**
 * Classifies every key: current keys in `alwaysSync` are always-sync whatever is stored; new keys
 * are added; changed hashes are modified; stored keys no longer built are removed (even if in
 * `alwaysSync`). Equal hashes yield nothing. Sorted by type (added, modified, removed,
 * always-sync), then by key in Go byte order.
 */
export function computeDiff(
  stored: ReadonlyMap<string, string>,
  current: ReadonlyMap<string, string>,
  alwaysSync: ReadonlySet<string>
): DiffEntry[] {
  const entries: DiffEntry[] = []
  for (const [key, newHash] of current) {
    const oldHash = stored.get(key)
    if (alwaysSync.has(key)) entries.push({ type: 'always-sync', key, newHash })
    else if (oldHash === undefined) entries.push({ type: 'added', key, newHash })
    else if (oldHash !== newHash) entries.push({ type: 'modified', key, oldHash, newHash })
  }
  for (const [key, oldHash] of stored) {
    if (!current.has(key)) entries.push({ type: 'removed', key, oldHash })
  }
  return entries.sort(
    (a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || compareBytes(a.key, b.key)
  )
}

/** Diff entry types in Tazuna's output order (docs/compatibility.md#diff-classification). */
export const diffTypes = ['added', 'modified', 'removed', 'always-sync'] as const

/** Entries in Tazuna's order: added, modified, removed, always-sync, then key ascending. */
export function sortEntries(entries: readonly DiffEntry[]): DiffEntry[] {
  return [...entries].sort(
    (a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || compareBytes(a.key, b.key)
  )
}
