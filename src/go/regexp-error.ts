/** A pattern Go's regexp.Compile rejects; `message` is Go's error text. */
export class GoRegexpError extends Error {
  override name = 'GoRegexpError'
}

/** Go's parse error text: "error parsing regexp: CODE: `EXPR`". */
export function goRegexpError(code: string, expr: string): GoRegexpError {
  return new GoRegexpError(`error parsing regexp: ${code}: \`${expr}\``)
}
