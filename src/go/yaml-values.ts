/**
 * Turns a parsed YAML document into the value Go ends up with after go-yaml v2 →
 * sigs.k8s.io/yaml → encoding/json (docs/compatibility.md#yaml-to-objects step 1,
 * docs/compatibility.md#go-parsed-hash-input). Walking the syntax tree (rather than `toJS`) is what
 * makes these go-yaml details reproducible, each confirmed with the Go oracle
 * (__tests__/oracle/hash):
 * - merge keys are applied where `<<` appears: a merged value overrides keys written before
 *   the `<<` (go-yaml v2), keys after it override the merge; in a `<<: [a, b]` list earlier maps
 *   win; a quoted `"<<"` is an ordinary key;
 * - keys become strings like sigs.k8s.io/yaml: ints in decimal, floats with `%g` at float32
 *   precision, booleans as `true`/`false`; null, uint64 and collection keys are errors;
 * - integers become float64, `.inf`/`.nan` values are errors (json.Marshal rejects them);
 * - `!!binary` bytes become a string with each invalid UTF-8 byte replaced by U+FFFD;
 * - `\u` escapes of surrogates in double-quoted strings are errors.
 */
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Scalar,
  type Document,
  type LineCounter,
  type Node,
  type Pair
} from 'yaml'
import { ConfigError } from '../errors.js'
import { formatGoFloat } from './yaml-scalars.js'
import { validRuneLength } from './utf8.js'
import type { JsonObject, JsonValue } from './json-value.js'

/** Source of the document being walked, for error messages and escape checks. */
export interface WalkSource {
  doc: Document.Parsed
  text: string
  file: string
  lines: LineCounter
  /** Ranges of quoted scalars whose raw U+2028/U+2029 were read the go-yaml way (filled in). */
  readBreaks?: [number, number][]
}

// Alias bombs: go-yaml v2 (sigs.k8s.io/yaml's decoder) counts every decoded node and those
// decoded inside an alias, and refuses a document once more than 100 of 1,000+ decodes came
// from aliases at a ratio above allowedAliasRatio. The same rule here refuses a bomb after a
// few thousand nodes instead of walking millions (docs/reliability.md#hostile-input); the
// absolute cap stays as a backstop.
const MAX_VALUES = 10_000_000
const ALIAS_RATIO_RANGE_LOW = 400_000
const ALIAS_RATIO_RANGE_HIGH = 4_000_000
const INT64_MAX = 2n ** 63n - 1n

interface Walk extends WalkSource {
  /** Alias targets being expanded (non-empty: inside an alias). */
  active: Set<Node>
  count: number
  aliasCount: number
}

/** The Go value of a document's contents (`null` for an empty document). */
export function goValueOf(node: unknown, source: WalkSource): JsonValue {
  return valueOf(node, { ...source, active: new Set(), count: 0, aliasCount: 0 })
}

/** The JSON key sigs.k8s.io/yaml makes of a scalar key node. */
export function goKeyOf(node: unknown, source: WalkSource): string {
  return keyOf(node, { ...source, active: new Set(), count: 0, aliasCount: 0 })
}

/** go-yaml v2's allowed share of decodes inside aliases, falling from 0.99 to 0.10. */
function allowedAliasRatio(decodes: number): number {
  if (decodes <= ALIAS_RATIO_RANGE_LOW) return 0.99
  if (decodes >= ALIAS_RATIO_RANGE_HIGH) return 0.1
  const range = ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW
  return 0.99 - (0.89 * (decodes - ALIAS_RATIO_RANGE_LOW)) / range
}

function countDecode(node: unknown, w: Walk): void {
  w.count++
  if (w.active.size > 0) w.aliasCount++
  const excessive =
    w.aliasCount > 100 && w.count > 1000 && w.aliasCount / w.count > allowedAliasRatio(w.count)
  if (excessive || w.count > MAX_VALUES) fail(w, node, 'document contains excessive aliasing')
}

function valueOf(node: unknown, w: Walk): JsonValue {
  countDecode(node, w)
  if (node === null || node === undefined) return null
  if (isAlias(node)) return withTarget(node, w, (target) => valueOf(target, w))
  if (isScalar(node)) return scalarValue(node, w)
  if (isMap(node)) {
    const out: JsonObject = {}
    for (const pair of node.items) addPair(out, pair, w)
    return out
  }
  if (isSeq(node)) {
    return node.items.map((item) => {
      if (!isPair(item)) return valueOf(item, w)
      const single: JsonObject = {}
      addPair(single, item, w)
      return single
    })
  }
  return fail(w, node, 'unsupported YAML node')
}

function addPair(out: JsonObject, pair: Pair<unknown, unknown>, w: Walk): void {
  if (isMergeKey(pair.key)) {
    mergeInto(out, pair.value, w)
    return
  }
  setKey(out, keyOf(pair.key, w), valueOf(pair.value, w))
}

/** go-yaml v2 `merge`: a map (or alias of one), or a sequence of those applied last to first. */
function mergeInto(out: JsonObject, node: unknown, w: Walk): void {
  if (isSeq(node)) {
    for (const item of [...node.items].reverse()) mergeMap(out, item, w)
    return
  }
  mergeMap(out, node, w)
}

function mergeMap(out: JsonObject, node: unknown, w: Walk): void {
  const apply = (target: unknown): void => {
    if (!isMap(target)) fail(w, node, 'map merge requires map or sequence of maps as the value')
    for (const pair of target.items) addPair(out, pair, w)
  }
  if (isAlias(node)) withTarget(node, w, apply)
  else apply(node)
}

function isMergeKey(key: unknown): boolean {
  if (!isScalar(key) || key.value !== '<<') return false
  return (
    key.tag === 'tag:yaml.org,2002:merge' || (key.tag === undefined && key.type === Scalar.PLAIN)
  )
}

function keyOf(node: unknown, w: Walk): string {
  countDecode(node, w)
  if (isAlias(node)) return withTarget(node, w, (target) => keyOf(target, w))
  if (!isScalar(node)) {
    return fail(
      w,
      node,
      node === null || node === undefined
        ? unsupportedKey('<nil>')
        : 'invalid map key: a mapping or sequence cannot be a key'
    )
  }
  const v: unknown = node.value
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'bigint') {
    if (v > INT64_MAX) fail(w, node, unsupportedKey(`uint64 ${v}`))
    return String(v)
  }
  if (typeof v === 'number') return floatKey(v)
  if (v instanceof Uint8Array) return goUtf8(v)
  return fail(w, node, unsupportedKey(v === null ? '<nil>' : typeof v))
}

const YAML_FLOAT_SPELLING: Readonly<Record<string, string>> = {
  '+Inf': '.inf',
  '-Inf': '-.inf',
  NaN: '.nan'
}

/**
 * sigs.k8s.io/yaml: FormatFloat(f, 'g', -1, 32), then YAML's spellings of the specials, so a
 * float64 beyond float32's range (`1e300`) is the key `.inf` too.
 */
function floatKey(f: number): string {
  const s = formatGoFloat(f, 32)
  return YAML_FLOAT_SPELLING[s] ?? s
}

function scalarValue(node: Scalar, w: Walk): JsonValue {
  const v: unknown = node.value
  if (v === null || v === undefined) return null
  if (typeof v === 'string') {
    if (node.type === Scalar.QUOTE_DOUBLE) checkEscapes(node, w)
    return RAW_BREAK.test(v) ? quotedWithBreaks(node, v, w) : v
  }
  if (typeof v === 'boolean') return v
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) fail(w, node, `json: unsupported value: ${formatGoFloat(v, 64)}`)
    return v
  }
  if (v instanceof Uint8Array) return goUtf8(v)
  return fail(w, node, `unsupported YAML value of type ${typeof v}`)
}

const RAW_BREAK = /[\u2028\u2029]/
// Escapes that also yield U+2028/U+2029: their characters are not line breaks to fold.
const BREAK_ESCAPE = /\\(?:u202[89]|U0000202[89]|L|P)/
// A raw break next to a backslash or a real newline (spaces and tabs between) folds
// differently in go-yaml and in the `yaml` package.
const UNSAFE_BREAK = /\\[\u2028\u2029]|[\r\n][ \t]*[\u2028\u2029]|[\u2028\u2029][ \t]*[\r\n]/

/**
 * go-yaml v2 (YAML 1.1) reads raw U+2028/U+2029 as line breaks: inside a quoted scalar it keeps
 * the character, drops the blanks before it and skips the indentation after it (scanner.c
 * `yaml_parser_scan_flow_scalar`; kustomize prints such values raw in single quotes). The
 * `yaml` package keeps them as ordinary characters, so the blanks around them are removed here.
 * Combinations that fold otherwise (next to a newline or a backslash, or mixed with escapes of
 * the same characters) are refused; so is any raw break outside a quoted scalar (go-yaml.ts).
 */
function quotedWithBreaks(node: Scalar, v: string, w: Walk): string {
  const [start = 0, end = 0] = node.range ?? []
  const raw = w.text.slice(start, end)
  const quoted = node.type === Scalar.QUOTE_SINGLE || node.type === Scalar.QUOTE_DOUBLE
  if (!quoted || !RAW_BREAK.test(raw)) return v
  if (UNSAFE_BREAK.test(raw) || (node.type === Scalar.QUOTE_DOUBLE && BREAK_ESCAPE.test(raw))) {
    return fail(
      w,
      node,
      'raw U+2028/U+2029 next to a line break or an escape: write it as an escape in a double-quoted string'
    )
  }
  w.readBreaks?.push([start, end])
  return v.replace(/[ \t]*([\u2028\u2029])[ \t]*/g, '$1')
}

/** go-yaml rejects `\u`/`\U` escapes of surrogates and of code points above U+10FFFF. */
function checkEscapes(node: Scalar, w: Walk): void {
  const [start = 0, end = 0] = node.range ?? []
  const src = w.text.slice(start, end)
  for (let i = 0; i < src.length; i++) {
    if (src.charAt(i) !== '\\') continue
    const kind = src.charAt(i + 1)
    const width = kind === 'u' ? 4 : kind === 'U' ? 8 : 0
    if (width > 0) {
      const code = parseInt(src.slice(i + 2, i + 2 + width), 16)
      if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) {
        fail(w, node, 'found invalid Unicode character escape code')
      }
    }
    i += 1
  }
}

function withTarget<T>(alias: Node, w: Walk, use: (target: Node) => T): T {
  const target = isAlias(alias) ? alias.resolve(w.doc) : undefined
  if (target === undefined) return fail(w, alias, 'unknown anchor')
  if (w.active.has(target)) return fail(w, alias, 'anchor value contains itself')
  w.active.add(target)
  try {
    return use(target)
  } finally {
    w.active.delete(target)
  }
}

/** Sets a key as an own property, also `__proto__` (which plain assignment would swallow). */
function setKey(out: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  } else {
    out[key] = value
  }
}

/** Decodes bytes like Go's UTF-8 handling in encoding/json: each invalid byte → U+FFFD. */
function goUtf8(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  while (i < bytes.length) {
    const size = validRuneLength(bytes, i)
    out += size === 0 ? '\ufffd' : Buffer.from(bytes.subarray(i, i + size)).toString('utf8')
    i += size === 0 ? 1 : size
  }
  return out
}

function unsupportedKey(type: string): string {
  return `unsupported map key of type ${type}: JSON keys must be strings, numbers or booleans`
}

function fail(w: Walk, node: unknown, message: string): never {
  const range = (node as { range?: [number, number, number] } | null)?.range
  const line = range ? w.lines.linePos(range[0]).line : undefined
  throw new ConfigError([{ file: w.file, line, message: `invalid YAML: ${message}` }])
}
