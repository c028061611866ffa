/**
 * The dotenv dialect of Tazuna's `envfile` provider (docs/compatibility.md#genesissecret): each
 * line is trimmed; blank lines and lines starting with `#` are skipped; the line splits at its
 * first `=`; key and value are trimmed; one pair of matching surrounding quotes (`"` or `'`) is
 * stripped from the value. There are no escapes, no `export` prefix, no inline comments and no
 * multi-line values. A line without `=` is skipped (the spec does not say; skipping is the reading
 * that cannot invent data). A repeated key keeps its last value.
 */
export function parseDotenv(text: string): Map<string, string> {
  const values = new Map<string, string>()
  for (const raw of text.split('\n')) {
    const line = goTrimSpace(raw)
    if (line === '' || line.startsWith('#')) continue
    const eq = line.indexOf('=')
    if (eq < 0) continue
    values.set(goTrimSpace(line.slice(0, eq)), unquote(goTrimSpace(line.slice(eq + 1))))
  }
  return values
}

function unquote(value: string): string {
  if (value.length < 2) return value
  const first = value[0]
  if ((first === '"' || first === "'") && value.endsWith(first)) return value.slice(1, -1)
  return value
}

// Go's strings.TrimSpace (Unicode White_Space) differs from String.prototype.trim on two code
// points: Go trims U+0085 (NEL) and keeps U+FEFF (BOM), JavaScript does the opposite.
const GO_SPACE =
  '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]'
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'gu')

/** Go's strings.TrimSpace. */
export function goTrimSpace(s: string): string {
  return s.replace(GO_TRIM, '')
}
