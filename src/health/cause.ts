/**
 * Why an object is not healthy, in the words a person needs (docs/health.md#causes): for a
 * workload, its failing Pods' container states (ImagePullBackOff with the image, CrashLoopBackOff
 * with the last exit code and reason, an unschedulable Pod's message), and the newest Warning
 * Events of the object, of a Deployment's ReplicaSets and of those Pods. Bounded: at most MAX_PODS Pods, MAX_EVENTS Events,
 * each text clipped to MAX_TEXT characters. Secrets are redacted, and the text escaped, where it
 * is published (src/report/).
 */
import type { JsonObject, JsonValue } from '../go/json-value.js'
import type { ObjectWatcher } from './ports.js'
import type { HealthRef, ObjectHealth } from './wait.js'

export const MAX_PODS = 3
export const MAX_EVENTS = 5
export const MAX_TEXT = 300

/** What was found about one unhealthy object. */
export interface HealthCause {
  /** One line per failing container or Pod: `web-5d8f/app: ImagePullBackOff (image …)`. */
  pods: string[]
  /** Newest first: `FailedCreate: message` (with a count when repeated). */
  events: string[]
}

const WORKLOADS = new Set([
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'batch/Job'
])

/**
 * The cause of each object that is not Current, in `objects` order; a read that fails leaves
 * that part out (the cause explains, it decides nothing).
 */
export async function explainUnhealthy(
  objects: readonly ObjectHealth[],
  watcher: ObjectWatcher
): Promise<Map<ObjectHealth, HealthCause>> {
  const causes = new Map<ObjectHealth, HealthCause>()
  await Promise.all(
    objects
      .filter((o) => o.status !== 'Current')
      .map(async (o) => {
        causes.set(o, await causeOf(o, watcher))
      })
  )
  return causes
}

async function causeOf(o: ObjectHealth, watcher: ObjectWatcher): Promise<HealthCause> {
  const pods = await podsOf(o, watcher).catch(() => [])
  const failing = pods.filter((p) => podProblems(p).length > 0 || !podReady(p)).slice(0, MAX_PODS)
  const involved: HealthRef[] = [
    o.ref,
    ...(await replicaSetsOf(o, watcher).catch(() => [])),
    ...failing.map((p) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      ...(o.ref.namespace === undefined ? {} : { namespace: o.ref.namespace }),
      name: nameOf(p)
    }))
  ]
  const events = (
    await Promise.all(involved.map((ref) => warningEvents(ref, watcher).catch(() => [])))
  ).flat()
  events.sort((a, b) => eventTime(b) - eventTime(a))
  return {
    pods: failing.flatMap((p) => podProblems(p).map((line) => clipText(`${nameOf(p)}/${line}`))),
    events: events.slice(0, MAX_EVENTS).map(eventLine)
  }
}

// A Deployment's Pods are created by its ReplicaSets: their Warning Events (FailedCreate: a
// quota, an admission webhook) say why there are none. The newest two.
async function replicaSetsOf(o: ObjectHealth, watcher: ObjectWatcher): Promise<HealthRef[]> {
  if (o.ref.kind !== 'Deployment' || o.live === undefined || o.ref.namespace === undefined) {
    return []
  }
  const selector = labelSelectorOf(o.live)
  if (selector === undefined) return []
  const sets = await watcher.list(
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: o.ref.namespace },
    { labelSelector: selector }
  )
  const created = (r: JsonObject): string => text(field(r, ['metadata', 'creationTimestamp']))
  return sets
    .sort((a, b) => created(b).localeCompare(created(a)))
    .slice(0, 2)
    .map((r) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      namespace: o.ref.namespace as string,
      name: nameOf(r)
    }))
}

async function podsOf(o: ObjectHealth, watcher: ObjectWatcher): Promise<JsonObject[]> {
  const group = o.ref.apiVersion.includes('/') ? o.ref.apiVersion.split('/')[0] : ''
  if (group === '' && o.ref.kind === 'Pod') return o.live === undefined ? [] : [o.live]
  if (!WORKLOADS.has(`${group}/${o.ref.kind}`) || o.live === undefined) return []
  const selector = labelSelectorOf(o.live)
  if (selector === undefined || o.ref.namespace === undefined) return []
  return await watcher.list(
    { apiVersion: 'v1', kind: 'Pod', namespace: o.ref.namespace },
    { labelSelector: selector }
  )
}

/** `spec.selector.matchLabels` as a label selector (`a=b,c=d`); undefined when it has none. */
export function labelSelectorOf(workload: JsonObject): string | undefined {
  const labels = field(workload, ['spec', 'selector', 'matchLabels'])
  if (!isObject(labels)) return undefined
  const pairs = Object.entries(labels).flatMap(([k, v]) =>
    typeof v === 'string' ? [`${k}=${v}`] : []
  )
  return pairs.length === 0 ? undefined : pairs.join(',')
}

/**
 * What is wrong with a Pod, one line per container that waits or died (init containers
 * first), or its scheduling condition: `app: ImagePullBackOff (image registry.example/app:1):
 * Back-off pulling image`, `app: CrashLoopBackOff, last exit code 1 (Error)`.
 */
export function podProblems(pod: JsonObject): string[] {
  const lines: string[] = []
  const specImages = new Map<string, string>()
  for (const list of ['initContainers', 'containers']) {
    const containers = field(pod, ['spec', list])
    if (!Array.isArray(containers)) continue
    for (const c of containers) {
      if (isObject(c) && typeof c.name === 'string' && typeof c.image === 'string') {
        specImages.set(c.name, c.image)
      }
    }
  }
  for (const list of ['initContainerStatuses', 'containerStatuses']) {
    const statuses = field(pod, ['status', list])
    if (!Array.isArray(statuses)) continue
    for (const s of statuses) {
      if (!isObject(s) || typeof s.name !== 'string') continue
      const line = containerProblem(s, specImages.get(s.name))
      if (line !== undefined) lines.push(`${s.name}: ${line}`)
    }
  }
  const conditions = field(pod, ['status', 'conditions'])
  if (lines.length === 0 && Array.isArray(conditions)) {
    for (const c of conditions) {
      if (isObject(c) && c.type === 'PodScheduled' && c.status === 'False') {
        lines.push(`not scheduled: ${text(c.reason)}${c.message ? `: ${text(c.message)}` : ''}`)
      }
    }
  }
  return lines
}

function containerProblem(s: JsonObject, specImage: string | undefined): string | undefined {
  const waiting = field(s, ['state', 'waiting'])
  const terminated = field(s, ['state', 'terminated'])
  const last = field(s, ['lastState', 'terminated'])
  const image = typeof s.image === 'string' && s.image !== '' ? s.image : specImage
  if (isObject(waiting)) {
    const reason = text(waiting.reason)
    if (reason === '' || reason === 'ContainerCreating' || reason === 'PodInitializing') {
      return undefined
    }
    const message = waiting.message ? `: ${text(waiting.message)}` : ''
    if (
      reason === 'ImagePullBackOff' ||
      reason === 'ErrImagePull' ||
      reason === 'InvalidImageName'
    ) {
      return `${reason} (image ${image ?? 'unknown'})${message}`
    }
    if (reason === 'CrashLoopBackOff') {
      const exit = isObject(last)
        ? `, last exit code ${text(last.exitCode)}${last.reason ? ` (${text(last.reason)})` : ''}`
        : ''
      return `CrashLoopBackOff${exit}, restarted ${text(s.restartCount) || '0'} times`
    }
    return `${reason}${message}`
  }
  if (isObject(terminated) && terminated.exitCode !== 0) {
    return `terminated with exit code ${text(terminated.exitCode)}${terminated.reason ? ` (${text(terminated.reason)})` : ''}`
  }
  if (s.ready === false && field(s, ['state', 'running']) !== undefined) return 'running, not ready'
  return undefined
}

function podReady(pod: JsonObject): boolean {
  const phase = field(pod, ['status', 'phase'])
  if (phase === 'Succeeded') return true
  const conditions = field(pod, ['status', 'conditions'])
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isObject(c) && c.type === 'Ready' && c.status === 'True')
  )
}

async function warningEvents(ref: HealthRef, watcher: ObjectWatcher): Promise<JsonObject[]> {
  if (ref.namespace === undefined) return []
  return await watcher.list(
    { apiVersion: 'v1', kind: 'Event', namespace: ref.namespace },
    {
      fieldSelector: `involvedObject.kind=${ref.kind},involvedObject.name=${ref.name},type=Warning`
    }
  )
}

function eventTime(e: JsonObject): number {
  for (const key of ['lastTimestamp', 'eventTime', 'firstTimestamp']) {
    const value = e[key]
    if (typeof value === 'string') {
      const ms = Date.parse(value)
      if (!Number.isNaN(ms)) return ms
    }
  }
  const created = field(e, ['metadata', 'creationTimestamp'])
  return typeof created === 'string' ? Date.parse(created) || 0 : 0
}

function eventLine(e: JsonObject): string {
  const kind = text(field(e, ['involvedObject', 'kind']))
  const name = text(field(e, ['involvedObject', 'name']))
  const count = typeof e.count === 'number' && e.count > 1 ? ` (×${e.count})` : ''
  return clipText(`${kind} ${name}: ${text(e.reason)}${count}: ${text(e.message)}`)
}

function clipText(line: string): string {
  const flat = line.replace(/\s+/g, ' ').trim()
  return flat.length <= MAX_TEXT ? flat : `${flat.slice(0, MAX_TEXT - 1)}…`
}

function nameOf(o: JsonObject): string {
  return text(field(o, ['metadata', 'name']))
}

function text(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return ''
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
