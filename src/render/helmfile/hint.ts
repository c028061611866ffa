/**
 * tazuna.hint.yaml (docs/compatibility.md#hint-files): a helmfile's declaration of the vars it
 * expects. It is checked against its own schema, then the resolved vars are validated against it
 * (type, required, required_with/required_without on user-provided vars only, format,
 * oneof_required rules) and every var the user did not provide gets its `default` or a typed zero
 * value.
 *
 * The spec gives the rules but not upstream's message texts; messages here name the hint file,
 * the line and the var.
 */
import { ConfigError, type ConfigProblem } from '../../errors.js'
import { isJsonObject, type JsonObject, type JsonValue, type YamlDocument } from '../../go/yaml.js'
import { isHintFormat, matchesHintFormat, type HintFormat } from './hint-format.js'
import { goQuote } from '../../go/quote.js'

/**
 * The file name, looked up in dir(manifest path) — see docs/compatibility.md#hint-file-lookup and
 * hintFilePath.
 */
export const HINT_FILE = 'tazuna.hint.yaml'

/** A var's declared type and the JSON shape its value has. */
export type HintVarType = 'string' | 'slice' | 'map'

/** One declared var. */
export interface HintVar {
  type: HintVarType
  required: boolean
  default?: JsonValue
  format?: HintFormat
  requiredWith: string[]
  requiredWithout: string[]
  line?: number
}

/** A `oneof_required` rule: at least one of `vars` must be provided. */
export interface HintRule {
  vars: string[]
  message: string
  line?: number
}

/** A parsed, schema-checked hint file. */
export interface Hint {
  file: string
  vars: Map<string, HintVar>
  rules: HintRule[]
}

const TYPES: readonly HintVarType[] = ['string', 'slice', 'map']
const ZERO: Record<HintVarType, () => JsonValue> = {
  string: () => '',
  slice: () => [],
  map: () => ({})
}

/** Checks a parsed hint document against the hint schema; throws every problem at once. */
export function parseHint(doc: YamlDocument, file: string): Hint {
  const problems: ConfigProblem[] = []
  const at = (path: (string | number)[], message: string): void => {
    problems.push({ file, line: nearestLine(doc, path), message })
  }
  const root = isJsonObject(doc.value) ? doc.value : {}
  if (doc.value !== null && !isJsonObject(doc.value)) at([], 'a hint file must be a mapping')
  const vars = new Map<string, HintVar>()
  const declared = isJsonObject(root.vars) ? root.vars : {}
  if (root.vars !== undefined && root.vars !== null && !isJsonObject(root.vars)) {
    at(['vars'], 'vars must be a mapping of var names')
  }
  for (const [name, raw] of Object.entries(declared)) {
    const parsed = parseHintVar(name, raw, (path, msg) => at(['vars', name, ...path], msg))
    if (parsed) vars.set(name, { ...parsed, line: nearestLine(doc, ['vars', name]) })
  }
  const rules = parseRules(root.rules, (path, msg) => at(['rules', ...path], msg))
  rules.forEach((rule, i) => (rule.line = nearestLine(doc, ['rules', i])))
  checkReferences(vars, rules, (path, msg) => at(path, msg))
  if (problems.length > 0) throw new ConfigError(problems, `invalid hint file ${file}`)
  return { file, vars, rules }
}

type Report = (path: (string | number)[], message: string) => void

/** The line of `path`, or of its nearest ancestor that exists. */
function nearestLine(doc: YamlDocument, path: (string | number)[]): number {
  for (let n = path.length; n > 0; n--) {
    const line = doc.lineOf(path.slice(0, n))
    if (line !== undefined) return line
  }
  return doc.line
}

function parseHintVar(name: string, raw: JsonValue, report: Report): HintVar | undefined {
  if (!isJsonObject(raw)) {
    report([], `var ${name}: must be a mapping`)
    return undefined
  }
  const type = raw.type
  if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) {
    report(
      ['type'],
      `var ${name}: type must be one of string, slice, map (got ${JSON.stringify(type ?? null)})`
    )
    return undefined
  }
  const v: HintVar = {
    type: type as HintVarType,
    required: raw.required === true,
    requiredWith: nameList(raw.required_with, `var ${name}: required_with`, (m) =>
      report(['required_with'], m)
    ),
    requiredWithout: nameList(raw.required_without, `var ${name}: required_without`, (m) =>
      report(['required_without'], m)
    )
  }
  if (raw.required !== undefined && raw.required !== null && typeof raw.required !== 'boolean') {
    report(['required'], `var ${name}: required must be true or false`)
  }
  if (raw.default !== undefined && raw.default !== null) {
    if (!hasType(raw.default, v.type)) {
      report(
        ['default'],
        `var ${name}: default must be a ${v.type}, got ${jsonTypeName(raw.default)}`
      )
    } else v.default = raw.default
  }
  if (raw.format !== undefined && raw.format !== null) {
    if (typeof raw.format !== 'string' || !isHintFormat(raw.format)) {
      report(['format'], `var ${name}: unknown format ${JSON.stringify(raw.format)}`)
    } else if (v.type !== 'string') {
      report(['format'], `var ${name}: format applies only to string vars`)
    } else v.format = raw.format
  }
  return v
}

function parseRules(raw: JsonValue | undefined, report: Report): HintRule[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) {
    report([], 'rules must be a list')
    return []
  }
  const rules: HintRule[] = []
  raw.forEach((item, i) => {
    if (!isJsonObject(item) || item.type !== 'oneof_required') {
      report([i], `rules[${i}]: type must be oneof_required`)
      return
    }
    const vars = nameList(item.vars, `rules[${i}].vars`, (m) => report([i, 'vars'], m))
    if (vars.length === 0) report([i, 'vars'], `rules[${i}].vars must name at least one var`)
    const message = typeof item.message === 'string' && item.message !== '' ? item.message : ''
    rules.push({ vars, message })
  })
  return rules
}

function nameList(raw: JsonValue | undefined, what: string, report: (m: string) => void): string[] {
  if (raw === undefined || raw === null) return []
  if (typeof raw === 'string') return [raw]
  if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) return raw
  report(`${what} must be a var name or a list of var names`)
  return []
}

function checkReferences(vars: Map<string, HintVar>, rules: HintRule[], report: Report): void {
  for (const [name, v] of vars) {
    for (const ref of [...v.requiredWith, ...v.requiredWithout]) {
      if (!vars.has(ref)) report(['vars', name], `var ${name}: refers to undeclared var ${ref}`)
    }
  }
  rules.forEach((rule, i) => {
    for (const ref of rule.vars)
      if (!vars.has(ref)) report(['rules', i], `rules[${i}]: refers to undeclared var ${ref}`)
  })
}

/**
 * Tazuna's words for a value of the wrong type (pkg/hint ValidateVarsAgainstHint, which looks
 * only at `staticSlice` and `staticMap`; we check the resolved value, whatever its source).
 */
const TYPE_MISMATCH: Record<HintVar['type'], string> = {
  string: 'slice or map value',
  slice: 'non-slice static value',
  map: 'non-map static value'
}

/** Tazuna's reason per format (pkg/hint validateFormat). */
const FORMAT_ERRORS: Record<HintFormat, string> = {
  hostname: 'invalid hostname',
  url: 'invalid URL',
  email: 'invalid email',
  ip: 'invalid IP address',
  cidr: 'invalid CIDR',
  uuid: 'invalid UUID',
  semver: 'invalid semver',
  datetime: 'invalid datetime (expected RFC3339)'
}

/** Go's url.ParseRequestURI accepts an absolute path without a scheme, which then fails apart. */
function formatError(format: HintFormat, value: string): string {
  if (format === 'url' && value.startsWith('/')) return 'invalid URL: missing scheme'
  return FORMAT_ERRORS[format]
}

/**
 * Validates the user's vars against the hint and returns them completed with defaults (or typed
 * zero values) for every declared var not provided. Throws one ConfigError listing every
 * violation. Vars the hint does not declare pass through unchecked.
 */
export function applyHint(hint: Hint, provided: JsonObject): JsonObject {
  const problems: ConfigProblem[] = []
  const fail = (line: number | undefined, message: string): void => {
    problems.push({ file: hint.file, line, message })
  }
  const has = (name: string): boolean => Object.hasOwn(provided, name)
  for (const [name, v] of hint.vars) {
    const value = provided[name]
    if (value !== undefined && !hasType(value, v.type)) {
      fail(
        v.line,
        `hint var ${goQuote(name)} expects type ${v.type}, but got ${TYPE_MISMATCH[v.type]}`
      )
      continue
    }
    if (!has(name)) {
      if (v.required) fail(v.line, `hint var ${goQuote(name)} is required but not provided`)
      const withProvided = v.requiredWith.filter(has)[0]
      if (withProvided !== undefined) {
        fail(
          v.line,
          `hint var ${goQuote(name)} is required because ${goQuote(withProvided)} is provided (required_with)`
        )
      }
      if (v.requiredWithout.length > 0 && !v.requiredWithout.some(has)) {
        fail(
          v.line,
          `hint var ${goQuote(name)} is required because none of [${v.requiredWithout.join(' ')}] ` +
            'are provided (required_without)'
        )
      }
    } else if (v.format !== undefined && typeof value === 'string' && value !== '') {
      if (!matchesHintFormat(v.format, value)) {
        fail(
          v.line,
          `hint var ${goQuote(name)} value ${goQuote(value)} does not match format ` +
            `${goQuote(v.format)}: ${formatError(v.format, value)}`
        )
      }
    }
  }
  hint.rules.forEach((rule, i) => {
    if (!rule.vars.some(has)) {
      const message = rule.message || `at least one of [${rule.vars.join(' ')}] must be provided`
      fail(rule.line, `rule[${i}] (oneof_required): ${message}`)
    }
  })
  if (problems.length > 0)
    throw new ConfigError(problems, `helmfile vars do not match ${hint.file}`)
  const out: JsonObject = { ...provided }
  for (const [name, v] of hint.vars) {
    if (!has(name)) out[name] = v.default !== undefined ? v.default : ZERO[v.type]()
  }
  return out
}

function hasType(value: JsonValue, type: HintVarType): boolean {
  if (type === 'string') return typeof value === 'string'
  if (type === 'slice') return Array.isArray(value)
  return isJsonObject(value)
}

/** The JSON type of a value, as these messages name it. */
function jsonTypeName(value: JsonValue): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value === 'object' ? 'object' : typeof value
}
