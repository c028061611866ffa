/**
 * Size limits on what reaches the API server (docs/reliability.md#size-limits). Tazuna has no
 * such limits; the API server does (it refuses a request body over 3 MiB with 413), so an object
 * it would refuse is stopped before anything of its manifest is written, with a message naming
 * the manifest, the object and its size instead of an HTTP 413 halfway through a layer.
 */
import { LimitError } from '../errors.js'
import { isJsonObject, type JsonObject } from '../go/yaml.js'

/** The API server's request body limit (kube-apiserver MaxRequestBodyBytes, 3 MiB). */
export const MAX_OBJECT_BYTES = 3 * 1024 * 1024

/**
 * One YAML or JSON document of a rendered stream may be at most this large before it is parsed:
 * larger than one object may be (a `List` carries many), small enough that a runaway render is
 * refused before the parser holds it several times over.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024

/**
 * A file read as configuration (tazuna.yaml, includes, helmfile values and envfiles) may be at
 * most this large: checked before it is read, so a huge file costs nothing.
 */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024

/** The bytes an object takes as the JSON body of its request. */
export function objectBytes(object: JsonObject): number {
  return Buffer.byteLength(JSON.stringify(object), 'utf8')
}

/**
 * Throws a LimitError naming the object (`Kind namespace/name`) and its size when one of
 * `objects` is larger than `limit` bytes as JSON; the first one over the limit is named, with a
 * count of the others. Callers name the manifest (the apply and diff flows prefix it).
 */
export function assertObjectSizes(objects: readonly JsonObject[], limit = MAX_OBJECT_BYTES): void {
  const over = objects
    .map((object) => ({ object, bytes: objectBytes(object) }))
    .filter((o) => o.bytes > limit)
  const first = over[0]
  if (first === undefined) return
  const others = over.length > 1 ? ` (and ${over.length - 1} more objects over the limit)` : ''
  throw new LimitError(
    `object ${describeObject(first.object)} is ${formatBytes(first.bytes)}, over the ` +
      `${formatBytes(limit)} the API server accepts in one request${others}`
  )
}

/** `Kind namespace/name` (or `Kind name` for cluster-scoped objects) for messages. */
export function describeObject(object: JsonObject): string {
  const meta = isJsonObject(object.metadata) ? object.metadata : {}
  const text = (v: unknown): string => (typeof v === 'string' ? v : '')
  const name = text(meta.name) || text(meta.generateName) || '<no name>'
  const namespace = text(meta.namespace)
  return `${text(object.kind) || '<no kind>'} ${namespace === '' ? name : `${namespace}/${name}`}`
}

/** Bytes as `N bytes` below 1 KiB, else `X.Y KiB/MiB (N bytes)`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KiB'] : [bytes / 1024 / 1024, 'MiB']
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1)
  return Number.isInteger(value) ? `${shown} ${unit}` : `${shown} ${unit} (${bytes} bytes)`
}
