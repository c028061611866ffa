/** Go's strings package, where our code must split as Go does. */

/** Go's strings.SplitN for n > 0: at most n parts, the last one holding the rest. */
export function splitN(s: string, sep: string, n: number): string[] {
  const parts: string[] = []
  let rest = s
  while (parts.length < n - 1) {
    const i = rest.indexOf(sep)
    if (i < 0) break
    parts.push(rest.slice(0, i))
    rest = rest.slice(i + sep.length)
  }
  parts.push(rest)
  return parts
}
