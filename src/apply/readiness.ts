/**
 * helmfile `wait: true` (docs/compatibility.md#readiness): after a manifest's objects are applied,
 * wait until each is ready, one after another, sharing one timeout.
 */
import { isReady } from '../state/readiness.js'
import type { Clock, Cluster, ObjectRef } from './ports.js'

const POLL_MS = 2000
/** `timeoutSeconds` ≤ 0 means this many seconds (docs/compatibility.md#readiness). */
export const DEFAULT_WAIT_SECONDS = 300

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
