/**
 * Checks of changes the API server refuses to make to an existing object (immutable fields).
 * Each compares the before side with the head; `__tests__/integration/risk-server.test.ts`
 * confirms every one against a real kube-apiserver.
 */
import type { JsonObject } from '../go/yaml.js'
import { changedKeys, fieldAt, objectAt, quantityValue, sameValue, stringAt } from './fields.js'
import type { Finding, ObjectChange } from './model.js'

/** Both sides of a modified object, or undefined when the content is not known. */
function sides(change: ObjectChange): { before: JsonObject; head: JsonObject } | undefined {
  return change.before === undefined || change.head === undefined
    ? undefined
    : { before: change.before, head: change.head }
}

/** Deployment, ReplicaSet, DaemonSet and StatefulSet: `spec.selector` cannot change. */
export function selectorChange(change: ObjectChange): Finding[] {
  const s = sides(change)
  if (s === undefined) return []
  const before = fieldAt(s.before, ['spec', 'selector'])
  const head = fieldAt(s.head, ['spec', 'selector'])
  if (before === undefined || sameValue(before, head)) return []
  return [
    {
      path: 'spec.selector',
      message: `the selector of a ${change.ref.kind} is immutable: delete and recreate it, or keep the old selector`
    }
  ]
}

/** The StatefulSet spec fields an update may change (apps/v1 validation). */
export const statefulSetUpdatable: ReadonlySet<string> = new Set([
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
  // Reported by selectorChange.
  'selector'
])

/** StatefulSet: every spec field but the updatable ones is fixed at creation. */
export function statefulSetSpecChange(change: ObjectChange): Finding[] {
  const s = sides(change)
  if (s === undefined) return []
  const changed = changedKeys(
    objectAt(s.before, ['spec']),
    objectAt(s.head, ['spec']),
    statefulSetUpdatable
  )
  return changed.map((field) => ({
    path: `spec.${field}`,
    message: `a StatefulSet's ${field} cannot be updated (only replicas, ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and minReadySeconds can)`
  }))
}

/** Service: an assigned `spec.clusterIP` / `spec.clusterIPs` cannot be changed to another. */
export function serviceClusterIpChange(change: ObjectChange): Finding[] {
  const s = sides(change)
  if (s === undefined) return []
  // An ExternalName Service has no cluster IP; leaving the field out keeps the assigned one.
  if (stringAt(s.head, ['spec', 'type']) === 'ExternalName') return []
  return (['clusterIP', 'clusterIPs'] as const).flatMap((field) => {
    const before = fieldAt(s.before, ['spec', field])
    const head = fieldAt(s.head, ['spec', field])
    const unset = (v: typeof before): boolean => v === undefined || v === null || v === ''
    if (unset(before) || unset(head) || sameValue(before, head)) return []
    return [
      {
        path: `spec.${field}`,
        message: `a Service's ${field} cannot change once assigned (${JSON.stringify(before)} → ${JSON.stringify(head)})`
      }
    ]
  })
}

/** PersistentVolumeClaim: the spec is fixed but for a larger `resources.requests.storage`. */
export function claimSpecChange(change: ObjectChange): Finding[] {
  const s = sides(change)
  if (s === undefined) return []
  const before = objectAt(s.before, ['spec'])
  const head = objectAt(s.head, ['spec'])
  const findings: Finding[] = changedKeys(
    before,
    head,
    new Set(['resources', 'volumeAttributesClassName'])
  ).map((field) => ({
    path: `spec.${field}`,
    message: `a PersistentVolumeClaim's ${field} cannot change after creation`
  }))
  const resources = (spec: JsonObject): JsonObject => {
    const copy = structuredClone(objectAt(spec, ['resources']))
    const requests = objectAt(copy, ['requests'])
    delete requests.storage
    return copy
  }
  if (!sameValue(resources(before), resources(head))) {
    findings.push({
      path: 'spec.resources',
      message: 'of a PersistentVolumeClaim’s resources only requests.storage can change'
    })
  }
  const from = quantityValue(fieldAt(before, ['resources', 'requests', 'storage']))
  const to = quantityValue(fieldAt(head, ['resources', 'requests', 'storage']))
  if (from !== undefined && to !== undefined && to < from) {
    findings.push({
      path: 'spec.resources.requests.storage',
      message: 'a PersistentVolumeClaim cannot shrink: storage requests may only grow'
    })
  }
  return findings
}

/** ConfigMap and Secret with `immutable: true`: their data cannot change, nor the flag. */
export function immutableDataChange(change: ObjectChange): Finding[] {
  const s = sides(change)
  if (s === undefined || fieldAt(s.before, ['immutable']) !== true) return []
  const fields = ['data', 'binaryData', 'stringData', 'immutable'].filter(
    (f) => !sameValue(fieldAt(s.before, [f]), fieldAt(s.head, [f]))
  )
  return fields.map((field) => ({
    path: field,
    message:
      field === 'immutable'
        ? `an immutable ${change.ref.kind} cannot be made mutable again: delete and recreate it`
        : `the ${change.ref.kind} is immutable (immutable: true): its ${field} cannot change; create one under a new name`
  }))
}
