/**
 * The quiet drift signal of the action's drift mode. Tazuna's `state drift` re-hashes the whole
 * live object, so server defaults (a Deployment's strategy, a container's
 * terminationMessagePath) mark most objects drifted forever. This compares only the fields the
 * head render sets — the fields tazuna applies and, after an apply, owns as field manager
 * `tazuna` — with the live object, and names who owns each differing field now, from the live
 * object's `metadata.managedFields`: a field another manager changed moved to that manager
 * (server-side apply ownership), a field only tazuna owns differs because the head is not
 * applied yet, a field nobody owns was removed outside tazuna.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'

/** Field manager of tazuna's server-side applies (both tools use it). */
export const TAZUNA_MANAGER = 'tazuna'

/** Who owns a differing field in the live object. */
export type FieldOwner =
  { kind: 'manager'; manager: string } | { kind: 'tazuna' } | { kind: 'nobody' }

/** One field whose live value differs from the head render. */
export interface FieldChange {
  /** `data.v`, `spec.template.spec.containers[name=app].image`, `spec.ports[0]`. */
  path: string
  /** The head render's value. */
  head: JsonValue
  /** The live value; absent when the live object lacks the field. */
  live?: JsonValue
  owner: FieldOwner
}

/** True when a change is drift: made outside tazuna, not a head that is not applied yet. */
export function isOutsideChange(change: FieldChange): boolean {
  return change.owner.kind !== 'tazuna'
}

type Segment = { key: string } | { index: number; element: JsonValue | undefined }

interface ManagedEntry {
  manager: string
  operation: string
  fields: JsonObject
}

// Identity fields are part of the key, and status is never applied.
const SKIPPED_TOP_LEVEL = new Set(['apiVersion', 'kind', 'status'])
const SKIPPED_METADATA = new Set(['name', 'namespace'])

/**
 * The fields of `head` whose value differs in `live`, each with its current owner. Maps compare
 * key by key (extra live keys are server defaults and ignored); lists compare element by
 * element when their lengths agree, otherwise as a whole; `null`, `{}` and `[]` in the head
 * match an absent live field (the API server drops them).
 */
export function fieldChanges(head: JsonObject, live: JsonObject): FieldChange[] {
  const managed = managedEntries(live)
  const changes: { path: Segment[]; head: JsonValue; live: JsonValue | undefined }[] = []
  for (const [key, value] of Object.entries(head)) {
    if (SKIPPED_TOP_LEVEL.has(key)) continue
    if (key === 'metadata' && isJsonObject(value)) {
      const liveMeta = isJsonObject(live.metadata) ? live.metadata : {}
      for (const [mk, mv] of Object.entries(value)) {
        if (!SKIPPED_METADATA.has(mk)) compare(mv, liveMeta[mk], [{ key }, { key: mk }], changes)
      }
      continue
    }
    compare(value, live[key], [{ key }], changes)
  }
  return changes.map((c) => ({
    path: formatPath(c.path),
    head: c.head,
    ...(c.live === undefined ? {} : { live: c.live }),
    owner: ownerOf(c.path, managed)
  }))
}

function compare(
  head: JsonValue,
  live: JsonValue | undefined,
  path: Segment[],
  out: { path: Segment[]; head: JsonValue; live: JsonValue | undefined }[]
): void {
  if (live === undefined && isUnset(head)) return
  if (isJsonObject(head)) {
    if (!isJsonObject(live)) return void out.push({ path, head, live })
    for (const [k, v] of Object.entries(head)) compare(v, live[k], [...path, { key: k }], out)
    return
  }
  if (Array.isArray(head)) {
    if (!Array.isArray(live) || live.length !== head.length) {
      return void out.push({ path, head, live })
    }
    head.forEach((h, i) => compare(h, live[i], [...path, { index: i, element: live[i] }], out))
    return
  }
  if (head !== live) out.push({ path, head, live })
}

function isUnset(value: JsonValue): boolean {
  if (value === null) return true
  if (Array.isArray(value)) return value.length === 0
  return isJsonObject(value) && Object.keys(value).length === 0
}

function managedEntries(live: JsonObject): ManagedEntry[] {
  const metadata = isJsonObject(live.metadata) ? live.metadata : {}
  const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields : []
  return entries.flatMap((e) =>
    isJsonObject(e) && typeof e.manager === 'string' && isJsonObject(e.fieldsV1)
      ? [
          {
            manager: e.manager,
            operation: typeof e.operation === 'string' ? e.operation : '',
            fields: e.fieldsV1
          }
        ]
      : []
  )
}

/**
 * Another manager that owns the field wins (it changed it last); tazuna alone means the head
 * is not applied yet; nobody means the field was removed outside tazuna.
 */
function ownerOf(path: readonly Segment[], managed: readonly ManagedEntry[]): FieldOwner {
  const owners = managed.filter((m) => ownsPath(m.fields, path))
  const other = owners.find((m) => m.manager !== TAZUNA_MANAGER)
  if (other !== undefined) return { kind: 'manager', manager: other.manager }
  return owners.length > 0 ? { kind: 'tazuna' } : { kind: 'nobody' }
}

// fieldsV1: `f:<name>` for map keys; `k:{...}` (associative key), `v:<json>` (set value) or
// `i:<n>` for list elements; `{}` marks an owned leaf.
function ownsPath(fields: JsonObject, path: readonly Segment[]): boolean {
  let node: JsonObject = fields
  for (const segment of path) {
    const next = 'key' in segment ? node[`f:${segment.key}`] : listEntry(node, segment)
    if (!isJsonObject(next)) return false
    node = next
  }
  return true
}

function listEntry(
  node: JsonObject,
  segment: { index: number; element: JsonValue | undefined }
): JsonValue | undefined {
  for (const [name, value] of Object.entries(node)) {
    if (name === `i:${segment.index}`) return value
    const json =
      name.startsWith('k:') || name.startsWith('v:') ? parseJson(name.slice(2)) : undefined
    if (json === undefined) continue
    if (name.startsWith('v:') && deepEqual(json, segment.element)) return value
    if (name.startsWith('k:') && isJsonObject(json) && isJsonObject(segment.element)) {
      const element = segment.element
      if (Object.entries(json).every(([k, v]) => deepEqual(element[k], v))) return value
    }
  }
  return undefined
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return undefined
  }
}

function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))
}

function sortKeys(v: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(v)) return v.map((x) => sortKeys(x) ?? null)
  if (!isJsonObject(v)) return v
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k]) ?? null])
  )
}

/** `a.b[name=x].c`: list elements by their `name` when they have one, else by index. */
function formatPath(path: readonly Segment[]): string {
  return path
    .map((s, i) => {
      if ('key' in s)
        return /^[A-Za-z0-9_-]+$/.test(s.key)
          ? `${i === 0 ? '' : '.'}${s.key}`
          : `[${JSON.stringify(s.key)}]`
      const name = isJsonObject(s.element) ? s.element.name : undefined
      return typeof name === 'string' ? `[name=${name}]` : `[${s.index}]`
    })
    .join('')
}
