/**
 * go-yaml v2's `resolve` (go.yaml.in/yaml/v2 v2.4.x resolve.go) for an untagged plain scalar:
 * the one answer, for reading and for writing, to what a plain scalar means. Parsing
 * (go-scalars.ts) keeps the value; sigs.k8s.io/yaml.Marshal writes a string plain only when
 * it resolves back to `str` (src/go/yaml-scalar.ts), as go-yaml's encoder asks the same
 * function. Where the `yaml` package's YAML 1.1 schema differs (all confirmed with Go: the hash
 * oracle's fixtures/yaml-semantics and the secret-yaml emitter cases):
 * - every `_` is stripped before the number rules, which are Go's base-0 strconv rules (`0o17`
 *   and `0O17` are 15); `0b-1` is -1 through resolve's own binary fallback;
 * - integers that overflow uint64 and floats that overflow float64 stay strings (`1e400`);
 * - there are no sexagesimal numbers (`190:20:30` is a string);
 * - `-0` is the integer 0, while `-0.0` is the float -0;
 * - timestamps resolve to the timestamp tag, but decode into `any` as the string itself.
 */

/** What `resolve("", s)` gives: the tag, and the value decoding into `any` yields. */
export type GoScalar =
  | { tag: 'null'; value: null }
  | { tag: 'bool'; value: boolean }
  | { tag: 'int'; value: bigint }
  | { tag: 'float'; value: number }
  | { tag: 'str' | 'timestamp'; value: string }

// resolveMap. Its `<<` entry is left out: `<` has no hint, so resolve never looks it up.
const RESOLVE_MAP = new Map<string, GoScalar>([
  ...words(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'], {
    tag: 'bool',
    value: true
  }),
  ...words(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'], {
    tag: 'bool',
    value: false
  }),
  ...words(['', '~', 'null', 'Null', 'NULL'], { tag: 'null', value: null }),
  ...words(['.nan', '.NaN', '.NAN'], { tag: 'float', value: NaN }),
  ...words(['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'], { tag: 'float', value: Infinity }),
  ...words(['-.inf', '-.Inf', '-.INF'], { tag: 'float', value: -Infinity })
])

function words(list: string[], scalar: GoScalar): [string, GoScalar][] {
  return list.map((w) => [w, scalar])
}

// resolveTable: S(ign), D(igit), M(ap), `.`; no hint means a string.
const HINTS: Readonly<Record<string, 'S' | 'D' | 'M' | '.'>> = {
  '+': 'S',
  '-': 'S',
  '.': '.',
  ...Object.fromEntries([...'0123456789'].map((d) => [d, 'D' as const])),
  ...Object.fromEntries([...'yYnNtTfFoO~'].map((c) => [c, 'M' as const]))
}

// go-yaml's yamlStyleFloat, applied after removing underscores.
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/
// strconv.ParseFloat on a scalar starting with '.'.
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/
// strconv.ParseInt/ParseUint with base 0 (underscores already removed).
const GO_INT = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

/** resolve("", s) for an untagged plain scalar `s`. */
export function resolveGoScalar(s: string): GoScalar {
  const str: GoScalar = { tag: 'str', value: s }
  const hint = s === '' ? 'M' : HINTS[s.charAt(0)]
  if (hint === undefined) return str
  const known = RESOLVE_MAP.get(s)
  if (known !== undefined) return known
  if (hint === 'M') return str
  if (hint === '.') return DOT_FLOAT.test(s) ? float(s, str) : str
  if (isGoTimestamp(s)) return { tag: 'timestamp', value: s }
  const plain = s.replaceAll('_', '')
  const int = parseGoInt(plain) ?? parseGoBinary(plain)
  if (int !== undefined) return { tag: 'int', value: int }
  return YAML_STYLE_FLOAT.test(plain) ? float(plain, str) : str
}

/** strconv.ParseFloat(s, 64): out-of-range values are errors, so the scalar stays a string. */
function float(s: string, otherwise: GoScalar): GoScalar {
  const n = Number(s)
  return Number.isFinite(n) ? { tag: 'float', value: n } : otherwise
}

/** strconv.ParseInt(s, 0, 64), falling back to ParseUint(s, 0, 64) for unsigned values. */
function parseGoInt(s: string): bigint | undefined {
  const m = GO_INT.exec(s)
  if (m === null) return undefined
  const [, sign = '', digits = ''] = m
  const magnitude = /^0[0-7]+$/.test(digits)
    ? BigInt(`0o${digits.slice(1)}`)
    : BigInt(digits.toLowerCase())
  const value = sign === '-' ? -magnitude : magnitude
  if (value >= INT64_MIN && value <= INT64_MAX) return value
  return sign === '' && value <= UINT64_MAX ? value : undefined
}

/**
 * resolve's fallback after the base-0 parse: `0b` + strconv.ParseInt(rest, 2, 64) (then
 * ParseUint, which takes no sign), or `-0b` + ParseInt("-" + rest, 2, 64). It is what makes
 * `0b-1` and `0b+1` integers.
 */
function parseGoBinary(s: string): bigint | undefined {
  const m = /^(-?)0b([+-]?)([01]+)$/.exec(s)
  if (m === null) return undefined
  const [, outer = '', inner = '', bits = '0'] = m
  if (outer === '-' && inner !== '') return undefined
  const magnitude = BigInt(`0b${bits}`)
  if (outer === '-' || inner === '-') return -magnitude >= INT64_MIN ? -magnitude : undefined
  return magnitude <= (inner === '+' ? INT64_MAX : UINT64_MAX) ? magnitude : undefined
}

const TIMESTAMP_T =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/
const TIMESTAMP_SPACE = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?$/
const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/

/** resolve.go parseTimestamp: the four time.Parse layouts go-yaml v2 accepts. */
function isGoTimestamp(s: string): boolean {
  const m = TIMESTAMP_T.exec(s) ?? TIMESTAMP_SPACE.exec(s) ?? DATE.exec(s)
  if (m === null) return false
  const [year, month, day, hour = 0, min = 0, sec = 0, tzh = 0, tzm = 0] = m
    .slice(1)
    .map((x) => (x === undefined ? undefined : Number(x))) as number[]
  if (year === undefined || month === undefined || day === undefined) return false
  if (month < 1 || month > 12 || hour > 23 || min > 59 || sec > 59 || tzh > 24 || tzm > 60) {
    return false
  }
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return day >= 1 && day <= daysInMonth
}
