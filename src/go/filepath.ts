/**
 * Go's path/filepath on a Unix system, where the paths Tazuna prints are made: `Clean` (the
 * shortest equivalent path, no trailing slash, "." for empty), `Join` (non-empty elements
 * joined by `/` and cleaned, an absolute later element included, "" when all are empty) and
 * `Dir`. Expected values: Go's documented examples, checked against Go
 * (__tests__/unit/go/filepath.test.ts).
 */
import path from 'node:path'

/** filepath.Clean. */
export function goClean(p: string): string {
  if (p === '') return '.'
  const normal = path.posix.normalize(p)
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal
}

/** filepath.Join. */
export function goJoin(...elements: string[]): string {
  const parts = elements.filter((e) => e !== '')
  return parts.length === 0 ? '' : goClean(parts.join('/'))
}

/** filepath.Dir: everything up to the last `/`, cleaned. */
export function goDir(p: string): string {
  return goClean(p.slice(0, p.lastIndexOf('/') + 1))
}
