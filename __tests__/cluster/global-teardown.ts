// Jest globalTeardown of the integration project: stops the cluster globalSetup started,
// then leaves the run's temporary root (the last project to leave removes it and checks
// for litter). Both run in Jest's parent process, so setup hands over what to call on
// globalThis (and this file needs no imports; see ts-resolve.mjs for why that matters).
export default async function globalTeardown(): Promise<void> {
  const stop = globalThis.__tazunaTestClusterStop
  globalThis.__tazunaTestClusterStop = undefined
  try {
    if (stop) await stop()
  } finally {
    globalThis.__tazunaTestRunRootRelease?.()
  }
}
