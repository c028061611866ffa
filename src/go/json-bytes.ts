/**
 * Go's json.Marshal of `string(b)` for arbitrary bytes `b` (a Secret's data value as Tazuna puts
 * it in a 1Password item): valid UTF-8 is escaped as for any Go string (src/state/hash.ts
 * goString: HTML characters, U+2028/U+2029 and control characters as escapes), and every byte
 * that does not start a valid UTF-8 sequence becomes the six characters `\ufffd` (Go decodes one
 * byte at a time: `E2 82 41` is two of them and `A`). Expected values printed by Go:
 * __tests__/unit/go/json-bytes.test.ts.
 */
import { goString } from '../state/hash.js'
import { validRuneLength } from './utf8.js'

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
