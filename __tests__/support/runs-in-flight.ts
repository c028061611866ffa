// Command line runs a test started and has not seen end: when a test times out (or forgets to
// await a run), its run would go on writing to the test cluster while the next test runs.
// `afterEach` (support/end-runs-after-each.ts, jest.config.js setupFilesAfterEnv) aborts every
// run still in flight and waits until each has ended. Kept apart from support/cli.ts, which
// loads the whole engine, so that every test file can have the hook for nothing.

interface RunInFlight {
  controller: AbortController
  ended: Promise<void>
}

const inFlight = new Set<RunInFlight>()

/** Runs `start` with a signal that ends it when its test is over; returns its result. */
export function trackRun<T>(start: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  const result = start(controller.signal)
  const run: RunInFlight = {
    controller,
    ended: result.then(
      () => undefined,
      () => undefined
    )
  }
  inFlight.add(run)
  void run.ended.then(() => inFlight.delete(run))
  return result
}

/** Aborts every run still in flight and waits until all have ended; returns how many. */
export async function endRunsInFlight(reason: string): Promise<number> {
  const runs = [...inFlight]
  for (const run of runs) run.controller.abort(reason)
  await Promise.all(runs.map((run) => run.ended))
  return runs.length
}
