/** Go's `%q` of a string (strconv.Quote), as Tazuna's messages print names and values. */
export function goQuote(text: string): string {
  let out = '"'
  for (const ch of text) {
    const c = ch.codePointAt(0)!
    const named: Record<string, string> = {
      '"': '\\"',
      '\\': '\\\\',
      '\u0007': '\\a',
      '\b': '\\b',
      '\f': '\\f',
      '\n': '\\n',
      '\r': '\\r',
      '\t': '\\t',
      '\v': '\\v'
    }
    if (named[ch] !== undefined) out += named[ch]
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`
    else if (/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) out += ch
    else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, '0')}`
    else out += `\\U${c.toString(16).padStart(8, '0')}`
  }
  return `${out}"`
}
