/** Go's UTF-8 decoding rules, shared by the ports that turn raw bytes into Go's text. */

/**
 * The length of the valid UTF-8 sequence at `i` by Go's `utf8.DecodeRune` rules (no surrogates,
 * no overlong forms, nothing above U+10FFFF), or 0 where Go decodes U+FFFD of width 1.
 */
export function validRuneLength(b: Uint8Array, i: number): number {
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
