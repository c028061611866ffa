/**
 * From rendered YAML text to the objects Tazuna applies and hashes
 * (docs/compatibility.md#yaml-to-objects, `ConvertManifestsToObjects`). Every detail feeds the
 * state key or the ContentHash, so it follows the Go code, quirks included
 * (docs/compatibility.md#go-parsed-hash-input, #cluster-scoped-namespace).
 */
import { ConfigError } from '../errors.js'
import { computeContentHash } from '../state/hash.js'
import { formatStateKey, groupVersionKindOf, stateKeyOf } from '../state/key.js'
import { formatGoFloat } from '../go/yaml-scalars.js'
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'
import { decodeDocumentStream, goTypeName, type StreamDocument } from './document-stream.js'
import { MAX_DOCUMENT_BYTES } from './size-limits.js'

/** Where the text came from (for errors) and the manifest type's default namespace. */
export interface ObjectsOptions {
  file: string
  /** kustomize/helmfile `defaultNamespace`; empty or absent means none. */
  defaultNamespace?: string
}

/**
 * Converts a rendered stream into objects: null and kind-less documents are skipped; a `List`
 * with an array `items` yields its mapping items; `metadata` missing/null becomes `{}` and a
 * non-mapping `metadata` is an error; a missing/null namespace gets the default namespace (also
 * on cluster-scoped kinds; an explicit `""` is kept); CustomResourceDefinitions move to the
 * front, order otherwise kept. `decoded`: the text's documents as Go decoded them (the native
 * render program's, docs/renderers.md#objects-from-the-native-program) — the same values this
 * function's own decoding gives, without parsing the text again; an error is still reported
 * from the text, with its line.
 */
export function objectsFromYaml(
  text: string,
  opts: ObjectsOptions,
  decoded?: readonly (JsonObject | null)[]
): JsonObject[] {
  // A text within the document size limit has no document over it (document-stream.ts).
  if (decoded !== undefined && Buffer.byteLength(text, 'utf8') <= MAX_DOCUMENT_BYTES) {
    try {
      return objectsFrom(
        decoded.map((value) => ({ value, line: 0, lineOf: () => undefined })),
        opts
      )
    } catch {
      // Lines for the error message: decode the text itself.
    }
  }
  return objectsFrom(decodeDocumentStream(text, opts.file), opts)
}

function objectsFrom(documents: readonly StreamDocument[], opts: ObjectsOptions): JsonObject[] {
  const namespace = opts.defaultNamespace ?? ''
  const objects: JsonObject[] = []
  for (const doc of documents) {
    const data = doc.value
    if (data === null || !Object.hasOwn(data, 'kind')) continue
    const items = data.kind === 'List' ? data.items : undefined
    if (Array.isArray(items)) {
      items.forEach((item, i) => {
        if (!isJsonObject(item)) return
        const line = doc.lineOf(['items', i, 'metadata']) ?? doc.lineOf(['items', i])
        objects.push(withDefaultNamespace(item, namespace, opts.file, line))
      })
      continue
    }
    objects.push(
      withDefaultNamespace(data, namespace, opts.file, doc.lineOf(['metadata']) ?? doc.line)
    )
  }
  return [...objects.filter(isCrd), ...objects.filter((o) => !isCrd(o))]
}

/**
 * State entries of one manifest's objects: state key → ContentHash. Objects with the same key
 * collapse, the last one wins (as in Go's map).
 */
export function desiredEntries(
  manifest: string,
  objects: readonly JsonObject[]
): Map<string, string> {
  const entries = new Map<string, string>()
  for (const obj of objects)
    entries.set(formatStateKey(stateKeyOf(manifest, obj)), computeContentHash(obj))
  return entries
}

function withDefaultNamespace(
  data: JsonObject,
  namespace: string,
  file: string,
  line: number | undefined
): JsonObject {
  const metadata = data.metadata ?? null
  if (metadata !== null && !isJsonObject(metadata)) {
    throw new ConfigError([
      {
        file,
        line,
        message: `metadata must be a mapping, got ${goTypeName(metadata)} (kind: ${goFormatValue(data.kind)})`
      }
    ])
  }
  const meta: JsonObject = { ...(metadata ?? {}) }
  if ((meta.namespace ?? null) === null && namespace !== '') meta.namespace = namespace
  return { ...data, metadata: meta }
}

function isCrd(obj: JsonObject): boolean {
  const gvk = groupVersionKindOf(obj)
  return gvk.group === 'apiextensions.k8s.io' && gvk.kind === 'CustomResourceDefinition'
}

/** Go's %v of a decoded JSON value (for the kind in error messages). */
function goFormatValue(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '<nil>'
  if (typeof v === 'number') return formatGoFloat(v, 64)
  if (typeof v !== 'object') return String(v)
  if (Array.isArray(v)) return `[${v.map(goFormatValue).join(' ')}]`
  const keys = Object.keys(v).sort()
  return `map[${keys.map((k) => `${k}:${goFormatValue(v[k])}`).join(' ')}]`
}
