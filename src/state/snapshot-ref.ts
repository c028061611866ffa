/** The git refs State snapshots may be published on (docs/state-snapshots.md#on-a-git-ref). */

/**
 * Whether `ref` may hold snapshots: a full ref name under `refs/`, not a branch or a tag
 * (publishing force-replaces the ref), without what git refuses in ref names. Returns the
 * problem, or undefined.
 */
export function snapshotRefProblem(ref: string): string | undefined {
  if (!ref.startsWith('refs/')) return 'must be a full ref name starting with refs/'
  if (/^refs\/(heads|tags|remotes|pull)\//.test(ref)) {
    return 'must not be a branch, tag, remote or pull request ref (it is force-replaced)'
  }
  // git check-ref-format's rules, as far as they matter for a name we are given.
  const control = [...ref].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')
  if (control || /\.\.|@\{|[\s~^:?*[\\]|\/\/|\/\.|\.lock(\/|$)|\/$|\.$/.test(ref)) {
    return 'is not a valid git ref name'
  }
  return undefined
}
