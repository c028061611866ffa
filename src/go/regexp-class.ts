/**
 * Character classes and escapes of Go regexps (port of regexp/syntax parseClass, parseEscape,
 * parsePerlClassEscape, parseNamedClass, parseUnicodeClass); see go-regexp.ts.
 */
import { goRegexpError } from './regexp-error.js'
import { goUnicodeProperties } from './regexp-unicode.js'

/** A code point range, or a JavaScript Unicode property (`gc=L`, `sc=Greek`, `Any`). */
export type ClassItem = { lo: number; hi: number } | { prop: string; negated: boolean }

type Range = { lo: number; hi: number }
const r = (lo: number, hi: number): Range => ({ lo, hi })
const MAX_RUNE = 0x10ffff

/** Go's \d \s \w and POSIX [:name:] tables (regexp/syntax/perl_groups.go): ASCII only. */
const perlGroups: Record<string, Range[]> = {
  d: [r(0x30, 0x39)],
  s: [r(0x9, 0xa), r(0xc, 0xd), r(0x20, 0x20)],
  w: [r(0x30, 0x39), r(0x41, 0x5a), r(0x5f, 0x5f), r(0x61, 0x7a)]
}
const posixGroups: Record<string, Range[]> = {
  alnum: [r(0x30, 0x39), r(0x41, 0x5a), r(0x61, 0x7a)],
  alpha: [r(0x41, 0x5a), r(0x61, 0x7a)],
  ascii: [r(0x0, 0x7f)],
  blank: [r(0x9, 0x9), r(0x20, 0x20)],
  cntrl: [r(0x0, 0x1f), r(0x7f, 0x7f)],
  digit: [r(0x30, 0x39)],
  graph: [r(0x21, 0x7e)],
  lower: [r(0x61, 0x7a)],
  print: [r(0x20, 0x7e)],
  punct: [r(0x21, 0x2f), r(0x3a, 0x40), r(0x5b, 0x60), r(0x7b, 0x7e)],
  space: [r(0x9, 0xd), r(0x20, 0x20)],
  upper: [r(0x41, 0x5a)],
  word: [r(0x30, 0x39), r(0x41, 0x5a), r(0x5f, 0x5f), r(0x61, 0x7a)],
  xdigit: [r(0x30, 0x39), r(0x41, 0x46), r(0x61, 0x66)]
}

/** A parsed `[...]` class. */
export interface ParsedClass {
  items: ClassItem[]
  negated: boolean
  next: number
}

/** Parses the class starting with `[` at `start`; `fold` is Go's (?i) at that point. */
export function parseGoClass(s: string, start: number, fold: boolean): ParsedClass {
  const whole = s.slice(start)
  let i = start + 1
  const negated = s[i] === '^'
  if (negated) i++
  const items: ClassItem[] = []
  let first = true
  while (i >= s.length || s[i] !== ']' || first) {
    first = false
    if (s.startsWith('[:', i)) {
      const end = s.indexOf(':]', i + 2)
      if (end >= 0) {
        const name = s.slice(i, end + 2)
        const group = /^\[:(\^?)([a-z]+):\]$/.exec(name)
        const table = group ? posixGroups[group[2]!] : undefined
        if (!group || !table) throw goRegexpError('invalid character class range', name)
        items.push(...asciiGroup(table, group[1] === '^', fold))
        i = end + 2
        continue
      }
    }
    const unicode = parseUnicodeClass(s, i)
    if (unicode) {
      items.push(unicode.item)
      i = unicode.next
      continue
    }
    const perl = parsePerlClass(s, i, fold)
    if (perl) {
      items.push(...perl.items)
      i = perl.next
      continue
    }
    const lo = parseClassChar(s, i, whole)
    let hi = lo
    if (s[lo.next] === '-' && lo.next + 1 < s.length && s[lo.next + 1] !== ']') {
      hi = parseClassChar(s, lo.next + 1, whole)
      if (hi.c < lo.c) throw goRegexpError('invalid character class range', s.slice(i, hi.next))
    }
    items.push(r(lo.c, hi.c))
    i = hi.next
  }
  return { items, negated, next: i + 1 }
}

/** A backslash escape outside a class: a class (\pL, \d...) or a single code point. */
export function parseGoEscapeAtom(
  s: string,
  i: number,
  fold: boolean
): { items: ClassItem[]; next: number } | { literal: number; next: number } {
  const unicode = parseUnicodeClass(s, i)
  if (unicode) return { items: [unicode.item], next: unicode.next }
  const perl = parsePerlClass(s, i, fold)
  if (perl) return perl
  const escape = parseEscape(s, i)
  return { literal: escape.c, next: escape.next }
}

function parseClassChar(s: string, i: number, whole: string): { c: number; next: number } {
  if (i >= s.length) throw goRegexpError('missing closing ]', whole)
  if (s[i] === '\\') return parseEscape(s, i)
  const c = s.codePointAt(i)!
  return { c, next: i + (c > 0xffff ? 2 : 1) }
}

function parsePerlClass(
  s: string,
  i: number,
  fold: boolean
): { items: ClassItem[]; next: number } | undefined {
  const m = /^\\([dswDSW])/.exec(s.slice(i, i + 2))
  if (!m) return undefined
  const letter = m[1]!
  const table = perlGroups[letter.toLowerCase()]!
  return { items: asciiGroup(table, letter !== letter.toLowerCase(), fold), next: i + 2 }
}

/** Go's appendGroup: fold first (under (?i)), then negate. */
function asciiGroup(table: Range[], negated: boolean, fold: boolean): Range[] {
  const ranges = fold ? foldAscii(table) : table
  return negated ? complement(ranges) : ranges
}

/** ASCII ranges plus the other case of their letters (and U+017F ſ, U+212A K, as Go folds). */
function foldAscii(table: Range[]): Range[] {
  const out = [...table]
  for (const { lo, hi } of table) {
    for (let c = lo; c <= hi; c++) {
      const ch = String.fromCharCode(c)
      const other = ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()
      if (other !== ch) out.push(r(other.charCodeAt(0), other.charCodeAt(0)))
      if (ch === 's' || ch === 'S') out.push(r(0x17f, 0x17f))
      if (ch === 'k' || ch === 'K') out.push(r(0x212a, 0x212a))
    }
  }
  return out
}

function complement(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a.lo - b.lo)
  const out: Range[] = []
  let next = 0
  for (const { lo, hi } of sorted) {
    if (lo > next) out.push(r(next, lo - 1))
    next = Math.max(next, hi + 1)
  }
  if (next <= MAX_RUNE) out.push(r(next, MAX_RUNE))
  return out
}

/** `\pX`, `\p{Name}`, `\P{^Name}`...; undefined when `s[i..]` is not `\p` or `\P`. */
function parseUnicodeClass(s: string, i: number): { item: ClassItem; next: number } | undefined {
  if (s[i] !== '\\' || (s[i + 1] !== 'p' && s[i + 1] !== 'P')) return undefined
  let negated = s[i + 1] === 'P'
  let seq: string
  let name: string
  if (s[i + 2] === '{') {
    const end = s.indexOf('}', i)
    if (end < 0) throw goRegexpError('invalid character class range', s.slice(i))
    seq = s.slice(i, end + 1)
    name = s.slice(i + 3, end)
  } else {
    const c = s.codePointAt(i + 2)
    seq = s.slice(i, c === undefined ? i + 2 : i + 2 + (c > 0xffff ? 2 : 1))
    name = seq.slice(2)
  }
  if (name.startsWith('^')) {
    negated = !negated
    name = name.slice(1)
  }
  const prop = goUnicodeProperties.get(canonicalName(name))
  if (prop === undefined) throw goRegexpError('invalid character class range', seq)
  return { item: { prop, negated }, next: i + seq.length }
}

/** regexp/syntax canonicalName: first letter upper, the rest lower, no `_`, `-` or space. */
function canonicalName(name: string): string {
  const letters = name.replace(/[_\- ]/g, '')
  return letters.slice(0, 1).toUpperCase() + letters.slice(1).toLowerCase()
}

/** Go's parseEscape: one code point (octal, hex, C escapes, escaped punctuation). */
function parseEscape(s: string, i: number): { c: number; next: number } {
  if (i + 1 >= s.length) throw goRegexpError('trailing backslash at end of expression', '')
  const c = s.codePointAt(i + 1)!
  let j = i + 1 + (c > 0xffff ? 2 : 1)
  const ch = String.fromCodePoint(c)
  const invalid = () => goRegexpError('invalid escape sequence', s.slice(i, j))
  if (c < 0x80 && !/[0-9A-Za-z]/.test(ch)) return { c, next: j }
  if (/[0-7]/.test(ch) && (ch === '0' || /[0-7]/.test(s[j] ?? ''))) {
    let v = Number(ch)
    for (let k = 1; k < 3 && /[0-7]/.test(s[j] ?? ''); k++) v = v * 8 + Number(s[j++])
    return { c: v, next: j }
  }
  const simple: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 }
  if (simple[ch] !== undefined) return { c: simple[ch], next: j }
  if (ch !== 'x' || j >= s.length) throw invalid()
  if (s[j] === '{') {
    const m = /^\{([0-9A-Fa-f]*)(\})?/.exec(s.slice(j))!
    const hex = m[1]!
    let v = 0
    for (let k = 0; k < hex.length; k++) {
      v = v * 16 + parseInt(hex[k]!, 16)
      if (v > MAX_RUNE) {
        j += k + 2
        throw invalid()
      }
    }
    j += 1 + hex.length + (m[2] ? 1 : 0)
    if (!m[2] || hex.length === 0) {
      if (!m[2] && j < s.length) j++
      throw invalid()
    }
    return { c: v, next: j }
  }
  const pair = s.slice(j, j + 2)
  j += Math.min(2, s.length - j)
  if (!/^[0-9A-Fa-f]{2}$/.test(pair)) throw invalid()
  return { c: parseInt(pair, 16), next: j }
}
