/**
 * Plain-scalar resolution of go-yaml v2 (the parser behind sigs.k8s.io/yaml), as tags for the
 * `yaml` package. The YAML 1.1 schema of `yaml` differs from go-yaml v2 in ways that change
 * ContentHash (spec §6 "YAML-parsing hazards"), all confirmed with the Go oracle
 * (__tests__/oracle/hash):
 * - go-yaml strips every `_` and parses with Go's base-0 rules: `0o17` and `0O17` are 15;
 * - integers that overflow uint64 and floats that overflow float64 stay strings (`1e400`);
 * - there are no sexagesimal numbers (`190:20:30` and `1:20` are strings);
 * - `-0` is the integer 0, while `-0.0` is the float -0;
 * - integers keep their exact value until JSON decoding (float64), and int keys print as
 *   integers while float keys print with strconv's `%g` at float32 precision (`1e+06`).
 * Integers therefore resolve to `bigint` and floats to `number`; the value walk converts them.
 */
import type { ScalarTag, Tags } from 'yaml'

const INT_TAG = 'tag:yaml.org,2002:int'
const FLOAT_TAG = 'tag:yaml.org,2002:float'
const KEPT_TAGS = new Set([
  'tag:yaml.org,2002:map',
  'tag:yaml.org,2002:seq',
  'tag:yaml.org,2002:str',
  'tag:yaml.org,2002:null',
  'tag:yaml.org,2002:bool',
  'tag:yaml.org,2002:binary'
])

// go-yaml's yamlStyleFloat, applied after removing underscores.
const GO_YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/
// strconv.ParseFloat on a scalar starting with '.'.
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/
// strconv.ParseInt/ParseUint with base 0 (underscores already removed).
const GO_INT = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

/**
 * Resolves an untagged plain scalar that starts like a number (`+`, `-`, `.`, a digit) the way
 * go-yaml v2's `resolve` does: an integer (`bigint`), a float (`number`) or the string itself.
 */
export function resolveGoNumber(source: string): bigint | number | string {
  if (source.startsWith('.')) return DOT_FLOAT.test(source) ? parseFloat64(source) : source
  const plain = source.replaceAll('_', '')
  const int = parseGoInt(plain)
  if (int !== undefined) return int
  if (GO_YAML_FLOAT.test(plain)) return parseFloat64(plain)
  return source
}

/** strconv.ParseInt(s, 0, 64), falling back to ParseUint(s, 0, 64) for unsigned values. */
function parseGoInt(s: string): bigint | undefined {
  const m = GO_INT.exec(s)
  if (m === null) return undefined
  const [, sign = '', digits = ''] = m
  const magnitude =
    digits.length > 1 && digits.startsWith('0') && /^0[0-7]+$/.test(digits)
      ? BigInt(`0o${digits.slice(1)}`)
      : BigInt(digits.toLowerCase())
  const value = sign === '-' ? -magnitude : magnitude
  if (value >= INT64_MIN && value <= INT64_MAX) return value
  return sign === '' && value <= UINT64_MAX ? value : undefined
}

/** strconv.ParseFloat(s, 64): out-of-range values are errors, so the scalar stays a string. */
function parseFloat64(s: string): number | string {
  const n = Number(s)
  return Number.isFinite(n) ? n : s
}

const goNumber: ScalarTag = {
  tag: INT_TAG,
  default: true,
  test: /^[-+.0-9]/,
  resolve: (source) => resolveGoNumber(source)
}

// Explicit `!!int` / `!!float` tags: go-yaml resolves the text, then accepts an int for !!float.
const explicitInt: ScalarTag = {
  tag: INT_TAG,
  resolve(source, onError) {
    const v = resolveGoNumber(source)
    if (typeof v !== 'bigint') onError(`cannot decode \`${source}\` as a !!int`)
    return v
  }
}
const explicitFloat: ScalarTag = {
  tag: FLOAT_TAG,
  resolve(source, onError) {
    const v = resolveGoNumber(source)
    if (typeof v === 'string') onError(`cannot decode \`${source}\` as a !!float`)
    return typeof v === 'bigint' ? Number(v) : v
  }
}

/**
 * The `customTags` for go-yaml v2 semantics: keeps the YAML 1.1 collection, string, null, bool,
 * binary and `.inf`/`.nan` tags; drops the number, sexagesimal, timestamp (go-yaml keeps
 * timestamps as strings), omap/pairs/set and merge tags (merges are applied by the value walk,
 * with go-yaml's ordering); adds go-yaml's number resolution.
 */
export function goYamlTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    if (typeof t !== 'object') return false
    if (KEPT_TAGS.has(t.tag)) return true
    return t.tag === FLOAT_TAG && t.test?.test('.inf') === true
  })
  return [explicitInt, explicitFloat, ...kept, goNumber]
}

/**
 * strconv.FormatFloat(f, 'g', -1, bitSize), also Go's `%v` of a float64: the shortest digits
 * that round-trip at that size, in exponent form (two exponent digits at least) when the
 * exponent is below -4 or at least 6: `1e+06`, `123456`, `1e-05`, `0.0001`.
 */
export function formatGoFloat(f: number, bitSize: 32 | 64): string {
  if (Number.isNaN(f)) return 'NaN'
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf'
  if (f === 0) return Object.is(f, -0) ? '-0' : '0'
  const [mantissa = '', exponent = '0'] = shortestExponential(f, bitSize).split('e')
  const exp = Number(exponent)
  const negative = mantissa.startsWith('-')
  const digits = mantissa.replace('-', '').replace('.', '')
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+'
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`
  }
  const fixed =
    exp >= 0
      ? withPoint(digits.padEnd(exp + 1, '0'), exp + 1)
      : `0.${'0'.repeat(-exp - 1)}${digits}`
  return negative ? `-${fixed}` : fixed
}

function withPoint(digits: string, intDigits: number): string {
  const frac = digits.slice(intDigits)
  return frac === '' ? digits.slice(0, intDigits) : `${digits.slice(0, intDigits)}.${frac}`
}

/** Shortest round-trip digits in exponential form (`d.ddde±x`) at float32 or float64 size. */
function shortestExponential(f: number, bitSize: 32 | 64): string {
  if (bitSize === 64) return f.toExponential()
  const single = Math.fround(f)
  for (let digits = 1; digits < 9; digits++) {
    const s = single.toExponential(digits - 1)
    if (Math.fround(Number(s)) === single) return s
  }
  return single.toExponential(8)
}
