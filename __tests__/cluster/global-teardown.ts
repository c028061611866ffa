// Jest globalTeardown of the integration project: stops the cluster globalSetup started.
// Both run in Jest's parent process, so setup hands over a stop function on globalThis
// (and this file needs no imports; see ts-resolve.mjs for why that matters).
export default async function globalTeardown(): Promise<void> {
  const stop = globalThis.__tazunaTestClusterStop
  globalThis.__tazunaTestClusterStop = undefined
  if (stop) await stop()
}
