/**
 * Tazuna's readiness rules (docs/compatibility.md#readiness), a pure function of a live object:
 * helmfile `wait: true` polls them after an apply (src/apply/readiness.ts), and `state status`
 * reports them (./drift.ts).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../go/yaml.js'

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

function objectAt(o: JsonObject, key: string): JsonObject {
  const v: JsonValue | undefined = o[key]
  return isJsonObject(v) ? v : {}
}

function podConditionReady(status: JsonObject): boolean {
  const conditions = status.conditions
  if (!Array.isArray(conditions)) return false
  return conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True')
}
