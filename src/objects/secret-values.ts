/**
 * A Secret's values never reach a comment, summary, report or log line (SECURITY.md), and the API
 * server's words can quote one: structured-merge-diff, which converts every apply, writes
 * `expected string, got &value.valueUnstructured{Value:12345}` for a Secret value left unquoted.
 */

/** True for a core `v1` Secret, by apiVersion and kind. */
export function isSecretKind(ref: { apiVersion: string; kind: string }): boolean {
  return ref.apiVersion === 'v1' && ref.kind === 'Secret'
}

/**
 * `message` with every value structured-merge-diff quotes (from `, got &value.…` to the end of
 * its line) replaced by a note that a Secret's value is not shown.
 */
export function withoutQuotedValues(message: string): string {
  return message.replace(
    /, got &value\.[^\n]*/g,
    ', got a value that is not shown (the object is a Secret)'
  )
}
