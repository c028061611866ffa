/**
 * kstatus in TypeScript (docs/health.md#kstatus): the status of one live object as
 * `sigs.k8s.io/cli-utils/pkg/kstatus/status` `Compute` decides it, at the version
 * src/go/kstatus-corpus/go.mod pins (v0.37.2). The library decides; this file is held equal to it
 * by the parity corpus (__tests__/fixtures/kstatus: expected.json is kstatus's own output over
 * the same objects). Order of the rules, as kstatus applies them:
 * 1. `metadata.deletionTimestamp` set → Terminating;
 * 2. `metadata.generation` ≠ `status.observedGeneration` (when both exist) → InProgress;
 * 3. a `Reconciling=True` condition → InProgress, a `Stalled=True` one → Failed;
 * 4. the rules of the built-in kinds (Deployment, StatefulSet, DaemonSet, ReplicaSet, Pod, Job,
 *    PVC, Service, PDB, CRD; ConfigMap, Secret, CronJob are always Current);
 * 5. a `Ready` condition: True → Current, False or Unknown → InProgress;
 * 6. otherwise Current.
 * An object kstatus cannot read (a `generation` that is no integer, `conditions` that are no list)
 * is Unknown with the reason. NotFound is the waiter's: an object that is not there.
 */
import type { JsonObject, JsonValue } from '../go/json-value.js'

/** kstatus's statuses (`status.Status`). */
export type KStatus = 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown'

/** A condition kstatus reports with its status (Reconciling or Stalled). */
export interface KCondition {
  type: 'Reconciling' | 'Stalled'
  status: 'True'
  reason: string
  message: string
}

/** `status.Result`: the status, kstatus's message and the condition behind it, if any. */
export interface KResult {
  status: KStatus
  message: string
  conditions: KCondition[]
}

/** How long a Pod may be Unschedulable before kstatus calls it Failed (`ScheduleWindow`). */
export const SCHEDULE_WINDOW_MS = 15_000

const MAX_INT32 = 2147483647

/** Reading the object failed the way kstatus's accessors fail (→ Unknown). */
class UnreadableError extends Error {}

interface BasicCondition {
  type: string
  status: string
  reason: string
  message: string
}

/**
 * kstatus's `Compute` for `object` (as the API server returns it); `nowMs` is the clock for the
 * one time-dependent rule (a Pod Unschedulable for longer than 15 s is Failed).
 */
export function computeStatus(object: JsonObject, nowMs: number): KResult {
  try {
    return (
      genericStatus(object) ??
      kindRule(object)?.(object, nowMs) ??
      readyCondition(object) ?? {
        status: 'Current',
        message: 'Resource is current',
        conditions: []
      }
    )
  } catch (error) {
    if (error instanceof UnreadableError) {
      return { status: 'Unknown', message: error.message, conditions: [] }
    }
    throw error
  }
}

function current(message: string): KResult {
  return { status: 'Current', message, conditions: [] }
}

function inProgress(reason: string, message: string): KResult {
  return { status: 'InProgress', message, conditions: [reconciling(reason, message)] }
}

function failed(reason: string, message: string): KResult {
  return { status: 'Failed', message, conditions: [stalled(reason, message)] }
}

function reconciling(reason: string, message: string): KCondition {
  return { type: 'Reconciling', status: 'True', reason, message }
}

function stalled(reason: string, message: string): KCondition {
  return { type: 'Stalled', status: 'True', reason, message }
}

function genericStatus(object: JsonObject): KResult | undefined {
  const deletion = field(object, ['metadata', 'deletionTimestamp'])
  if (typeof deletion === 'string' && deletion !== '') {
    return { status: 'Terminating', message: 'Resource scheduled for deletion', conditions: [] }
  }
  const generation = nestedInt64(object, ['metadata', 'generation'])
  if (generation !== undefined) {
    const observed = nestedInt64(object, ['status', 'observedGeneration'])
    if (observed !== undefined && observed !== generation) {
      const message = `${kindOf(object)} generation is ${generation}, but latest observed generation is ${observed}`
      return inProgress('LatestGenerationNotObserved', message)
    }
  }
  for (const c of conditionsOf(object)) {
    if (c.type === 'Reconciling' && c.status === 'True') return inProgress(c.reason, c.message)
    if (c.type === 'Stalled' && c.status === 'True') return failed(c.reason, c.message)
  }
  return undefined
}

function readyCondition(object: JsonObject): KResult | undefined {
  for (const c of conditionsOf(object)) {
    if (c.type !== 'Ready') continue
    if (c.status === 'True') return current('Resource is Ready')
    if (c.status === 'False' || c.status === 'Unknown') return inProgress(c.reason, c.message)
  }
  return undefined
}

type KindRule = (object: JsonObject, nowMs: number) => KResult

const alwaysReady: KindRule = () => current('Resource is always ready')

// `legacyTypes`: keyed by group/kind ("Kind" for the core group).
const KIND_RULES: ReadonlyMap<string, KindRule> = new Map<string, KindRule>([
  ['Service', serviceStatus],
  ['Pod', podStatus],
  ['Secret', alwaysReady],
  ['PersistentVolumeClaim', pvcStatus],
  ['apps/StatefulSet', statefulSetStatus],
  ['apps/DaemonSet', daemonSetStatus],
  ['extensions/DaemonSet', daemonSetStatus],
  ['apps/Deployment', deploymentStatus],
  ['extensions/Deployment', deploymentStatus],
  ['apps/ReplicaSet', replicaSetStatus],
  ['extensions/ReplicaSet', replicaSetStatus],
  ['policy/PodDisruptionBudget', () => current('AllowedDisruptions has been computed.')],
  ['batch/CronJob', alwaysReady],
  ['ConfigMap', alwaysReady],
  ['batch/Job', jobStatus],
  ['apiextensions.k8s.io/CustomResourceDefinition', crdStatus]
])

function kindRule(object: JsonObject): KindRule | undefined {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : ''
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : ''
  const kind = kindOf(object)
  return KIND_RULES.get(group === '' ? kind : `${group}/${kind}`)
}

function statefulSetStatus(o: JsonObject): KResult {
  if (str(o, 'spec.updateStrategy.type', '') === 'OnDelete') {
    return current('StatefulSet is using the ondelete update strategy')
  }
  const spec = int(o, 'spec.replicas', 1)
  const ready = int(o, 'status.readyReplicas', 0)
  const currentReplicas = int(o, 'status.currentReplicas', 0)
  const updated = int(o, 'status.updatedReplicas', 0)
  const replicas = int(o, 'status.replicas', 0)
  const partition = int(o, 'spec.updateStrategy.rollingUpdate.partition', -1)
  if (spec > replicas) return inProgress('LessReplicas', `Replicas: ${replicas}/${spec}`)
  if (spec > ready) return inProgress('LessReady', `Ready: ${ready}/${spec}`)
  if (replicas > spec) {
    return inProgress('ExtraPods', `Pending termination: ${replicas - spec}`)
  }
  if (partition !== -1) {
    if (updated < spec - partition) {
      return inProgress('PartitionRollout', `updated: ${updated}/${spec - partition}`)
    }
    return current(`Partition rollout complete. updated: ${updated}`)
  }
  if (spec > currentReplicas) {
    return inProgress('LessCurrent', `current: ${currentReplicas}/${spec}`)
  }
  if (str(o, 'status.currentRevision', '') !== str(o, 'status.updateRevision', '')) {
    return inProgress('RevisionMismatch', 'Waiting for updated revision to match current')
  }
  return current(`All replicas scheduled as expected. Replicas: ${replicas}`)
}

function deploymentStatus(o: JsonObject): KResult {
  let progressing = int(o, 'spec.progressDeadlineSeconds', MAX_INT32) === MAX_INT32
  let available = false
  for (const c of conditionsOf(o)) {
    if (c.type === 'Progressing') {
      if (c.reason === 'ProgressDeadlineExceeded') {
        return {
          status: 'Failed',
          message: 'Progress deadline exceeded',
          conditions: [stalled(c.reason, c.message)]
        }
      }
      if (c.status === 'True' && c.reason === 'NewReplicaSetAvailable') progressing = true
    } else if (c.type === 'Available' && c.status === 'True') {
      available = true
    }
  }
  const spec = int(o, 'spec.replicas', 1)
  const replicas = int(o, 'status.replicas', 0)
  const updated = int(o, 'status.updatedReplicas', 0)
  const ready = int(o, 'status.readyReplicas', 0)
  const availableReplicas = int(o, 'status.availableReplicas', 0)
  if (spec > replicas) return inProgress('LessReplicas', `Replicas: ${replicas}/${spec}`)
  if (spec > updated) return inProgress('LessUpdated', `Updated: ${updated}/${spec}`)
  if (replicas > spec) {
    return inProgress('ExtraPods', `Pending termination: ${replicas - spec}`)
  }
  if (updated > availableReplicas) {
    return inProgress('LessAvailable', `Available: ${availableReplicas}/${updated}`)
  }
  if (spec > ready) return inProgress('LessReady', `Ready: ${ready}/${spec}`)
  if (!progressing) return inProgress('ReplicaSetNotAvailable', 'ReplicaSet not Available')
  if (!available) return inProgress('DeploymentNotAvailable', 'Deployment not Available')
  return current(`Deployment is available. Replicas: ${replicas}`)
}

function replicaSetStatus(o: JsonObject): KResult {
  for (const c of conditionsOf(o)) {
    if (c.type === 'ReplicaFailure' && c.status === 'True') {
      return inProgress('ReplicaFailure', 'Replica Failure condition. Check Pods')
    }
  }
  const spec = int(o, 'spec.replicas', 1)
  const replicas = int(o, 'status.replicas', 0)
  const ready = int(o, 'status.readyReplicas', 0)
  const availableReplicas = int(o, 'status.availableReplicas', 0)
  const labelled = int(o, 'status.fullyLabeledReplicas', 0)
  if (spec > labelled) return inProgress('LessLabelled', `Labelled: ${labelled}/${spec}`)
  if (spec > availableReplicas) {
    return inProgress('LessAvailable', `Available: ${availableReplicas}/${spec}`)
  }
  if (spec > ready) return inProgress('LessReady', `Ready: ${ready}/${spec}`)
  if (replicas > spec) {
    return inProgress('ExtraPods', `Pending termination: ${replicas - spec}`)
  }
  return current(`ReplicaSet is available. Replicas: ${replicas}`)
}

function daemonSetStatus(o: JsonObject): KResult {
  const kind = kindOf(o)
  if (nestedInt64(o, ['metadata', 'generation']) === undefined) {
    const message = `${kind} metadata.generation not found`
    return inProgress('NoGeneration', message)
  }
  if (nestedInt64(o, ['status', 'observedGeneration']) === undefined) {
    const message = `${kind} status.observedGeneration not found`
    return inProgress('NoObservedGeneration', message)
  }
  const desired = int(o, 'status.desiredNumberScheduled', -1)
  const scheduled = int(o, 'status.currentNumberScheduled', 0)
  const updated = int(o, 'status.updatedNumberScheduled', 0)
  const availableNumber = int(o, 'status.numberAvailable', 0)
  const ready = int(o, 'status.numberReady', 0)
  if (desired === -1) return inProgress('NoDesiredNumber', 'Missing .status.desiredNumberScheduled')
  if (desired > scheduled) return inProgress('LessCurrent', `Current: ${scheduled}/${desired}`)
  if (desired > updated) return inProgress('LessUpdated', `Updated: ${updated}/${desired}`)
  if (desired > availableNumber) {
    return inProgress('LessAvailable', `Available: ${availableNumber}/${desired}`)
  }
  if (desired > ready) return inProgress('LessReady', `Ready: ${ready}/${desired}`)
  return current(`All replicas scheduled as expected. Replicas: ${desired}`)
}

function pvcStatus(o: JsonObject): KResult {
  const phase = str(o, 'status.phase', 'unknown')
  if (phase !== 'Bound') return inProgress('NotBound', `PVC is not Bound. phase: ${phase}`)
  return current('PVC is Bound')
}

function podStatus(o: JsonObject, nowMs: number): KResult {
  const conditions = conditionsOf(o)
  const phase = str(o, 'status.phase', '')
  switch (phase) {
    case 'Succeeded':
      return current('Pod has completed successfully')
    case 'Failed':
      return current('Pod has completed, but not successfully')
    case 'Running': {
      if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) {
        return current('Pod is Ready')
      }
      const looping = crashLoopingContainers(o)
      if (looping.length > 0) {
        return failed(
          'ContainerCrashLooping',
          `Containers in CrashLoop state: ${looping.join(',')}`
        )
      }
      return inProgress('PodRunningNotReady', 'Pod is running but is not Ready')
    }
    case 'Pending': {
      const scheduled = conditions.find((c) => c.type === 'PodScheduled' && c.status === 'False')
      if (scheduled?.reason === 'Unschedulable') {
        if (nowMs - SCHEDULE_WINDOW_MS < creationMs(o)) {
          return inProgress('PodNotScheduled', 'Pod has not been scheduled')
        }
        return failed('PodUnschedulable', 'Pod could not be scheduled')
      }
      return inProgress('PodPending', 'Pod is in the Pending phase')
    }
    case '':
      return inProgress('PodNotObserved', 'Pod phase not available')
    default:
      throw new UnreadableError(`unknown phase ${phase}`)
  }
}

/** The names of the containers waiting in CrashLoopBackOff, in status order. */
export function crashLoopingContainers(pod: JsonObject): string[] {
  const statuses = field(pod, ['status', 'containerStatuses'])
  if (!Array.isArray(statuses)) return []
  return statuses.flatMap((s) => {
    if (!isObject(s) || typeof s.name !== 'string') return []
    const waiting = field(s, ['state', 'waiting'])
    return isObject(waiting) && waiting.reason === 'CrashLoopBackOff' ? [s.name] : []
  })
}

// metav1.Time: RFC 3339 seconds; absent or unreadable is the zero time (long ago).
function creationMs(o: JsonObject): number {
  const value = field(o, ['metadata', 'creationTimestamp'])
  const ms = typeof value === 'string' ? Date.parse(value) : NaN
  return Number.isNaN(ms) ? -Infinity : ms
}

function jobStatus(o: JsonObject): KResult {
  const parallelism = int(o, 'spec.parallelism', 1)
  const completions = int(o, 'spec.completions', parallelism)
  const succeeded = int(o, 'status.succeeded', 0)
  const active = int(o, 'status.active', 0)
  const failedPods = int(o, 'status.failed', 0)
  const startTime = str(o, 'status.startTime', '')
  for (const c of conditionsOf(o)) {
    if (c.type === 'Complete' && c.status === 'True') {
      return current(`Job Completed. succeeded: ${succeeded}/${completions}`)
    }
    if (c.type === 'Failed' && c.status === 'True') {
      return failed('JobFailed', `Job Failed. failed: ${failedPods}/${completions}`)
    }
  }
  if (startTime === '') return inProgress('JobNotStarted', 'Job not started')
  return current(`Job in progress. success:${succeeded}, active: ${active}, failed: ${failedPods}`)
}

function serviceStatus(o: JsonObject): KResult {
  if (str(o, 'spec.type', 'ClusterIP') === 'LoadBalancer' && str(o, 'spec.clusterIP', '') === '') {
    return inProgress('NoIPAssigned', 'ClusterIP not set. Service type: LoadBalancer')
  }
  return current('Service is ready')
}

function crdStatus(o: JsonObject): KResult {
  for (const c of conditionsOf(o)) {
    if (c.type === 'NamesAccepted' && c.status === 'False') return failed(c.reason, c.message)
    if (c.type === 'Established') {
      if (c.status === 'False' && c.reason !== 'Installing') return failed(c.reason, c.message)
      if (c.status === 'True') return current('CRD is established')
    }
  }
  return inProgress('Installing', 'Install in progress')
}

// --- reading the object as kstatus's accessors do ---

function kindOf(o: JsonObject): string {
  return typeof o.kind === 'string' ? o.kind : ''
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function field(o: JsonObject, path: readonly string[]): JsonValue | undefined {
  let value: JsonValue | undefined = o
  for (const key of path) {
    if (!isObject(value)) return undefined
    value = value[key]
  }
  return value
}

// GetIntField: an integer at the path, else the default (a float or string is the default).
function int(o: JsonObject, path: string, fallback: number): number {
  const value = field(o, path.split('.'))
  return typeof value === 'number' && Number.isInteger(value) ? value : fallback
}

// GetStringField: a string at the path, else the default.
function str(o: JsonObject, path: string, fallback: string): string {
  const value = field(o, path.split('.'))
  return typeof value === 'string' ? value : fallback
}

// unstructured.NestedInt64: absent → undefined; present but no integer → kstatus's error.
function nestedInt64(o: JsonObject, path: readonly string[]): number | undefined {
  const value = field(o, path)
  if (value === undefined) return undefined
  if (typeof value === 'number' && Number.isInteger(value)) return value
  throw new UnreadableError(
    `looking up ${path.join('.')} from resource: .${path.join('.')} accessor error: ` +
      `${goString(value)} is of the type ${goType(value)}, expected int64`
  )
}

// GetObjectWithConditions: status.conditions as kstatus's converter reads them.
function conditionsOf(o: JsonObject): BasicCondition[] {
  const status = o.status
  if (status === undefined || status === null) return []
  if (!isObject(status)) throw new UnreadableError(`cannot restore struct from: ${goType(status)}`)
  const conditions = status.conditions
  if (conditions === undefined || conditions === null) return []
  if (!Array.isArray(conditions)) {
    throw new UnreadableError(`cannot restore slice from ${goType(conditions)}`)
  }
  return conditions.map((c) => {
    if (c === null) return { type: '', status: '', reason: '', message: '' }
    if (!isObject(c)) throw new UnreadableError(`cannot restore struct from: ${goType(c)}`)
    const text = (key: string): string => {
      const value = c[key]
      if (value === undefined || value === null) return ''
      if (typeof value !== 'string') {
        throw new UnreadableError(`cannot restore string from ${goType(value)}`)
      }
      return value
    }
    return {
      type: text('type'),
      status: text('status'),
      reason: text('reason'),
      message: text('message')
    }
  })
}

function goType(value: JsonValue): string {
  if (typeof value === 'string') return 'string'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64'
  if (Array.isArray(value)) return '[]interface {}'
  return value === null ? '<nil>' : 'map[string]interface {}'
}

function goString(value: JsonValue): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}
