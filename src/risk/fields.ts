/**
 * Reading the fields the risk rules compare: a value at a path, deep equality of JSON values,
 * and Kubernetes resource quantities (to tell a storage increase from a decrease).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'

/** The value at `path` (object keys only), or undefined when any step is missing. */
export function fieldAt(
  obj: JsonValue | undefined,
  path: readonly string[]
): JsonValue | undefined {
  let value: JsonValue | undefined = obj
  for (const step of path) {
    if (!isJsonObject(value)) return undefined
    value = value[step]
  }
  return value
}

/** The object at `path`, or `{}`. */
export function objectAt(obj: JsonValue | undefined, path: readonly string[]): JsonObject {
  const value = fieldAt(obj, path)
  return isJsonObject(value) ? value : {}
}

/** The array at `path`, or `[]`. */
export function arrayAt(obj: JsonValue | undefined, path: readonly string[]): JsonValue[] {
  const value = fieldAt(obj, path)
  return Array.isArray(value) ? value : []
}

/** The string at `path`, or `''`. */
export function stringAt(obj: JsonValue | undefined, path: readonly string[]): string {
  const value = fieldAt(obj, path)
  return typeof value === 'string' ? value : ''
}

/**
 * Deep equality of JSON values; a missing value equals null (an absent field and `null` are
 * both "unset" to the API server). Key order does not matter.
 */
export function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || a === null) return b === undefined || b === null
  if (b === undefined || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((v, i) => sameValue(v, b[i]))
  }
  if (isJsonObject(a) || isJsonObject(b)) {
    if (!isJsonObject(a) || !isJsonObject(b)) return false
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].every((k) => sameValue(a[k], b[k]))
  }
  return a === b
}

/** Top-level keys of two objects whose values differ, in sorted order, minus `ignored`. */
export function changedKeys(
  before: JsonObject,
  head: JsonObject,
  ignored: ReadonlySet<string> = new Set()
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(head)])
  return [...keys].filter((k) => !ignored.has(k) && !sameValue(before[k], head[k])).sort()
}

const SUFFIXES: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60
}

/**
 * A resource quantity (`10Gi`, `500M`, `1e9`, `1.5Ti`) as a number of base units; undefined
 * when it does not parse. Precise enough to order sizes, which is all the rules need.
 */
export function quantityValue(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number') return value
  if (typeof value !== 'string') return undefined
  const m =
    /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?)$/.exec(
      value.trim()
    )
  if (m === null) return undefined
  const base = Number(m[1])
  if (m[2] !== undefined) return base * 10 ** Number(m[2].slice(1))
  return base * (SUFFIXES[m[3] ?? ''] ?? 1)
}

/**
 * `head` laid over `base`: objects merge key by key, anything else (arrays too) is replaced.
 * Approximates what a server-side apply of `head` makes of the live `base` where the server's
 * own answer is missing (a refused dry run): fields the render leaves out keep their live
 * values (server defaults), so only what the render sets is compared.
 */
export function overlay(base: JsonObject, head: JsonObject): JsonObject {
  const merged: JsonObject = { ...base }
  for (const [k, v] of Object.entries(head)) {
    const b = base[k]
    merged[k] = isJsonObject(b) && isJsonObject(v) ? overlay(b, v) : v
  }
  return merged
}
