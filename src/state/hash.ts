/**
 * ContentHash (docs/compatibility.md#contenthash): sha256 over Go's `json.Marshal` of the object
 * without server-side fields. The bytes must equal Go's exactly, or every key reads as `modified`
 * against state written by the Go CLI.
 */
import { createHash } from 'node:crypto'
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'
import { goString } from '../go/json-string.js'
import { compareBytes } from './byte-order.js'

/**
 * metadata fields the API server sets; dropped before hashing (docs/compatibility.md#contenthash
 * step 2).
 */
const SERVER_METADATA_FIELDS = [
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink'
] as const

/**
 * Serializes a value exactly like Go's `json.Marshal` of a `map[string]any` decoded from JSON:
 * object keys in byte-wise UTF-8 order, no whitespace, `<` `>` `&` U+2028 U+2029 as `\u` escapes,
 * `\b` `\f` `\n` `\r` `\t` short escapes, other control characters as `\u00xx`, a lone surrogate
 * as a raw U+FFFD (what Go's decoder makes of it), numbers as float64 (`-0` stays `-0`).
 * Throws on non-finite numbers, as Go does.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      return goNumber(value)
    case 'string':
      return goString(value)
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const keys = Object.keys(value).sort(compareBytes)
  return `{${keys.map((k) => `${goString(k)}:${canonicalJson(value[k] ?? null)}`).join(',')}}`
}

/**
 * Computes the ContentHash of an object (lowercase sha256 hex): drops `metadata.resourceVersion`,
 * `uid`, `creationTimestamp`, `generation`, `managedFields`, `selfLink` and top-level `status`,
 * keeps everything else (labels, annotations, nulls). Never mutates `obj`.
 */
export function computeContentHash(obj: JsonObject): string {
  return createHash('sha256')
    .update(canonicalJson(hashInput(obj)), 'utf8')
    .digest('hex')
}

/** The object that gets hashed: a shallow copy without status and server-side metadata. */
export function hashInput(obj: JsonObject): JsonObject {
  const copy: JsonObject = { ...obj }
  delete copy.status
  const metadata = obj.metadata
  if (isJsonObject(metadata)) {
    const trimmed: JsonObject = { ...metadata }
    for (const field of SERVER_METADATA_FIELDS) delete trimmed[field]
    copy.metadata = trimmed
  }
  return copy
}

/**
 * Go formats float64 with the shortest round-trip digits, exponent form outside
 * [1e-6, 1e21) — the same as JavaScript except that Go keeps the sign of negative zero.
 */
function goNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`json: unsupported value: ${n}`)
  return Object.is(n, -0) ? '-0' : String(n)
}
