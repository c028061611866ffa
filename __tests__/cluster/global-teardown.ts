// Jest globalTeardown of the integration project: stops the cluster globalSetup started
// (same process, so it is handed over on globalThis).
import { stopCluster } from './launcher.js'

export default async function globalTeardown(): Promise<void> {
  const cluster = globalThis.__tazunaTestCluster
  if (!cluster) return
  globalThis.__tazunaTestCluster = undefined
  await stopCluster(cluster)
}
