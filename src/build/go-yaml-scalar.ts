/**
 * How go-yaml v2 (go.yaml.in/yaml/v2 v2.4.x, used by sigs.k8s.io/yaml.Marshal) decides to write
 * a string: whether it may stay plain (encode.go `stringv` + resolve.go `resolve`) and which
 * styles the emitter allows for it (emitterc.go `yaml_emitter_analyze_scalar`). A line-by-line
 * port, so GenesisSecret Build text is byte-identical to Tazuna's (spec §4.3).
 */

/** The styles go-yaml v2 writes strings in. */
export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal'

/** What yaml_emitter_analyze_scalar found out about a value. */
export interface ScalarAnalysis {
  multiline: boolean
  blockPlainAllowed: boolean
  singleQuotedAllowed: boolean
  blockAllowed: boolean
}

/** encode.go stringv: literal for multi-line text, plain if it reads back as a string, else "…". */
export function requestedStyle(s: string): ScalarStyle {
  if (s.includes('\n')) return 'literal'
  return resolvesToString(s) && !isBase60Float(s) ? 'plain' : 'double'
}

const MAP_VALUES = new Set([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'],
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'],
  ...['', '~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF'],
  ...['+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF', '<<']
])
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/

const RESOLVE_HINTS: Record<string, string> = {
  '+': 'S',
  '-': 'S',
  '.': '.',
  ...Object.fromEntries([...'0123456789'].map((d) => [d, 'D'])),
  ...Object.fromEntries([...'yYnNtTfFoO~'].map((c) => [c, 'M']))
}

/** resolve("", s) == !!str: the value would read back as this string when written plain. */
export function resolvesToString(s: string): boolean {
  const hint = s === '' ? 'N' : (RESOLVE_HINTS[s[0] ?? ''] ?? '')
  if (hint === '') return true
  if (MAP_VALUES.has(s)) return false
  if (hint === 'M') return true
  if (hint === '.') return !isGoFloat(s)
  if (isYamlTimestamp(s)) return false
  const plain = s.replace(/_/g, '')
  if (isGoInt(plain) || isGoUint(plain)) return false
  if (YAML_STYLE_FLOAT.test(plain) && isGoFloat(plain)) return false
  if (plain.startsWith('0b') && isGoBinary(plain.slice(2))) return false
  if (plain.startsWith('-0b') && isGoBinary(`-${plain.slice(3)}`)) return false
  return true
}

/** encode.go isBase60Float: quoted on output for YAML 1.1 parsers. */
export function isBase60Float(s: string): boolean {
  const c = s[0]
  if (c === undefined || !(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) {
    return false
  }
  return BASE60_FLOAT.test(s)
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

/** strconv.ParseInt(s, 0, 64) succeeds (underscores already removed). */
function isGoInt(s: string): boolean {
  const v = parseGoBase0(s, true)
  return v !== undefined && v >= INT64_MIN && v <= INT64_MAX
}

/** strconv.ParseUint(s, 0, 64) succeeds. */
function isGoUint(s: string): boolean {
  const v = parseGoBase0(s, false)
  return v !== undefined && v >= 0n && v <= UINT64_MAX
}

function parseGoBase0(s: string, signed: boolean): bigint | undefined {
  let body = s
  let negative = false
  if (signed && (body[0] === '+' || body[0] === '-')) {
    negative = body[0] === '-'
    body = body.slice(1)
  }
  let digits: RegExp
  let prefix = ''
  if (/^0[xX]/.test(body)) [digits, prefix, body] = [/^[0-9a-fA-F]+$/, '0x', body.slice(2)]
  else if (/^0[oO]/.test(body)) [digits, prefix, body] = [/^[0-7]+$/, '0o', body.slice(2)]
  else if (/^0[bB]/.test(body)) [digits, prefix, body] = [/^[01]+$/, '0b', body.slice(2)]
  else if (body.length > 1 && body[0] === '0') [digits, prefix, body] = [/^[0-7]+$/, '0o', body.slice(1)]
  else digits = /^[0-9]+$/
  if (!digits.test(body)) return undefined
  const value = BigInt(prefix + body)
  return negative ? -value : value
}

/** strconv.ParseInt(s, 2, 64) or strconv.ParseUint(s, 2, 64) succeeds. */
function isGoBinary(s: string): boolean {
  const m = /^([+-]?)([01]+)$/.exec(s)
  if (m === null) return false
  const magnitude = BigInt(`0b${m[2] ?? '0'}`)
  if (m[1] === '-') return -magnitude >= INT64_MIN
  return magnitude <= (m[1] === '+' ? INT64_MAX : UINT64_MAX)
}

/** strconv.ParseFloat(s, 64) succeeds for the decimal forms that reach it here. */
function isGoFloat(s: string): boolean {
  const decimal = /^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/
  const special = /^[-+]?(?:inf|infinity|nan)$/i
  if (special.test(s)) return true
  return decimal.test(s) && Number.isFinite(Number(s))
}

const TIMESTAMP_T = /^(\d{4})-(\d{1,2})-(\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/
const TIMESTAMP_SPACE = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?$/
const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/

/** resolve.go parseTimestamp: the four time.Parse layouts go-yaml v2 accepts. */
function isYamlTimestamp(s: string): boolean {
  const m = TIMESTAMP_T.exec(s) ?? TIMESTAMP_SPACE.exec(s) ?? DATE.exec(s)
  if (m === null) return false
  const [year, month, day, hour = 0, min = 0, sec = 0, tzh = 0, tzm = 0] = m
    .slice(1)
    .map((x) => (x === undefined ? undefined : Number(x))) as number[]
  if (year === undefined || month === undefined || day === undefined) return false
  if (month < 1 || month > 12 || hour > 23 || min > 59 || sec > 59 || tzh > 24 || tzm > 60) return false
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return day >= 1 && day <= daysInMonth
}

/** yaml_emitter_analyze_scalar over the UTF-8 bytes of a value (flow level 0, unicode on). */
export function analyzeScalar(value: Uint8Array): ScalarAnalysis {
  if (value.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false }
  }
  let blockIndicators = false
  let lineBreaks = false
  let special = false
  let leadingSpace = false
  let leadingBreak = false
  let trailingSpace = false
  let trailingBreak = false
  let breakSpace = false
  let spaceBreak = false
  let previousSpace = false
  let previousBreak = false
  let precededByWhitespace = true
  const three = String.fromCharCode(...value.subarray(0, 3))
  if (three === '---' || three === '...') blockIndicators = true
  for (let i = 0; i < value.length; i += utf8Width(value[i] ?? 0)) {
    const c = value[i] ?? 0
    const w = utf8Width(c)
    const followedByWhitespace = i + w >= value.length || isBlank(value, i + w)
    const ch = String.fromCharCode(c)
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true
      else if ((ch === '?' || ch === ':' || ch === '-') && followedByWhitespace) blockIndicators = true
    } else if ((ch === ':' && followedByWhitespace) || (ch === '#' && precededByWhitespace)) {
      blockIndicators = true
    }
    if (!isPrintable(value, i)) special = true
    if (c === 0x20) {
      if (i === 0) leadingSpace = true
      if (i + w === value.length) trailingSpace = true
      if (previousBreak) breakSpace = true
      previousSpace = true
      previousBreak = false
    } else if (isBreak(value, i)) {
      lineBreaks = true
      if (i === 0) leadingBreak = true
      if (i + w === value.length) trailingBreak = true
      if (previousSpace) spaceBreak = true
      previousSpace = false
      previousBreak = true
    } else {
      previousSpace = false
      previousBreak = false
    }
    precededByWhitespace = isBlankOrBreak(value, i)
  }
  const a: ScalarAnalysis = {
    multiline: lineBreaks,
    blockPlainAllowed: true,
    singleQuotedAllowed: true,
    blockAllowed: true
  }
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlainAllowed = false
  if (trailingSpace) a.blockAllowed = false
  if (breakSpace) a.blockPlainAllowed = a.singleQuotedAllowed = false
  if (spaceBreak || special) a.blockPlainAllowed = a.singleQuotedAllowed = a.blockAllowed = false
  if (lineBreaks || blockIndicators) a.blockPlainAllowed = false
  return a
}

/** The byte length of the UTF-8 sequence starting with `b`. */
export function utf8Width(b: number): number {
  if ((b & 0x80) === 0) return 1
  if ((b & 0xe0) === 0xc0) return 2
  if ((b & 0xf0) === 0xe0) return 3
  if ((b & 0xf8) === 0xf0) return 4
  return 0
}

const at = (b: Uint8Array, i: number): number => b[i] ?? 0

/** yamlprivateh.go is_printable. */
export function isPrintable(b: Uint8Array, i: number): boolean {
  const c = at(b, i)
  return (
    c === 0x0a ||
    (c >= 0x20 && c <= 0x7e) ||
    (c === 0xc2 && at(b, i + 1) >= 0xa0) ||
    (c > 0xc2 && c < 0xed) ||
    (c === 0xed && at(b, i + 1) < 0xa0) ||
    c === 0xee ||
    (c === 0xef &&
      !(at(b, i + 1) === 0xbb && at(b, i + 2) === 0xbf) &&
      !(at(b, i + 1) === 0xbf && (at(b, i + 2) === 0xbe || at(b, i + 2) === 0xbf)))
  )
}

/** yamlprivateh.go is_break: CR, LF, NEL, LS, PS. */
export function isBreak(b: Uint8Array, i: number): boolean {
  const c = at(b, i)
  return (
    c === 0x0d ||
    c === 0x0a ||
    (c === 0xc2 && at(b, i + 1) === 0x85) ||
    (c === 0xe2 && at(b, i + 1) === 0x80 && (at(b, i + 2) === 0xa8 || at(b, i + 2) === 0xa9))
  )
}

function isBlank(b: Uint8Array, i: number): boolean {
  return at(b, i) === 0x20 || at(b, i) === 0x09
}

function isBlankOrBreak(b: Uint8Array, i: number): boolean {
  return isBlank(b, i) || isBreak(b, i) || at(b, i) === 0
}

/**
 * A string as it comes back from sigs.k8s.io/yaml's JSON → go-yaml v2 read, before the write:
 * encoding/json leaves U+0085 (NEL) unescaped, and go-yaml folds it like a line break inside a
 * double-quoted scalar (one NEL and the spaces around it → one space; n NELs → n-1 newlines).
 * Characters go-yaml's reader refuses (DEL, C1 controls other than NEL, U+FFFE, U+FFFF) make
 * Marshal fail; this returns a message naming the code point instead of a value.
 */
export function jsonToYamlString(s: string): { value: string } | { error: string } {
  const bad = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/.exec(s)
  if (bad !== null) {
    const point = (bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')
    return { error: `contains U+${point}, a control character sigs.k8s.io/yaml cannot marshal` }
  }
  if (!s.includes('\u0085')) return { value: s }
  return {
    value: s.replace(/ *(?:\u0085 *)+/g, (run) => {
      const breaks = run.split('\u0085').length - 1
      return breaks === 1 ? ' ' : '\n'.repeat(breaks - 1)
    })
  }
}
