/**
 * How a State save resolves a concurrent writer (docs/compatibility.md#state-storage: upstream
 * simply fails on a conflict). A run may overwrite entries it applied or pruned; anything else that
 * changed under it was written by another deploy, and silently overwriting that would lose the
 * other deploy's record.
 */

/**
 * True when every entry outside `touched` has the same content hash (or is equally absent) in
 * the State this run started from and in the State now stored.
 */
export function untouchedEntriesUnchanged(
  base: ReadonlyMap<string, string>,
  current: ReadonlyMap<string, string>,
  touched: ReadonlySet<string>
): boolean {
  for (const key of new Set([...base.keys(), ...current.keys()])) {
    if (!touched.has(key) && base.get(key) !== current.get(key)) return false
  }
  return true
}
