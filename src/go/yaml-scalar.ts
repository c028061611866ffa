/**
 * How go-yaml v2 (go.yaml.in/yaml/v2 v2.4.x, used by sigs.k8s.io/yaml.Marshal) decides to write
 * a string: whether it may stay plain (encode.go `stringv` + resolve.go `resolve`) and which
 * styles the emitter allows for it (emitterc.go `yaml_emitter_analyze_scalar`). A line-by-line
 * port, so GenesisSecret Build text is byte-identical to Tazuna's
 * (docs/compatibility.md#genesissecret). The resolve step is the parser's own
 * (src/go/yaml-resolve.ts), as go-yaml's encoder calls its decoder's resolve.
 */
import { resolveGoScalar } from './yaml-resolve.js'

/** The styles go-yaml v2 writes strings in. */
export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal'

/** What yaml_emitter_analyze_scalar found out about a value. */
export interface ScalarAnalysis {
  multiline: boolean
  blockPlainAllowed: boolean
  singleQuotedAllowed: boolean
  blockAllowed: boolean
}

/**
 * encode.go stringv: literal for multi-line text, plain if it reads back as this string
 * (resolve("", s) == !!str) and is no base-60 float, else "…".
 */
export function requestedStyle(s: string): ScalarStyle {
  if (s.includes('\n')) return 'literal'
  return resolveGoScalar(s).tag === 'str' && !isBase60Float(s) ? 'plain' : 'double'
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/

/** encode.go isBase60Float: quoted on output for YAML 1.1 parsers. */
function isBase60Float(s: string): boolean {
  const c = s[0]
  if (c === undefined || !(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) {
    return false
  }
  return BASE60_FLOAT.test(s)
}

/** yaml_emitter_analyze_scalar over the UTF-8 bytes of a value (flow level 0, unicode on). */
export function analyzeScalar(value: Uint8Array): ScalarAnalysis {
  if (value.length === 0) {
    return {
      multiline: false,
      blockPlainAllowed: true,
      singleQuotedAllowed: true,
      blockAllowed: false
    }
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
      else if ((ch === '?' || ch === ':' || ch === '-') && followedByWhitespace)
        blockIndicators = true
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
