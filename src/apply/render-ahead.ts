/**
 * Rendering ahead (docs/ARCHITECTURE.md#rendering-ahead): an apply renders layer by layer, with
 * a barrier between layers, and each layer waits for its renders before its first request. The
 * renders of manifests whose output depends on the repository's files alone can start at once,
 * in layer order, while the lock is taken and earlier layers apply; each layer then takes its
 * render when it reaches it. They share the cores, so they run a few at a time in that order,
 * and the renders a layer asks for go first: the first layer's renders finish as early as they
 * can, and a later layer's while the earlier ones apply. What a manifest renders is unchanged,
 * and so is when a failure shows: a render's error is reported by its own layer, never earlier,
 * and a layer that is never reached never reports it.
 */
import type { BuildDesired, DesiredState, ManifestUnit } from './manifest-unit.js'

/**
 * The manifests whose render reads nothing but files of the repository: kustomize. Not Helm
 * (capabilities come from the cluster as it stands when the release renders), genesissecret
 * (secret providers) or oras (a registry).
 */
export function rendersFromFilesOnly(m: ManifestUnit): boolean {
  return m.type === 'kustomize'
}

/**
 * `build`, with `ahead` (in the order given: layer order) already rendering, at most `limit` at
 * a time; a manifest not among them renders when asked. A queued manifest its layer asks for
 * goes to the front of the queue, still within the limit: the renders share the cores, and
 * renders of later layers started beside it would only make it finish later. Each early render
 * is handed out once.
 */
export function renderingAhead<M extends ManifestUnit>(
  ahead: readonly M[],
  build: BuildDesired<M>,
  limit: number
): BuildDesired<M> {
  const started = new Map<M, Promise<DesiredState>>()
  const queue = [...ahead]
  // A manifest asked for while queued: its render, once it starts.
  const waiting = new Map<M, (render: Promise<DesiredState>) => void>()
  let running = 0
  const startNext = (): void => {
    while (running < limit && queue.length > 0) {
      const m = queue.shift()!
      running++
      const render = build(m)
      // Reported by the layer that takes it; a layer never reached never reports it.
      render.catch(() => undefined)
      void render
        .finally(() => {
          running--
          startNext()
        })
        .catch(() => undefined)
      const asked = waiting.get(m)
      if (asked === undefined) started.set(m, render)
      else {
        waiting.delete(m)
        asked(render)
      }
    }
  }
  startNext()
  return (m) => {
    const render = started.get(m)
    if (render !== undefined) {
      started.delete(m)
      return render
    }
    const queued = queue.indexOf(m)
    if (queued < 0 || waiting.has(m)) return build(m)
    // Before every manifest not yet asked for, behind those asked for earlier.
    queue.splice(queued, 1)
    queue.splice(waiting.size, 0, m)
    const turn = new Promise<Promise<DesiredState>>((resolve) => waiting.set(m, resolve))
    return turn.then((r) => r)
  }
}
