/**
 * Finds and loads the ambient kubeconfig the way kubectl and Tazuna do
 * (docs/compatibility.md#command-line-and-kubeconfig: `KUBECONFIG`, `~/.kube/config`, in-cluster),
 * but fails fast with guidance where client-node's `loadFromDefault()` would silently fall back to
 * `http://localhost:8080` without credentials.
 */
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import { ClusterError, NoKubeconfigError } from '../../errors.js'
import { SERVICE_ACCOUNT_TOKEN } from './ambient-kubeconfig.js'

const GUIDANCE =
  'Set up cluster access before this step (for example azure/k8s-set-context, ' +
  '`aws eks update-kubeconfig`, google-github-actions/get-gke-credentials) or point ' +
  'KUBECONFIG at a kubeconfig file.'

/** Where the kubeconfig came from, for messages. */
export interface LoadedKubeConfig {
  kubeConfig: KubeConfig
  /** The files read, or `in-cluster`. */
  source: string
  server: string
  context: string
}

/** Options for {@link loadKubeConfig}; `env` defaults to the process environment. */
export interface KubeConfigOptions {
  env?: Readonly<Record<string, string | undefined>>
  homeDir?: string
}

/**
 * Loads the current context's cluster and user. KUBECONFIG may list several files (merged
 * like kubectl, missing ones skipped); a kubeconfig without a usable current context, or no
 * kubeconfig at all, is a ClusterError that says how to fix it. Never contacts the server.
 */
export function loadKubeConfig(options: KubeConfigOptions = {}): LoadedKubeConfig {
  const env = options.env ?? process.env
  const kc = new KubeConfig()
  const source = loadInto(kc, env, options.homeDir ?? os.homedir())
  return { kubeConfig: kc, source, ...currentTarget(kc, source) }
}

function loadInto(
  kc: KubeConfig,
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string
): string {
  const listed = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '')
  if (listed.length > 0) {
    const files = listed.filter((f) => existsSync(f))
    if (files.length === 0) {
      throw new ClusterError(
        `KUBECONFIG names no existing file (${listed.join(', ')}). ${GUIDANCE}`
      )
    }
    loadFiles(kc, files)
    return files.join(path.delimiter)
  }
  const home = path.join(homeDir, '.kube', 'config')
  if (existsSync(home)) {
    loadFiles(kc, [home])
    return home
  }
  if (env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster()
    return 'in-cluster'
  }
  throw new NoKubeconfigError(
    `no kubeconfig found: KUBECONFIG is not set and ${home} does not exist. ${GUIDANCE}`
  )
}

function loadFiles(kc: KubeConfig, files: readonly string[]): void {
  files.forEach((file, i) => {
    const target = i === 0 ? kc : new KubeConfig()
    try {
      target.loadFromFile(file)
    } catch (error) {
      throw new ClusterError(`cannot read kubeconfig ${file}: ${safeReason(error)}`)
    }
    if (i > 0) kc.mergeConfig(target, true)
  })
}

// A YAML parser's message quotes file content (possibly a token); client-node's own entry
// checks (`users[0].name is missing`) and errno codes are safe to show.
function safeReason(error: unknown): string {
  if (!(error instanceof Error)) return 'not a valid kubeconfig'
  if (/^(clusters|users|contexts)\[\d+\]/.test(error.message)) return error.message
  const code = (error as NodeJS.ErrnoException).code
  return code === undefined ? 'not a valid kubeconfig (YAML)' : code
}

function currentTarget(kc: KubeConfig, source: string): { server: string; context: string } {
  const context = kc.getCurrentContext()
  if (!context) {
    throw new ClusterError(
      `kubeconfig ${source} has no current-context; select one (kubectl config use-context NAME). ${GUIDANCE}`
    )
  }
  if (!kc.getContextObject(context)) {
    throw new ClusterError(`kubeconfig ${source}: current-context "${context}" is not defined`)
  }
  const cluster = kc.getCurrentCluster()
  if (!cluster?.server) {
    throw new ClusterError(
      `kubeconfig ${source}: context "${context}" names no cluster with a server address`
    )
  }
  return { server: cluster.server.replace(/\/+$/, ''), context }
}
