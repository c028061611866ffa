/**
 * Decoding a parsed YAML value into typed config the way Tazuna's Go does it: sigs.k8s.io/yaml
 * (YAML → JSON, coercing numbers and booleans to strings where the Go field is a string) and
 * then encoding/json v1 (docs/compatibility.md#config-loading step 3):
 * - unknown fields are ignored; a key matches a field exactly or case-insensitively; when
 *   several keys match one field, the one that sorts last wins (JSON objects from
 *   sigs.k8s.io/yaml have sorted keys);
 * - `null` leaves the zero value;
 * - a type mismatch skips the value with Go's UnmarshalTypeError text. Go stops at the first
 *   such error; all of them are collected here, each with the line of the offending value.
 * Missing scalars get Go's zero value, missing slices `[]` and maps `{}`; missing (or null)
 * pointer structs stay undefined.
 */
import { ConfigError, type ConfigProblem } from '../errors.js'
import { formatGoFloat } from './yaml-scalars.js'
import { isJsonObject, parseYamlDocuments, type JsonObject, type JsonValue } from './yaml.js'

/** A Go type of the schema, enough to reproduce encoding/json's behaviour and messages. */
export type GoType =
  | { kind: 'string' | 'bool' | 'int' | 'any' }
  | { kind: 'slice' | 'map'; elem: GoType }
  | { kind: 'struct'; name: string; pointer: boolean; fields: Record<string, GoType> }

/** Go's `string`, `bool`, `int` and `interface{}`, for writing type descriptions. */
export const goString: GoType = { kind: 'string' }
export const goBool: GoType = { kind: 'bool' }
export const goInt: GoType = { kind: 'int' }
export const goAny: GoType = { kind: 'any' }

/** `[]elem`. */
export const goSlice = (elem: GoType): GoType => ({ kind: 'slice', elem })

/** `map[string]elem`. */
export const goMap = (elem: GoType): GoType => ({ kind: 'map', elem })

/** A struct field of struct type `name`; null or missing gives the zero struct. */
export const goStruct = (name: string, fields: Record<string, GoType>): GoType => ({
  kind: 'struct',
  name,
  pointer: false,
  fields
})

/** A struct field of type `*name`; null or missing stays undefined. */
export const goPointer = (name: string, fields: Record<string, GoType>): GoType => ({
  kind: 'struct',
  name,
  pointer: true,
  fields
})

/**
 * Told where each decoded object and array came from, so that checks made after decoding can
 * still point at the user's file and line (the config loader keeps them in its SourceIndex).
 */
export interface SourceRecorder {
  /** `value` was decoded from `file` at `line`; `childLine` finds one of its fields or items. */
  record(
    value: object,
    file: string,
    line: number | undefined,
    childLine: (key: string | number) => number | undefined
  ): void
}

/** Where a decoded value came from, for messages and line lookups. */
export interface DecodeContext {
  file: string
  lineOf(path: readonly (string | number)[]): number | undefined
  /** Told where each decoded object came from, when later checks need it. */
  sources?: SourceRecorder
}

/** Decodes `value` as Go would into `type`, returning the value and every type mismatch. */
export function decodeGo(
  value: JsonValue,
  type: GoType,
  ctx: DecodeContext,
  rawPath: readonly (string | number)[] = []
): { value: unknown; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = []
  const decoded = decode(value, type, { ctx, problems, struct: undefined, fields: [] }, rawPath)
  return { value: decoded ?? zero(type), problems }
}

/**
 * sigs.k8s.io/yaml.Unmarshal of a whole file (a GenesisSecret file, a rendered helmfile) into
 * `type`: only the first YAML document counts, null or empty gives the zero value, and every
 * type mismatch is thrown in one ConfigError naming `file` and the line, prefixed
 * `invalid <what>: `.
 */
export function unmarshalGoFile(text: string, file: string, type: GoType, what: string): unknown {
  const doc = parseYamlDocuments(text, file)[0]
  const { value, problems } = decodeGo(doc?.value ?? null, type, {
    file,
    lineOf: (path) => doc?.lineOf(path) ?? doc?.line
  })
  if (problems.length > 0) {
    throw new ConfigError(problems.map((p) => ({ ...p, message: `invalid ${what}: ${p.message}` })))
  }
  return value
}

interface State {
  ctx: DecodeContext
  problems: ConfigProblem[]
  /** encoding/json's errorContext: innermost struct type and the JSON field names to here */
  struct: string | undefined
  fields: readonly string[]
}

/** Go's `Type.String()` as printed in UnmarshalTypeError (api types live in package v1). */
export function goTypeName(type: GoType): string {
  switch (type.kind) {
    case 'any':
      return 'interface {}'
    case 'slice':
      return `[]${goTypeName(type.elem)}`
    case 'map':
      return `map[string]${goTypeName(type.elem)}`
    case 'struct':
      return `v1.${type.name}`
    default:
      return type.kind
  }
}

function zero(type: GoType): unknown {
  switch (type.kind) {
    case 'string':
      return ''
    case 'bool':
      return false
    case 'int':
      return 0
    case 'any':
      return null
    case 'slice':
      return []
    case 'map':
      return {}
    case 'struct':
      return type.pointer ? undefined : fillStruct({}, type)
  }
}

function fillStruct(out: Record<string, unknown>, type: GoType & { kind: 'struct' }) {
  for (const [name, fieldType] of Object.entries(type.fields)) {
    if (!(name in out)) out[name] = zero(fieldType)
  }
  return out
}

function decode(
  value: JsonValue,
  type: GoType,
  st: State,
  path: readonly (string | number)[]
): unknown {
  if (value === null) return undefined
  if (type.kind === 'any') return value
  if (type.kind === 'string') {
    if (typeof value === 'string') return value
    // sigs.k8s.io/yaml turns YAML numbers and booleans into strings for string fields.
    if (typeof value === 'number') return goYamlNumberString(value)
    if (typeof value === 'boolean') return String(value)
  }
  if (type.kind === 'bool' && typeof value === 'boolean') return value
  if (type.kind === 'int' && typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value
    return mismatch(`number ${String(value)}`, type, st, path)
  }
  if (type.kind === 'slice' && Array.isArray(value)) return decodeSlice(value, type.elem, st, path)
  if (type.kind === 'map' && isJsonObject(value)) return decodeMap(value, type.elem, st, path)
  if (type.kind === 'struct' && isJsonObject(value)) return decodeStruct(value, type, st, path)
  return mismatch(jsonKind(value), type, st, path)
}

function decodeSlice(
  value: JsonValue[],
  elem: GoType,
  st: State,
  path: readonly (string | number)[]
): unknown[] {
  const out = value.map((item, i) => decode(item, elem, st, [...path, i]) ?? zero(elem))
  st.ctx.sources?.record(out, st.ctx.file, st.ctx.lineOf(path), (i) => st.ctx.lineOf([...path, i]))
  return out
}

function decodeMap(
  value: JsonObject,
  elem: GoType,
  st: State,
  path: readonly (string | number)[]
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    out[key] = decode(value[key]!, elem, st, [...path, key]) ?? zero(elem)
  }
  st.ctx.sources?.record(out, st.ctx.file, st.ctx.lineOf(path), (k) => st.ctx.lineOf([...path, k]))
  return out
}

function decodeStruct(
  value: JsonObject,
  type: GoType & { kind: 'struct' },
  st: State,
  path: readonly (string | number)[]
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const rawKeyOf = new Map<string, string>()
  for (const key of Object.keys(value).sort()) {
    const field = fieldFor(type, key)
    if (field === undefined) continue
    const inner: State = { ...st, struct: type.name, fields: [...st.fields, field] }
    const decoded = decode(value[key]!, type.fields[field]!, inner, [...path, key])
    out[field] = decoded ?? zero(type.fields[field]!)
    rawKeyOf.set(field, key)
  }
  fillStruct(out, type)
  st.ctx.sources?.record(out, st.ctx.file, st.ctx.lineOf(path), (field) => {
    const key = rawKeyOf.get(String(field))
    return key === undefined ? undefined : st.ctx.lineOf([...path, key])
  })
  return out
}

/** encoding/json's field lookup: the exact name, else a case-insensitive match. */
function fieldFor(type: GoType & { kind: 'struct' }, key: string): string | undefined {
  if (Object.hasOwn(type.fields, key)) return key
  const folded = foldName(key)
  return Object.keys(type.fields).find((name) => foldName(name) === folded)
}

function foldName(name: string): string {
  return name
    .replace(/\u212a/g, 'k')
    .replace(/\u017f/g, 's')
    .toLowerCase()
}

function mismatch(
  jsonValue: string,
  type: GoType,
  st: State,
  path: readonly (string | number)[]
): undefined {
  const target =
    st.struct === undefined
      ? `Go value of type ${goTypeName(type)}`
      : `Go struct field ${st.struct}.${st.fields.join('.')} of type ${goTypeName(type)}`
  st.problems.push({
    file: st.ctx.file,
    line: st.ctx.lineOf(path),
    message: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonValue} into ${target}`
  })
  return undefined
}

function jsonKind(value: JsonValue): string {
  if (Array.isArray(value)) return 'array'
  if (value === null) return 'null'
  return typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value
}

/**
 * How sigs.k8s.io/yaml prints a YAML number for a string field: integers in decimal, floats
 * with strconv.FormatFloat(f, 'g', -1, 32). The parsed value does not say whether YAML wrote
 * an integer or a float, so integral values print as integers: `1000000.0` (Go: "1e+06")
 * and `1e6` are the known divergences.
 */
export function goYamlNumberString(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value).toString()
  return formatGoFloat(value, 32)
}
