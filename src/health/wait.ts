/**
 * The health wait after a layer (docs/health.md#wait): every object the layer applied must be
 * Current (kstatus, ./kstatus.ts) at once; a Failed object ends the wait at once; the timeout
 * ends it naming every object that is not Current. The objects are read by watches (one list,
 * then a watch from its resourceVersion, per kind and namespace), not polled: the wait ends on
 * the event that made the last object Current.
 */
import type { JsonObject } from '../go/json-value.js'
import { computeStatus, type KStatus } from './kstatus.js'
import type { ObjectWatcher, WatchEvent, WatchTarget } from './ports.js'

/** One object to wait for (the apply core's ObjectRef). */
export interface HealthRef {
  apiVersion: string
  kind: string
  namespace?: string
  name: string
}

/** Where one object ended up. */
export interface ObjectHealth {
  ref: HealthRef
  status: KStatus
  /** kstatus's message ("Progress deadline exceeded", "Ready: 1/2"). */
  message: string
  /** The reason of kstatus's condition (ProgressDeadlineExceeded, LessReady), when it has one. */
  reason?: string
  /** Milliseconds from the start of the layer to the last time it became Current. */
  currentAfterMs?: number
  /** The object as last read (undefined: never seen). */
  live?: JsonObject
}

/** How a wait ended. */
export interface HealthOutcome {
  /** Every object Current. */
  healthy: boolean
  /** `cancelled`: the run was (its signal aborted), and the wait ended without a verdict. */
  ended: 'current' | 'failed' | 'timeout' | 'cancelled'
  objects: ObjectHealth[]
  /** Milliseconds from the start of the layer to the end of the wait. */
  durationMs: number
  /** The wait's limit, as the user wrote it (for the timeout message). */
  timeout: string
}

/** The clock of a wait. */
export interface HealthClock {
  now(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

/** What a wait needs. */
export interface HealthWaitOptions {
  timeoutMs: number
  /** The limit as written (`5m`), for messages. */
  timeout: string
  /** When the layer started (`clock.now()`), the origin of every time reported. */
  startedAt: number
  /** The run's cancellation (docs/reliability.md#cancellation): ends the wait at once. */
  signal?: AbortSignal
}

/**
 * Waits until every object of `refs` is Current, one of them is Failed, or the timeout passed.
 * Watches fail the wait (rejects) only when a list fails; no objects: healthy at once.
 */
export async function waitForHealth(
  refs: readonly HealthRef[],
  options: HealthWaitOptions,
  deps: { watcher: ObjectWatcher; clock: HealthClock }
): Promise<HealthOutcome> {
  const { clock } = deps
  const tracked = new Map<string, Tracked>()
  for (const ref of refs) tracked.set(refKey(ref), { ref, listed: false })
  const groups = groupsOf([...tracked.values()])
  const stop = new AbortController()
  const outcome = (ended: HealthOutcome['ended']): HealthOutcome => {
    const objects = [...tracked.values()].map(healthOf)
    return {
      healthy: ended === 'current',
      ended,
      objects,
      durationMs: clock.now() - options.startedAt,
      timeout: options.timeout
    }
  }
  if (tracked.size === 0) return outcome('current')
  if (options.signal?.aborted === true) return outcome('cancelled')
  return await new Promise<HealthOutcome>((resolve, reject) => {
    let done = false
    const onCancel = (): void => finish(outcome('cancelled'))
    const finish = (result: HealthOutcome | Error): void => {
      if (done) return
      done = true
      stop.abort()
      options.signal?.removeEventListener('abort', onCancel)
      if (result instanceof Error) reject(result)
      else resolve(result)
    }
    options.signal?.addEventListener('abort', onCancel, { once: true })
    const evaluate = (): void => {
      const now = clock.now()
      let allCurrent = true
      let anyFailed = false
      for (const t of tracked.values()) {
        if (!t.listed) {
          allCurrent = false
          continue
        }
        const before = t.result?.status
        t.result =
          t.live === undefined
            ? { status: 'NotFound', message: 'Resource not found', conditions: [] }
            : computeStatus(t.live, now)
        if (t.result.status === 'Current' && before !== 'Current') {
          t.currentAfterMs = now - options.startedAt
        }
        if (t.result.status !== 'Current') allCurrent = false
        if (t.result.status === 'Failed') anyFailed = true
      }
      if (anyFailed) finish(outcome('failed'))
      else if (allCurrent) finish(outcome('current'))
    }
    for (const group of groups) {
      const onEvent = (event: WatchEvent): void => {
        if (done) return
        if (event.type === 'LISTED') {
          for (const t of group.members) {
            t.listed = true
            t.live = undefined
          }
          for (const object of event.objects) place(group, object, tracked)
        } else if (event.type === 'DELETED') {
          const t = tracked.get(keyOfLive(group.target, event.object))
          if (t !== undefined) t.live = undefined
        } else {
          place(group, event.object, tracked)
        }
        evaluate()
      }
      deps.watcher
        .watch(group.target, onEvent, stop.signal)
        .catch((error: unknown) =>
          finish(error instanceof Error ? error : new Error(String(error)))
        )
    }
    void clock.sleep(options.timeoutMs, stop.signal).then(() => {
      if (!stop.signal.aborted) {
        evaluate()
        finish(outcome('timeout'))
      }
    })
  })
}

interface Tracked {
  ref: HealthRef
  /** The group's list arrived (until then the object's state is not known). */
  listed: boolean
  live?: JsonObject
  result?: ReturnType<typeof computeStatus>
  currentAfterMs?: number
}

interface Group {
  target: WatchTarget
  members: Tracked[]
}

function refKey(ref: HealthRef): string {
  return `${ref.apiVersion}\n${ref.kind}\n${ref.namespace ?? ''}\n${ref.name}`
}

function keyOfLive(target: WatchTarget, object: JsonObject): string {
  const meta =
    typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {}
  const { name, namespace } = meta as { name?: unknown; namespace?: unknown }
  return refKey({
    apiVersion: target.apiVersion,
    kind: target.kind,
    ...(typeof namespace === 'string' && namespace !== '' ? { namespace } : {}),
    name: typeof name === 'string' ? name : ''
  })
}

function place(group: Group, object: JsonObject, tracked: Map<string, Tracked>): void {
  const t = tracked.get(keyOfLive(group.target, object))
  if (t !== undefined) {
    t.live = { apiVersion: group.target.apiVersion, kind: group.target.kind, ...object }
  }
}

// One watch per kind and namespace; a single object is watched by name.
function groupsOf(all: readonly Tracked[]): Group[] {
  const byTarget = new Map<string, Tracked[]>()
  for (const t of all) {
    const key = `${t.ref.apiVersion}\n${t.ref.kind}\n${t.ref.namespace ?? ''}`
    byTarget.set(key, [...(byTarget.get(key) ?? []), t])
  }
  return [...byTarget.values()].map((members) => {
    const first = (members[0] as Tracked).ref
    const target: WatchTarget = {
      apiVersion: first.apiVersion,
      kind: first.kind,
      ...(first.namespace === undefined ? {} : { namespace: first.namespace }),
      ...(members.length === 1 ? { name: first.name } : {})
    }
    return { target, members }
  })
}

function healthOf(t: Tracked): ObjectHealth {
  const result = t.result ?? {
    status: 'Unknown' as const,
    message: 'not read yet (the list of its kind had not arrived)',
    conditions: []
  }
  const reason = result.conditions[0]?.reason
  return {
    ref: t.ref,
    status: result.status,
    message: result.message,
    ...(reason === undefined || reason === '' ? {} : { reason }),
    ...(t.result?.status === 'Current' && t.currentAfterMs !== undefined
      ? { currentAfterMs: t.currentAfterMs }
      : {}),
    ...(t.live === undefined ? {} : { live: t.live })
  }
}
