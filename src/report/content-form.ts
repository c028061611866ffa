/**
 * The reviewable form of an object: what ContentHash hashes (src/state/hash.ts strips the same
 * server-side fields), keys sorted in Go byte order, as YAML. Two renders that hash alike show
 * alike, so a content diff never shows a change the Diff does not count — and never a
 * Secret's value: each `data` / `stringData` value becomes a fingerprint under the run's key
 * (src/report/secret-fingerprint.ts) that still tells a reviewer which keys changed.
 */
import { stringify } from 'yaml'
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'
import { compareBytes } from '../state/byte-order.js'
import { hashInput } from '../state/hash.js'
import { secretFingerprint } from './secret-fingerprint.js'

/** The annotation `kubectl apply` stores the whole object in (a Secret's values included). */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration'

/** True for a core `v1` Secret (GenesisSecret outputs are such Secrets). */
export function isSecret(obj: JsonObject): boolean {
  return obj.kind === 'Secret' && obj.apiVersion === 'v1'
}

/**
 * The object as a reviewer sees it: the hash input (no status, no server metadata), the
 * last-applied-configuration annotation dropped, Secret values fingerprinted under
 * `fingerprintKey` (both sides of a diff take the same key, so an unchanged value shows alike),
 * every map's keys in Go byte order. Never mutates `obj`.
 */
export function contentObject(obj: JsonObject, fingerprintKey: Uint8Array): JsonObject {
  const trimmed = dropLastApplied(hashInput(obj))
  const masked = isSecret(trimmed) ? maskSecretValues(trimmed, fingerprintKey) : trimmed
  return sortKeys(masked) as JsonObject
}

/** {@link contentObject} as YAML text ending in a newline; `''` for no object. */
export function renderContentYaml(obj: JsonObject | undefined, fingerprintKey: Uint8Array): string {
  if (obj === undefined) return ''
  return stringify(contentObject(obj, fingerprintKey), {
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

function maskSecretValues(obj: JsonObject, key: Uint8Array): JsonObject {
  const masked: JsonObject = { ...obj }
  for (const field of ['data', 'stringData'] as const) {
    const values = obj[field]
    if (!isJsonObject(values)) continue
    masked[field] = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, secretFingerprint(fingerprintText(v), key)])
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
