/**
 * Whether a kubeconfig is there to be found, without client-node: main.ts asks it on every
 * Diff run, and importing client-node's module graph (a chunk of its own in the bundle, loaded
 * only by commands that talk to a cluster) would cost every run its start-up.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'

/** Where a pod's ServiceAccount token is mounted (in-cluster configuration). */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token'

/**
 * Whether an ambient kubeconfig exists where loadKubeConfig (./config.ts) looks (KUBECONFIG set,
 * ~/.kube/config, in-cluster), without reading it.
 */
export function hasAmbientKubeconfig(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string
): boolean {
  if ((env.KUBECONFIG ?? '') !== '') return true
  if (existsSync(path.join(homeDir, '.kube', 'config'))) return true
  return Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync(SERVICE_ACCOUNT_TOKEN)
}
