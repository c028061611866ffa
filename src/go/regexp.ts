/**
 * Go (RE2) regular expressions in JavaScript, for `context_matches`
 * (docs/compatibility.md#context-guard, #check step 2). Tazuna compiles them with Go's
 * regexp.Compile, so a pattern must be rejected exactly when Go rejects it (look-around,
 * back-references, possessive or stacked repeats, repeat counts over 1000, unknown `\p{...}`), with
 * Go's message, and must match what Go matches.
 *
 * This is a port of the parser in Go's regexp/syntax (parse.go, Perl flags) that builds a small
 * tree and prints it as JavaScript source for the `u` flag. Go-only syntax is translated:
 * `(?P<n>re)`/`(?<n>re)` become plain groups (names do not affect matching), `(?flags)` and
 * `(?flags:re)` are applied while printing (i: a per-atom `(?i:...)` modifier; m, s, U: the
 * printed `^`, `$`, `.` and repeat laziness), `\A`/`\z`, `\Q...\E`, POSIX classes, and Go's
 * ASCII-only `\d`, `\s`, `\w`. Not reproduced: Go's limits on nesting depth (1000) and program
 * size, and case folding of negated classes/properties under `(?i)` beyond ASCII.
 */
import { parseGoClass, parseGoEscapeAtom, type ClassItem } from './regexp-class.js'
import { goRegexpError } from './regexp-error.js'

export { GoRegexpError } from './regexp-error.js'

type Node =
  | { t: 'lit'; c: number; fold: boolean }
  | { t: 'class'; items: ClassItem[]; negated: boolean; fold: boolean }
  | { t: 'raw'; js: string }
  | { t: 'group'; cap: boolean; alts: Node[][] }
  | { t: 'repeat'; sub: Node; min: number; max: number; lazy: boolean; counted: boolean }

/** Go's parse flags that change meaning while parsing (spec: regexp/syntax Flags). */
export interface GoFlags {
  fold: boolean
  multiLine: boolean
  dotNL: boolean
  nonGreedy: boolean
}

interface Frame {
  flags: GoFlags
  cap: boolean
  alts: Node[][]
  current: Node[]
}

/**
 * Compiles a Go regexp to an equivalent JavaScript RegExp (flag `u`, unanchored). Throws a
 * GoRegexpError with Go's message when Go would reject the pattern.
 */
export function compileGoRegexp(pattern: string): RegExp {
  return new RegExp(printAlternatives(parseGoRegexp(pattern)), 'u')
}

/**
 * Whether `subject` matches `^(?:pattern)$` as Go evaluates it (the context guard,
 * docs/compatibility.md#context-guard).
 */
export function goRegexpMatchesFully(pattern: string, subject: string): boolean {
  return compileGoRegexp(`^(?:${pattern})$`).test(subject)
}

function parseGoRegexp(s: string): Node[][] {
  const flags: GoFlags = { fold: false, multiLine: false, dotNL: false, nonGreedy: false }
  const stack: Frame[] = [{ flags, cap: false, alts: [], current: [] }]
  const top = () => stack[stack.length - 1]!
  let i = 0
  let lastRepeat: number | undefined
  while (i < s.length) {
    let repeat: number | undefined
    const c = s[i]!
    const f = top().flags
    if (c === '(') {
      if (s[i + 1] === '?') {
        const parsed = parsePerlFlags(s, i, f)
        i = parsed.next
        if (parsed.group)
          stack.push({ flags: parsed.flags, cap: parsed.cap, alts: [], current: [] })
        else top().flags = parsed.flags
      } else {
        stack.push({ flags: { ...f }, cap: true, alts: [], current: [] })
        i++
      }
    } else if (c === '|') {
      top().alts.push(top().current)
      top().current = []
      i++
    } else if (c === ')') {
      const frame = stack.pop()!
      if (stack.length === 0) throw goRegexpError('unexpected )', s)
      frame.alts.push(frame.current)
      top().current.push({ t: 'group', cap: frame.cap, alts: frame.alts })
      i++
    } else if (c === '^') {
      top().current.push({ t: 'raw', js: f.multiLine ? '(?:^|(?<=\\n))' : '(?:^)' })
      i++
    } else if (c === '$') {
      top().current.push({ t: 'raw', js: f.multiLine ? '(?:$|(?=\\n))' : '(?:$)' })
      i++
    } else if (c === '.') {
      top().current.push({ t: 'raw', js: f.dotNL ? '[\\s\\S]' : '[^\\n]' })
      i++
    } else if (c === '[') {
      const parsed = parseGoClass(s, i, f.fold)
      top().current.push({ t: 'class', items: parsed.items, negated: parsed.negated, fold: f.fold })
      i = parsed.next
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const parsed = parseRepeat(s, i)
      if (parsed === undefined) {
        top().current.push({ t: 'lit', c: 0x7b, fold: false })
        i++
      } else {
        applyRepeat(s, top(), i, parsed, lastRepeat)
        repeat = i
        i = parsed.next
      }
    } else if (c === '\\') {
      i = parseBackslash(s, i, top())
    } else {
      const cp = s.codePointAt(i)!
      top().current.push({ t: 'lit', c: cp, fold: f.fold })
      i += cp > 0xffff ? 2 : 1
    }
    lastRepeat = repeat
  }
  if (stack.length !== 1) throw goRegexpError('missing closing )', s)
  const root = stack[0]!
  root.alts.push(root.current)
  return root.alts
}

interface ParsedRepeat {
  min: number
  max: number
  counted: boolean
  lazySuffix: boolean
  /** index just after the operator and its `?` */
  next: number
}

/** `*`, `+`, `?` or a well-formed `{n}`, `{n,}`, `{n,m}` at `i`; undefined: `{` is a literal. */
function parseRepeat(s: string, i: number): ParsedRepeat | undefined {
  const c = s[i]
  let min: number
  let max: number
  let end: number
  if (c === '{') {
    const m = /^\{(0|[1-9][0-9]*)(,(0|[1-9][0-9]*)?)?\}/.exec(s.slice(i))
    if (!m) return undefined
    min = goInt(m[1]!)
    max = m[2] === undefined ? min : m[3] === undefined ? -1 : goInt(m[3])
    if (m[3] !== undefined && max === -1) min = -1
    end = i + m[0].length
    if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) {
      throw goRegexpError('invalid repeat count', s.slice(i, end))
    }
  } else {
    min = c === '+' ? 1 : 0
    max = c === '?' ? 1 : -1
    end = i + 1
  }
  const lazySuffix = s[end] === '?'
  return { min, max, counted: c === '{', lazySuffix, next: lazySuffix ? end + 1 : end }
}

/** Go's parseInt: values of 1e8 and more become -1 ("too big"). */
function goInt(digits: string): number {
  let n = 0
  for (const d of digits) {
    if (n >= 1e8) return -1
    n = n * 10 + Number(d)
  }
  return n
}

function applyRepeat(
  s: string,
  frame: Frame,
  i: number,
  r: ParsedRepeat,
  lastRepeat: number | undefined
): void {
  if (lastRepeat !== undefined) {
    throw goRegexpError('invalid nested repetition operator', s.slice(lastRepeat, r.next))
  }
  const sub = frame.current.pop()
  if (sub === undefined)
    throw goRegexpError('missing argument to repetition operator', s.slice(i, r.next))
  const node: Node = {
    t: 'repeat',
    sub,
    min: r.min,
    max: r.max,
    lazy: frame.flags.nonGreedy !== r.lazySuffix,
    counted: r.counted
  }
  if (r.counted && (r.min >= 2 || r.max >= 2) && !repeatIsValid(node, 1000)) {
    throw goRegexpError('invalid repeat count', s.slice(i, r.next))
  }
  frame.current.push(node)
}

/** Go's repeatIsValid: nested counted repeats may not multiply past `n` copies. */
function repeatIsValid(node: Node, n: number): boolean {
  if (node.t === 'repeat') {
    if (node.counted) {
      let m = node.max
      if (m === 0) return true
      if (m < 0) m = node.min
      if (m > n) return false
      if (m > 0) n = Math.floor(n / m)
    }
    return repeatIsValid(node.sub, n)
  }
  if (node.t === 'group') return node.alts.every((alt) => alt.every((sub) => repeatIsValid(sub, n)))
  return true
}

interface ParsedFlags {
  next: number
  flags: GoFlags
  group: boolean
  cap: boolean
}

/** Go's parsePerlFlags for `(?` at `i`: named groups, `(?flags)`, `(?flags:`. */
function parsePerlFlags(s: string, i: number, current: GoFlags): ParsedFlags {
  const t = s.slice(i)
  const named = /^\(\?P?</.exec(t)
  if (named && (t[2] === '<' ? t.length > 3 : t.length > 4)) {
    const end = t.indexOf('>')
    if (end < 0) throw goRegexpError('invalid named capture', t)
    const name = t.slice(named[0].length, end)
    if (!/^[0-9A-Za-z_]+$/.test(name))
      throw goRegexpError('invalid named capture', t.slice(0, end + 1))
    return { next: i + end + 1, flags: { ...current }, group: true, cap: true }
  }
  const flags = { ...current }
  let negate = false
  let sawFlag = false
  for (let j = 2; j < t.length; j++) {
    const c = t[j]
    const on = !negate
    if (c === 'i') flags.fold = on
    else if (c === 'm') flags.multiLine = on
    else if (c === 's') flags.dotNL = on
    else if (c === 'U') flags.nonGreedy = on
    else if (c === '-' && !negate) {
      negate = true
      sawFlag = false
      continue
    } else if ((c === ':' || c === ')') && !(negate && !sawFlag)) {
      return { next: i + j + 1, flags, group: c === ':', cap: false }
    } else {
      throw goRegexpError('invalid or unsupported Perl syntax', t.slice(0, j + 1))
    }
    sawFlag = true
  }
  throw goRegexpError('invalid or unsupported Perl syntax', t)
}

/** A backslash at `i` outside a class: assertions, \Q...\E, classes, escapes. */
function parseBackslash(s: string, i: number, frame: Frame): number {
  const next = s[i + 1]
  const assertions: Record<string, string> = { A: '(?:^)', z: '(?:$)', b: '(?:\\b)', B: '(?:\\B)' }
  if (next !== undefined && assertions[next] !== undefined) {
    frame.current.push({ t: 'raw', js: assertions[next] })
    return i + 2
  }
  if (next === 'C') throw goRegexpError('invalid escape sequence', '\\C')
  if (next === 'Q') {
    const end = s.indexOf('\\E', i + 2)
    const literal = end < 0 ? s.slice(i + 2) : s.slice(i + 2, end)
    for (const ch of literal)
      frame.current.push({ t: 'lit', c: ch.codePointAt(0)!, fold: frame.flags.fold })
    return end < 0 ? s.length : end + 2
  }
  const parsed = parseGoEscapeAtom(s, i, frame.flags.fold)
  frame.current.push(
    'literal' in parsed
      ? { t: 'lit', c: parsed.literal, fold: frame.flags.fold }
      : { t: 'class', items: parsed.items, negated: false, fold: frame.flags.fold }
  )
  return parsed.next
}

function printAlternatives(alts: Node[][]): string {
  return alts.map((alt) => alt.map(printNode).join('')).join('|')
}

function printNode(node: Node): string {
  switch (node.t) {
    case 'lit':
      return node.fold && hasCase(node.c) ? `(?i:${jsChar(node.c)})` : jsChar(node.c)
    case 'class': {
      const body = node.items.map(printClassItem).join('')
      const cls = `[${node.negated ? '^' : ''}${body}]`
      return node.fold ? `(?i:${cls})` : cls
    }
    case 'raw':
      return node.js
    case 'group':
      return `(${node.cap ? '' : '?:'}${printAlternatives(node.alts)})`
    case 'repeat': {
      const { min, max } = node
      const op =
        !node.counted && min === 0 && max === -1
          ? '*'
          : !node.counted && min === 1
            ? '+'
            : !node.counted
              ? '?'
              : max === -1
                ? `{${min},}`
                : max === min
                  ? `{${min}}`
                  : `{${min},${max}}`
      return `(?:${printNode(node.sub)})${op}${node.lazy ? '?' : ''}`
    }
  }
}

function printClassItem(item: ClassItem): string {
  if ('prop' in item) return `\\${item.negated ? 'P' : 'p'}{${item.prop}}`
  return item.lo === item.hi ? jsChar(item.lo) : `${jsChar(item.lo)}-${jsChar(item.hi)}`
}

/** A code point as JavaScript regexp source valid in and out of classes under the `u` flag. */
function jsChar(c: number): string {
  const ch = String.fromCodePoint(c)
  return /^[0-9A-Za-z_ ]$/.test(ch) ? ch : `\\u{${c.toString(16)}}`
}

function hasCase(c: number): boolean {
  const ch = String.fromCodePoint(c)
  return ch.toLowerCase() !== ch.toUpperCase() || c === 0x130 || c === 0x131
}
