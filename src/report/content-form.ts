/**
 * The reviewable form of an object: what ContentHash hashes (src/state/hash.ts strips the same
 * server-side fields), keys sorted in Go byte order, as YAML. Two renders that hash alike show
 * alike, so a content diff never shows a change the Diff does not count — and never a
 * Secret's value: each `data` / `stringData` value becomes a fingerprint that still tells a
 * reviewer which keys changed.
 */
import { createHash } from 'node:crypto'
import { stringify } from 'yaml'
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'
import { compareBytes } from '../state/byte-order.js'
import { hashInput } from '../state/hash.js'

/** The annotation `kubectl apply` stores the whole object in (a Secret's values included). */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration'

/** `(sensitive value, sha256:<first 12 hex>)`: equal values fingerprint alike on both sides. */
export function sensitiveValue(value: string): string {
  const digest = createHash('sha256').update(value, 'utf8').digest('hex')
  return `(sensitive value, sha256:${digest.slice(0, 12)})`
}

/** True for a core `v1` Secret (GenesisSecret outputs are such Secrets). */
export function isSecret(obj: JsonObject): boolean {
  return obj.kind === 'Secret' && obj.apiVersion === 'v1'
}

/**
 * The object as a reviewer sees it: the hash input (no status, no server metadata), the
 * last-applied-configuration annotation dropped, Secret values fingerprinted, every map's keys
 * in Go byte order. Never mutates `obj`.
 */
export function contentObject(obj: JsonObject): JsonObject {
  const trimmed = dropLastApplied(hashInput(obj))
  const masked = isSecret(trimmed) ? maskSecretValues(trimmed) : trimmed
  return sortKeys(masked) as JsonObject
}

/** {@link contentObject} as YAML text ending in a newline; `''` for no object. */
export function renderContentYaml(obj: JsonObject | undefined): string {
  if (obj === undefined) return ''
  return stringify(contentObject(obj), {
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false
  })
}

function dropLastApplied(obj: JsonObject): JsonObject {
  const metadata = obj.metadata
  if (!isJsonObject(metadata) || !isJsonObject(metadata.annotations)) return obj
  if (!(LAST_APPLIED_ANNOTATION in metadata.annotations)) return obj
  const annotations: JsonObject = { ...metadata.annotations }
  delete annotations[LAST_APPLIED_ANNOTATION]
  const trimmed: JsonObject = { ...metadata }
  if (Object.keys(annotations).length === 0) delete trimmed.annotations
  else trimmed.annotations = annotations
  return { ...obj, metadata: trimmed }
}

function maskSecretValues(obj: JsonObject): JsonObject {
  const masked: JsonObject = { ...obj }
  for (const field of ['data', 'stringData'] as const) {
    const values = obj[field]
    if (!isJsonObject(values)) continue
    masked[field] = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, sensitiveValue(fingerprintText(v))])
    )
  }
  return masked
}

// A non-string value (malformed, but possible in a rendered file) is fingerprinted as JSON.
const fingerprintText = (v: JsonValue): string => (typeof v === 'string' ? v : JSON.stringify(v))

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (!isJsonObject(value)) return value
  // fromEntries defines own properties, so a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.keys(value)
      .sort(compareBytes)
      .map((key) => [key, sortKeys(value[key]!)])
  )
}
