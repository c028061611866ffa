// In-memory stand-ins for the apply core's ports (not mocks of real parts: the real adapters
// are exercised against the real API server in __tests__/integration/cluster).
import type {
  ApplyLog,
  Clock,
  Cluster,
  ObjectRef,
  SaveOptions,
  StateStore,
  StoredState
} from '../../../src/apply/ports.js'
import { emptyState, type State } from '../../../src/state/state.js'
import type { JsonObject } from '../../../src/go/yaml.js'

/** A clock whose sleeps advance time instantly. */
export function fakeClock(start = Date.UTC(2026, 4, 8, 1, 2, 3)): Clock & { slept: number[] } {
  let now = start
  const slept: number[] = []
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms)
      now += ms
      return Promise.resolve()
    }
  }
}

function refKey(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`
}

function refOfObject(o: JsonObject): ObjectRef {
  const md = (o.metadata ?? {}) as JsonObject
  return {
    apiVersion: o.apiVersion as string,
    kind: o.kind as string,
    ...(typeof md.namespace === 'string' ? { namespace: md.namespace } : {}),
    name: md.name as string
  }
}

/** A cluster that stores applied objects; objects named in `failOn` fail to apply. */
export class FakeCluster implements Cluster {
  readonly objects = new Map<string, JsonObject>()
  readonly calls: string[] = []
  failOn = new Set<string>()
  /** Called before every apply (to observe concurrency). */
  onApply: (o: JsonObject) => Promise<void> = () => Promise.resolve()

  async apply(o: JsonObject): Promise<void> {
    const ref = refOfObject(o)
    this.calls.push(`apply ${refKey(ref)}`)
    await this.onApply(o)
    if (this.failOn.has(ref.name)) throw new Error(`HTTP 422 Invalid: ${ref.name} is broken`)
    this.objects.set(refKey(ref), o)
  }

  delete(ref: ObjectRef): Promise<void> {
    this.calls.push(`delete ${refKey(ref)}`)
    this.objects.delete(refKey(ref))
    return Promise.resolve()
  }

  get(ref: ObjectRef): Promise<JsonObject | undefined> {
    this.calls.push(`get ${refKey(ref)}`)
    return Promise.resolve(this.objects.get(refKey(ref)))
  }
}

/** A State store in memory; records saves. */
export class FakeStore implements StateStore {
  readonly states = new Map<string, State>()
  readonly saves: { manifest: string; state: State; options: SaveOptions }[] = []
  readManyCalls = 0

  read(manifest: string): Promise<StoredState> {
    const state = this.states.get(manifest)
    return Promise.resolve(state ? { state, resourceVersion: '1' } : { state: emptyState() })
  }

  async readMany(manifests: readonly string[]): Promise<Map<string, StoredState>> {
    this.readManyCalls++
    const out = new Map<string, StoredState>()
    for (const m of manifests) out.set(m, await this.read(m))
    return out
  }

  save(manifest: string, state: State, options: SaveOptions): Promise<void> {
    this.saves.push({ manifest, state, options })
    this.states.set(manifest, state)
    return Promise.resolve()
  }
}

/** Collects log lines. */
export function memoryLog(): ApplyLog & { lines: string[] } {
  const lines: string[] = []
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`) }
}
