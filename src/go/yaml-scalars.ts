/**
 * go-yaml v2 (the parser behind sigs.k8s.io/yaml) scalar semantics for the `yaml` package:
 * plain scalars resolve through go-resolve.ts (go-yaml's own `resolve`), not through the YAML
 * 1.1 schema's tags, which differ in ways that change ContentHash
 * (docs/compatibility.md#contenthash "YAML-parsing hazards"; the differences are listed in
 * go-resolve.ts). Integers resolve to `bigint` and floats to `number`; the value walk converts them
 * (integers keep their exact value until JSON decoding into float64, and int keys print as integers
 * while float keys print with strconv's `%g` at float32 precision, `1e+06`).
 */
import type { ScalarTag, Tags } from 'yaml'
import { resolveGoScalar } from './yaml-resolve.js'

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

// Every untagged plain scalar. The tag name is private so that no explicit tag selects it.
const goPlain: ScalarTag = {
  tag: 'tag:tazuna-action,2026:go-yaml-plain',
  default: true,
  test: /(?:)/,
  resolve: (source) => resolveGoScalar(source).value
}

// Explicit `!!int` / `!!float` tags: go-yaml resolves the text, then accepts an int for !!float.
const explicitInt: ScalarTag = {
  tag: INT_TAG,
  resolve(source, onError) {
    const { tag, value } = resolveGoScalar(source)
    if (tag !== 'int') onError(`cannot decode \`${source}\` as a !!int`)
    return value
  }
}
const explicitFloat: ScalarTag = {
  tag: FLOAT_TAG,
  resolve(source, onError) {
    const { tag, value } = resolveGoScalar(source)
    if (tag !== 'int' && tag !== 'float') onError(`cannot decode \`${source}\` as a !!float`)
    return typeof value === 'bigint' ? Number(value) : value
  }
}

/**
 * The `customTags` for go-yaml v2 semantics: go-yaml's resolution for every plain scalar;
 * the YAML 1.1 collection, string, null, bool, binary and `.inf`/`.nan` tags for explicitly
 * tagged scalars; no number, sexagesimal, timestamp, omap/pairs/set or merge tags (merges are
 * applied by the value walk, with go-yaml's ordering).
 */
export function goYamlTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    if (typeof t !== 'object') return false
    if (KEPT_TAGS.has(t.tag)) return true
    return t.tag === FLOAT_TAG && t.test?.test('.inf') === true
  })
  return [goPlain, explicitInt, explicitFloat, ...kept]
}

/**
 * strconv.FormatFloat(value, 'g', -1, bitSize), also Go's `%v` of a float64: the shortest digits
 * that round-trip at that size, in exponent form (two exponent digits at least) when the
 * exponent is below -4 or at least 6: `1e+06`, `123456`, `1e-05`, `0.0001`.
 */
export function formatGoFloat(value: number, bitSize: 32 | 64): string {
  // Like Go, convert first: a float64 beyond float32's range prints as ±Inf at size 32.
  const f = bitSize === 32 ? Math.fround(value) : value
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
