/**
 * helmfile `wait: true` (docs/compatibility.md#readiness): after a manifest's objects are applied,
 * wait until each is ready, one after another, sharing one timeout.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'
import type { Clock, Cluster, ObjectRef } from './ports.js'

const POLL_MS = 2000
/** `timeoutSeconds` ≤ 0 means this many seconds (docs/compatibility.md#readiness). */
export const DEFAULT_WAIT_SECONDS = 300

/**
 * Tazuna's readiness rules for a live object: Deployment (explicit `spec.replicas: 0` is
 * ready; otherwise ready == replicas == available > 0), StatefulSet (ready == replicas > 0),
 * DaemonSet (numberReady == desiredNumberScheduled > 0), Pod (Running and condition Ready
 * True); any other kind is ready once it exists.
 */
export function isReady(live: JsonObject): boolean {
  const spec = objectAt(live, 'spec')
  const status = objectAt(live, 'status')
  const n = (o: JsonObject, k: string): number => (typeof o[k] === 'number' ? o[k] : 0)
  switch (live.kind) {
    case 'Deployment':
      if (spec.replicas === 0) return true
      return (
        n(status, 'replicas') > 0 &&
        n(status, 'readyReplicas') === n(status, 'replicas') &&
        n(status, 'availableReplicas') === n(status, 'replicas')
      )
    case 'StatefulSet':
      return n(status, 'replicas') > 0 && n(status, 'readyReplicas') === n(status, 'replicas')
    case 'DaemonSet':
      return (
        n(status, 'desiredNumberScheduled') > 0 &&
        n(status, 'numberReady') === n(status, 'desiredNumberScheduled')
      )
    case 'Pod':
      return status.phase === 'Running' && podConditionReady(status)
    default:
      return true
  }
}

/**
 * Waits for every object in order, polling each every 2 s (first check after 2 s; not found =
 * not ready) until `timeoutSeconds` (≤ 0 → 300) shared by all of them has passed; then fails
 * with `timeout waiting for <Kind> <namespace>/<name> to be ready`.
 */
export async function waitForReadiness(
  objects: readonly ObjectRef[],
  timeoutSeconds: number,
  deps: { cluster: Cluster; clock: Clock }
): Promise<void> {
  const seconds = timeoutSeconds > 0 ? timeoutSeconds : DEFAULT_WAIT_SECONDS
  const deadline = deps.clock.now() + seconds * 1000
  for (const ref of objects) {
    for (;;) {
      if (deps.clock.now() + POLL_MS > deadline) {
        throw new Error(
          `timeout waiting for ${ref.kind} ${ref.namespace ?? ''}/${ref.name} to be ready`
        )
      }
      await deps.clock.sleep(POLL_MS)
      const live = await deps.cluster.get(ref)
      if (live !== undefined && isReady(live)) break
    }
  }
}

function objectAt(o: JsonObject, key: string): JsonObject {
  const v: JsonValue | undefined = o[key]
  return isJsonObject(v) ? v : {}
}

function podConditionReady(status: JsonObject): boolean {
  const conditions = status.conditions
  if (!Array.isArray(conditions)) return false
  return conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True')
}
