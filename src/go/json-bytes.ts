/**
 * Go's json.Marshal of `string(b)` for arbitrary bytes `b` (a Secret's data value as Tazuna puts
 * it in a 1Password item): valid UTF-8 is escaped as for any Go string (src/state/hash.ts
 * goString: HTML characters, U+2028/U+2029 and control characters as escapes), and every byte
 * that does not start a valid UTF-8 sequence becomes the six characters `\ufffd` (Go decodes one
 * byte at a time: `E2 82 41` is two of them and `A`). Expected values printed by Go:
 * __tests__/unit/go/json-bytes.test.ts.
 */
import { goString } from '../state/hash.js'

/** The JSON string literal, quotes included, Go writes for `string(bytes)`. */
export function goJsonStringOfBytes(bytes: Uint8Array): string {
  let out = ''
  let start = 0
  const flush = (end: number): void => {
    if (end > start)
      out += goString(Buffer.from(bytes.subarray(start, end)).toString('utf8')).slice(1, -1)
  }
  for (let i = 0; i < bytes.length;) {
    const width = validRuneWidth(bytes, i)
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

/** The length of the valid UTF-8 sequence at `i` (Go's utf8.DecodeRune rules), or 0. */
function validRuneWidth(b: Uint8Array, i: number): number {
  const c0 = b[i] ?? 0
  if (c0 < 0x80) return 1
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const c = b[i + k]
    return c !== undefined && c >= lo && c <= hi
  }
  if (c0 >= 0xc2 && c0 <= 0xdf) return cont(1) ? 2 : 0
  if (c0 >= 0xe0 && c0 <= 0xef) {
    const lo = c0 === 0xe0 ? 0xa0 : 0x80
    const hi = c0 === 0xed ? 0x9f : 0xbf
    return cont(1, lo, hi) && cont(2) ? 3 : 0
  }
  if (c0 >= 0xf0 && c0 <= 0xf4) {
    const lo = c0 === 0xf0 ? 0x90 : 0x80
    const hi = c0 === 0xf4 ? 0x8f : 0xbf
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0
  }
  return 0
}
