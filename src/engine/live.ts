/**
 * The read-only live step under `state drift`, `status` and the action's drift mode: every
 * recorded state key of the chosen manifests read from the cluster once. Only GET requests
 * (State with one list request), so a read-only kubeconfig is enough.
 */
import { mapConcurrently } from '../apply/layered-apply.js'
import type { Cluster, ObjectRef, StateStore } from '../apply/ports.js'
import { messageOf, refOfKey } from '../apply/sync-manifest.js'
import type { Manifest } from '../config/schema.js'
import { compareBytes } from '../state/byte-order.js'
import type { LiveManifest, LiveRead } from '../state/drift.js'
import { parseStateKey } from '../state/key.js'
import type { EngineLog } from './ports.js'

/** Objects read at once. */
const READ_CONCURRENCY = 8

/**
 * Reads State for `manifests` (declaration order, unnamed ones skipped with a warning) and every
 * parseable recorded key live; unparseable keys are skipped with Tazuna's warning.
 */
export async function readLiveManifests(
  manifests: readonly Manifest[],
  deps: { store: StateStore; cluster: Pick<Cluster, 'get'>; log: EngineLog }
): Promise<LiveManifest[]> {
  const named = manifests.filter((m) => {
    if (m.name === '') deps.log.warn(`manifest has no name, skipping (type ${m.type})`)
    return m.name !== ''
  })
  const stored = await deps.store.readMany(named.map((m) => m.name))
  const result: LiveManifest[] = []
  for (const m of named) {
    const entries = stored.get(m.name)?.state.entries ?? new Map<string, string>()
    const keys = parseableKeys(m.name, entries, deps.log)
    const live = await mapConcurrently(keys, READ_CONCURRENCY, async (key) => ({
      key,
      storedHash: entries.get(key) ?? '',
      read: await readLive(deps.cluster, refOfKey(key))
    }))
    result.push({ manifest: m.name, type: m.type, hasState: entries.size > 0, entries: live })
  }
  return result
}

function parseableKeys(
  manifest: string,
  entries: ReadonlyMap<string, string>,
  log: EngineLog
): string[] {
  return [...entries.keys()].sort(compareBytes).flatMap((key) => {
    try {
      parseStateKey(key)
      return [key]
    } catch (error) {
      log.warn(
        `failed to parse state key, skipping (manifest ${manifest}, key ${key}): ${messageOf(error)}`
      )
      return []
    }
  })
}

async function readLive(cluster: Pick<Cluster, 'get'>, ref: ObjectRef): Promise<LiveRead> {
  try {
    const object = await cluster.get(ref)
    return object === undefined ? { kind: 'missing' } : { kind: 'found', object }
  } catch (error) {
    return { kind: 'error', message: messageOf(error) }
  }
}
