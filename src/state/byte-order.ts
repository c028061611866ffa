/**
 * Go compares strings byte by byte over their UTF-8 encoding (`<`, `sort.Strings`,
 * `strings.Compare`, the key order of `json.Marshal`). JavaScript's `<` compares UTF-16 code
 * units, which sorts U+E000–U+FFFF after astral characters; UTF-8 byte order is code point
 * order, so ranking a paired high surrogate as its code point reproduces Go.
 */

/** Compares two strings in Go's byte-wise UTF-8 order: negative, zero or positive. */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return rank(a, i, x) - rank(b, i, y)
  }
  return a.length - b.length
}

/** A paired high surrogate ranks as its astral code point (> U+FFFF); other units as themselves. */
function rank(s: string, i: number, unit: number): number {
  return unit >= 0xd800 && unit <= 0xdbff ? (s.codePointAt(i) ?? unit) : unit
}
