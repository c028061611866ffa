/**
 * Go's encoding/json string literals (json.Marshal's defaults, HTML escaping on): of a string
 * (`goString`: `<` `>` `&` U+2028 U+2029 and control characters as escapes, as ContentHash needs
 * them, docs/compatibility.md#contenthash) and of arbitrary bytes `b` as `string(b)` (a Secret's
 * data value as Tazuna puts it in a 1Password item): valid UTF-8 is escaped as any string, and
 * every byte that does not start a valid UTF-8 sequence becomes the six characters `\ufffd` (Go
 * decodes one byte at a time: `E2 82 41` is two of them and `A`). Expected values printed by Go:
 * __tests__/unit/go/json-bytes.test.ts, __tests__/unit/state/hash.test.ts.
 */
import { validRuneLength } from './utf8.js'

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t'
}

// Control characters, the characters Go escapes for HTML safety, and lone surrogates.
const NEEDS_ESCAPE =
  // eslint-disable-next-line no-control-regex
  /["\\\u0000-\u001f<>&\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Quotes a string like Go's encoding/json with HTML escaping on (json.Marshal's default). */
export function goString(s: string): string {
  return `"${s.replace(NEEDS_ESCAPE, escapeChar)}"`
}

function escapeChar(c: string): string {
  const short = SHORT_ESCAPES[c]
  if (short !== undefined) return short
  const code = c.charCodeAt(0)
  // Go's decoder already turned a lone surrogate escape into U+FFFD, which it emits raw.
  if (code >= 0xd800 && code <= 0xdfff) return '\ufffd'
  return `\\u${code.toString(16).padStart(4, '0')}`
}

/** The JSON string literal, quotes included, Go writes for `string(bytes)`. */
export function goJsonStringOfBytes(bytes: Uint8Array): string {
  let out = ''
  let start = 0
  const flush = (end: number): void => {
    if (end > start)
      out += goString(Buffer.from(bytes.subarray(start, end)).toString('utf8')).slice(1, -1)
  }
  for (let i = 0; i < bytes.length;) {
    const width = validRuneLength(bytes, i)
    if (width > 0) {
      i += width
      continue
    }
    flush(i)
    out += '\\ufffd'
    i += 1
    start = i
  }
  flush(bytes.length)
  return `"${out}"`
}
