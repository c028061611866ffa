/**
 * SIGINT and SIGTERM end an apply, not the process (docs/reliability.md#cancellation). GitHub's
 * runner cancels a job with SIGINT, then SIGTERM 7.5 s later, then SIGKILL 2.5 s after that;
 * Ctrl-C on the command line is SIGINT.
 *
 * - The first signal aborts `signal`: no request starts any more but the run lock's upkeep and
 *   the State writes of manifests whose objects were all applied; the run ends, and its
 *   entry point reports what it did.
 * - A second signal, or the grace period running out first, stops the process at once: the
 *   tasks registered with `beforeExit` (the lock's release) run first, within a short bound,
 *   then the process exits 130 (SIGINT) or 143 (SIGTERM).
 */
import { setTimeout as sleep } from 'node:timers/promises'

/** Why and how a run stops; the engine gets `signal` and `beforeExit` (EnginePorts). */
export interface Termination {
  signal: AbortSignal
  beforeExit: (task: () => Promise<void>) => () => void
  /** Removes the handlers: signals kill the process again. */
  dispose(): void
}

/** What the process does around a stop; defaults are this process's own. */
export interface TerminationOptions {
  /** Told at the first signal, with its name. */
  onFirst?: (signal: string) => void
  /** Told when the process stops at once, and why. */
  onUrgent?: (why: string) => void
  /**
   * How long the run may take to end after the first signal before it is stopped at once:
   * well inside the runner's 7.5 s, which leave room for the report after the run ends.
   */
  graceMs?: number
  /** How long the tasks of an urgent stop may take before the process exits anyway. */
  releaseMs?: number
  exit?: (code: number) => void
}

const GRACE_MS = 5000
const RELEASE_MS = 2000
const SIGNALS = ['SIGINT', 'SIGTERM'] as const
const EXIT_CODES: Record<(typeof SIGNALS)[number], number> = { SIGINT: 130, SIGTERM: 143 }

/** Installs the handlers for SIGINT and SIGTERM (see the module comment). */
export function stopOnSignals(options: TerminationOptions = {}): Termination {
  const controller = new AbortController()
  const tasks = new Set<() => Promise<void>>()
  // The one place that ends the process itself: an urgent stop must not wait for anything.
  // eslint-disable-next-line no-restricted-properties
  const exit = options.exit ?? ((code: number) => process.exit(code))
  let first: (typeof SIGNALS)[number] | undefined
  let stopping = false

  const stopNow = async (why: string): Promise<void> => {
    if (stopping) return
    stopping = true
    options.onUrgent?.(why)
    const released = Promise.allSettled([...tasks].map((task) => task()))
    await Promise.race([
      released,
      sleep(options.releaseMs ?? RELEASE_MS, undefined, { ref: false })
    ])
    exit(EXIT_CODES[first ?? 'SIGINT'])
  }
  const onSignal = (name: (typeof SIGNALS)[number]): void => {
    if (first !== undefined) {
      void stopNow(`${name} after ${first}`)
      return
    }
    first = name
    controller.abort(name)
    options.onFirst?.(name)
    const grace = options.graceMs ?? GRACE_MS
    // Unreferenced: a run that ends in time exits without waiting for it.
    setTimeout(
      () => void stopNow(`the run had not ended ${grace / 1000} s after ${name}`),
      grace
    ).unref()
  }
  for (const name of SIGNALS) process.on(name, onSignal)
  return {
    signal: controller.signal,
    beforeExit: (task) => {
      tasks.add(task)
      return () => tasks.delete(task)
    },
    dispose() {
      for (const name of SIGNALS) process.off(name, onSignal)
    }
  }
}
