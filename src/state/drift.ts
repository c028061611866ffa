/**
 * `state drift` and `status` over live objects (docs/compatibility.md#state-drift): pure classification of
 * what the cluster holds for each recorded state key. Reading the cluster is the engine's job
 * (src/engine/live.ts); this module only decides and sorts.
 */
import { isReady } from './readiness.js'
import type { JsonObject } from '../go/yaml.js'
import { compareBytes } from './byte-order.js'
import { computeContentHash } from './hash.js'
import { parseStateKey } from './key.js'

/** What the cluster answered for one recorded key. */
export type LiveRead =
  { kind: 'found'; object: JsonObject } | { kind: 'missing' } | { kind: 'error'; message: string }

/** One recorded key and the live object's read. */
export interface LiveEntry {
  key: string
  storedHash: string
  read: LiveRead
}

/** A manifest's recorded State with every parseable key read live, sorted by key. */
export interface LiveManifest {
  manifest: string
  type: string
  /** True when the State has at least one entry (`status` prints `(no state)` otherwise). */
  hasState: boolean
  entries: LiveEntry[]
}

/** Tazuna's drift types, in output order. */
export const driftTypes = ['live-drifted', 'live-missing'] as const
export type DriftType = (typeof driftTypes)[number]

/** One drifted or missing object. */
export interface DriftEntry {
  key: string
  type: DriftType
  storedHash: string
  /** ContentHash of the live object; absent for `live-missing`. */
  liveHash?: string
}

/** One manifest's drift (empty `entries`: none). */
export interface ManifestDrift {
  manifest: string
  entries: DriftEntry[]
}

/**
 * Classifies one recorded key like Tazuna's `state drift`: NotFound is `live-missing`; a live
 * object whose ContentHash (same algorithm as State; server defaults included, so most
 * Deployments differ) differs from the stored hash is `live-drifted`. A read error throws
 * `failed to get live resource for <key>: ...`, as the Go CLI fails the whole command.
 */
export function classifyDrift(entry: LiveEntry): DriftEntry | undefined {
  const { key, storedHash, read } = entry
  if (read.kind === 'error') {
    throw new Error(`failed to get live resource for ${key}: ${read.message}`)
  }
  if (read.kind === 'missing') return { key, type: 'live-missing', storedHash }
  const liveHash = computeContentHash(read.object)
  return liveHash === storedHash ? undefined : { key, type: 'live-drifted', storedHash, liveHash }
}

/** Drifted before missing, then state key in Go byte order. */
export function sortDrift(entries: readonly DriftEntry[]): DriftEntry[] {
  return [...entries].sort(
    (a, b) => driftTypes.indexOf(a.type) - driftTypes.indexOf(b.type) || compareBytes(a.key, b.key)
  )
}

/** Every manifest's drift, in the order given. */
export function driftOf(manifests: readonly LiveManifest[]): ManifestDrift[] {
  return manifests.map((m) => ({
    manifest: m.manifest,
    entries: sortDrift(m.entries.flatMap((e) => classifyDrift(e) ?? []))
  }))
}

/** Tazuna's readiness statuses (docs/compatibility.md#status). */
export type ResourceStatus = 'Ready' | 'NotReady' | 'Missing' | 'Error'

/** One row of `status`. */
export interface StatusRow {
  key: string
  status: ResourceStatus
  kind: string
  namespace: string
  name: string
  /** Why the status is `Error` (the API's message). */
  error?: string
}

/** One manifest's status rows; `hasState` false prints `(no state)`. */
export interface ManifestStatus {
  manifest: string
  hasState: boolean
  rows: StatusRow[]
}

/**
 * The status of one recorded key: Missing (NotFound), Error (any other failure),
 * docs/compatibility.md#readiness rules.
 */
export function statusRowOf(entry: LiveEntry): StatusRow {
  const k = parseStateKey(entry.key)
  const base = { key: entry.key, kind: k.kind, namespace: k.namespace, name: k.name }
  const { read } = entry
  if (read.kind === 'missing') return { ...base, status: 'Missing' }
  if (read.kind === 'error') return { ...base, status: 'Error', error: read.message }
  return { ...base, status: isReady(read.object) ? 'Ready' : 'NotReady' }
}

/** Every manifest's status, rows sorted by key (the live entries already are). */
export function statusOf(manifests: readonly LiveManifest[]): ManifestStatus[] {
  return manifests.map((m) => ({
    manifest: m.manifest,
    hasState: m.hasState,
    rows: m.entries.map(statusRowOf)
  }))
}
