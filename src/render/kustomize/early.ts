/**
 * Kustomize renders started while a sync waits for its State read
 * (docs/renderers.md#renders-started-early). With render records a manifest renders only once
 * the State read shows its record does not hold; across a network that read waits for the
 * handshake, the lock and the list, round trips in which the cores are idle. Once the wait has
 * lasted `waitMs` (so that a cluster that answers at once, as on loopback, starts none and a
 * no-change sync there pays nothing), the directories given start rendering in their order
 * (layer order), `limit` at a time, each finished one making room for the next, until the read
 * answers. A manifest whose record does not hold takes the render started for its directory; one
 * whose record holds never does, and the run does not wait for it (RenderModule.letGo).
 */
import type { RenderModule } from '../ports.js'

/** Renders started early, and the module that hands them to the manifests that take them. */
export interface EarlyRenders {
  /** `module`, whose kustomize() of a directory started early takes that render. */
  module: RenderModule
  /** Renders started early that no manifest took. */
  untaken(): number
}

export interface EarlyOptions {
  /** The State read: once it settles, nothing more starts. */
  read: Promise<unknown>
  /** Resolves after `ms` (the engine's clock). */
  sleep: (ms: number) => Promise<void>
  /** Infinity: nothing starts early. */
  waitMs: number
  /** Directories that may start early, in the order they are needed. */
  dirs: readonly string[]
  /** Renders started early at a time. */
  limit: number
}

export function earlyKustomize(module: RenderModule, options: EarlyOptions): EarlyRenders {
  let read = false
  const settled = () => (read = true)
  options.read.then(settled, settled)
  const started = new Map<string, Promise<string>>()
  // Directories a manifest rendered itself or took: they are not started (again).
  const taken = new Set<string>()
  const queue = [...new Set(options.dirs)]
  let running = 0
  const startNext = (): void => {
    while (!read && running < options.limit && queue.length > 0) {
      const dir = queue.shift()!
      if (taken.has(dir)) continue
      running++
      const rendering = module.kustomize(dir)
      started.set(dir, rendering)
      const done = () => {
        running--
        startNext()
      }
      // A failure is reported by the manifest that takes the render, if one does.
      rendering.then(done, done)
    }
  }
  if (queue.length > 0 && Number.isFinite(options.waitMs))
    void options.sleep(options.waitMs).then(startNext)
  // Everything else of `module` as it is, with its own `this`.
  const wrapped = Object.assign(Object.create(module) as RenderModule, {
    kustomize(dir: string): Promise<string> {
      const early = started.get(dir)
      const first = !taken.has(dir)
      taken.add(dir)
      return early !== undefined && first ? early : module.kustomize(dir)
    }
  })
  return {
    module: wrapped,
    untaken: () => [...started.keys()].filter((dir) => !taken.has(dir)).length
  }
}
