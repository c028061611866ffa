/**
 * State keys (docs/compatibility.md#state-keys):
 * `{manifest}/{group}/{version}/{kind}/{namespace}/{name}` for objects with a namespace,
 * `{manifest}/{group}/{version}/{kind}/{name}` without. Whether an object is namespaced is decided
 * only by whether it has a namespace, never by discovery
 * (docs/compatibility.md#cluster-scoped-namespace).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'
import { splitN } from '../go/strings.js'

/** The identity of one managed object inside a manifest's state. */
export interface StateKey {
  manifest: string
  /** API group; `''` for the core group, so core keys contain `//`. */
  group: string
  version: string
  kind: string
  /** `''` for objects without a namespace (5-part key). */
  namespace: string
  name: string
}

/** Group and version of an apiVersion string, as apimachinery's ParseGroupVersion splits it. */
export interface GroupVersion {
  group: string
  version: string
}

/**
 * Splits an apiVersion like apimachinery: `''` and `'/'` are empty, `v1` is the core group,
 * `g/v` splits once; more slashes are invalid (`undefined`).
 */
export function parseGroupVersion(apiVersion: string): GroupVersion | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' }
  const parts = apiVersion.split('/')
  if (parts.length === 1) return { group: '', version: apiVersion }
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' }
  return undefined
}

/**
 * Reads group, version and kind the way `unstructured.GroupVersionKind()` does: non-string
 * apiVersion/kind read as `''`, and an unparseable apiVersion (`a/b/c`) empties all three.
 */
export function groupVersionKindOf(obj: JsonObject): GroupVersion & { kind: string } {
  const gv = parseGroupVersion(stringField(obj.apiVersion))
  if (gv === undefined) return { group: '', version: '', kind: '' }
  return { ...gv, kind: stringField(obj.kind) }
}

/**
 * The state key of an object after docs/compatibility.md#yaml-to-objects conversion, read like Go's
 * unstructured accessors: a non-string namespace or name reads as `''`.
 */
export function stateKeyOf(manifest: string, obj: JsonObject): StateKey {
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {}
  return {
    manifest,
    ...groupVersionKindOf(obj),
    namespace: stringField(meta.namespace),
    name: stringField(meta.name)
  }
}

/** Formats a key: 6 parts with a namespace, 5 parts without. */
export function formatStateKey(k: StateKey): string {
  const head = `${k.manifest}/${k.group}/${k.version}/${k.kind}`
  return k.namespace === '' ? `${head}/${k.name}` : `${head}/${k.namespace}/${k.name}`
}

/** A string that is not a valid state key (neither 5 nor 6 `/`-separated parts). */
export class StateKeyError extends Error {
  override name = 'StateKeyError'
}

/**
 * Parses a key with Go's `strings.SplitN(s, "/", 6)`: 5 parts are cluster-scoped, 6 namespaced
 * (a `/` inside the name stays in the 6th part); anything else throws StateKeyError with
 * Tazuna's message.
 */
export function parseStateKey(s: string): StateKey {
  const parts = splitN(s, '/', 6)
  const [manifest = '', group = '', version = '', kind = ''] = parts
  if (parts.length === 5) {
    return { manifest, group, version, kind, namespace: '', name: parts[4] ?? '' }
  }
  if (parts.length === 6) {
    return { manifest, group, version, kind, namespace: parts[4] ?? '', name: parts[5] ?? '' }
  }
  throw new StateKeyError(
    `invalid state key format: ${goQuote(s)} (expected 5 or 6 parts separated by '/')`
  )
}

/**
 * The resource column of `state diff`/`state list`: the key without its manifest segment
 * (`group/version/kind[/namespace]/name`; core group starts with `/`,
 * docs/compatibility.md#core-group-resource-column), or the raw key when it cannot be parsed.
 */
export function resourceOf(key: string): string {
  let k: StateKey
  try {
    k = parseStateKey(key)
  } catch {
    return key
  }
  const head = `${k.group}/${k.version}/${k.kind}`
  return k.namespace === '' ? `${head}/${k.name}` : `${head}/${k.namespace}/${k.name}`
}

function stringField(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : ''
}

/** Go's %q for the printable strings a key holds; JSON quoting matches it there. */
function goQuote(s: string): string {
  return JSON.stringify(s)
}
