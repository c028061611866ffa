/**
 * A manifest's recorded state and its exact ConfigMap encoding
 * (docs/compatibility.md#state-storage, #entry-and-metadata-bytes), readable and writable
 * interchangeably with the Go CLI.
 */
import { compareBytes } from './byte-order.js'
import { decodeDataKey, encodeDataKey } from './data-key.js'
import { goString } from '../go/json-string.js'

/** Namespace that holds every state ConfigMap. */
export const STATE_NAMESPACE = 'tazuna'
/** Reserved data key of the metadata JSON. */
export const METADATA_KEY = '_metadata'

/** `_metadata`: commit of the tazuna.yaml checkout and time of the last write. */
export interface StateMetadata {
  gitCommitHash: string
  lastSyncedAt: string
}

/** One manifest's state: metadata plus logical state key → content hash. */
export interface State {
  metadata: StateMetadata
  entries: Map<string, string>
}

/** A state ConfigMap whose data cannot be read; names the ConfigMap and the data key. */
export class StateDataError extends Error {
  override name = 'StateDataError'
}

/** Name of the ConfigMap that holds a manifest's state. */
export function stateConfigMapName(manifest: string): string {
  return `tazuna-state-${manifest}`
}

/** A state with no entries and empty metadata (what a missing ConfigMap reads as). */
export function emptyState(): State {
  return { metadata: { gitCommitHash: '', lastSyncedAt: '' }, entries: new Map() }
}

/**
 * Builds the ConfigMap `data` with Go's bytes: `{"contentHash":"…"}` per entry under the
 * current data-key encoding and `{"gitCommitHash":"…","lastSyncedAt":"…"}` (struct field order,
 * no whitespace). Keys come out in byte order for stable output.
 */
export function stateToConfigMapData(s: State): Record<string, string> {
  const data: Record<string, string> = {
    [METADATA_KEY]: `{"gitCommitHash":${goString(s.metadata.gitCommitHash)},"lastSyncedAt":${goString(s.metadata.lastSyncedAt)}}`
  }
  const keys = [...s.entries.keys()].sort(compareBytes)
  for (const key of keys) {
    data[encodeDataKey(key)] = `{"contentHash":${goString(s.entries.get(key) ?? '')}}`
  }
  return data
}

/**
 * Reads ConfigMap `data` like Go's json.Unmarshal into the state structs: unknown fields are
 * ignored, missing ones read as `''`, field names match case-insensitively, a `null` document is
 * empty. Anything else that is not valid throws StateDataError naming the ConfigMap and key.
 * Legacy (`/` → `__` only) data keys decode to the same logical keys.
 * If a legacy and a current data key decode to the same logical key, the one later in byte
 * order wins (Go's map iteration would pick either).
 */
export function stateFromConfigMapData(
  data: Readonly<Record<string, string>>,
  manifest: string
): State {
  const where = `in ConfigMap ${STATE_NAMESPACE}/${stateConfigMapName(manifest)}`
  const state = emptyState()
  for (const dataKey of Object.keys(data).sort(compareBytes)) {
    const raw = data[dataKey] ?? ''
    if (dataKey === METADATA_KEY) {
      const fields = readStringFields(raw, ['gitCommitHash', 'lastSyncedAt'], (reason) => {
        return new StateDataError(`failed to parse state metadata ${where}: ${reason}`)
      })
      state.metadata = {
        gitCommitHash: fields.gitCommitHash ?? '',
        lastSyncedAt: fields.lastSyncedAt ?? ''
      }
      continue
    }
    // The form Tazuna and this engine write (docs/compatibility.md#state-storage), read without a parse.
    const written = WRITTEN_ENTRY.exec(raw)
    if (written !== null) {
      state.entries.set(decodeDataKey(dataKey), written[1]!)
      continue
    }
    const fields = readStringFields(raw, ['contentHash'], (reason) => {
      return new StateDataError(
        `failed to parse state entry for key ${JSON.stringify(dataKey)} ${where}: ${reason}`
      )
    })
    state.entries.set(decodeDataKey(dataKey), fields.contentHash ?? '')
  }
  return state
}

/**
 * Formats a sync time like Go's `time.Now().UTC().Format(time.RFC3339)`:
 * `YYYY-MM-DDTHH:MM:SSZ`, seconds precision, always UTC.
 */
export function formatSyncTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** An entry as encoding/json writes it: the hash, nothing to unescape. */
const WRITTEN_ENTRY = /^\{"contentHash":"([0-9a-f]*)"\}$/

/** Decodes a JSON object into the named string fields with encoding/json's matching rules. */
function readStringFields(
  raw: string,
  names: readonly string[],
  fail: (reason: string) => Error
): Record<string, string> {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (e) {
    throw fail((e as Error).message)
  }
  const out: Record<string, string> = {}
  if (parsed === null) return out
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw fail(`expected a JSON object, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}`)
  }
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const name = names.find((n) => n === key) ?? names.find((n) => foldName(n) === foldName(key))
    if (name === undefined || value === null) continue
    if (typeof value !== 'string') throw fail(`field ${JSON.stringify(key)} is not a string`)
    out[name] = value
  }
  return out
}

/** encoding/json's case-insensitive field match (simple per-code-point case folding). */
function foldName(s: string): string {
  return [...s]
    .map((c) => {
      const folded = c.toLowerCase().toUpperCase()
      return [...folded].length === 1 ? folded : c
    })
    .join('')
}
