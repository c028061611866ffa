// Where the binaries built by scripts/build-tools.sh are: environment variables first (so a
// developer can point at their own builds), else the env.sh that script writes.
import { existsSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface ToolPaths {
  kubeApiserver: string
  kubeControllerManager: string
  kubeScheduler: string
  /** Plays the kubelet of the fake Nodes (launcher.ts). */
  kwok: string
  etcd: string
  helm: string
  kustomize: string
  /** The oras CLI, which pushes the artifacts of the `type: oras` tests. */
  oras: string
  /** The Tazuna CLI oracle, when the developer supplied one (it cannot be built here). */
  tazuna: string | undefined
}

const VARS = {
  kubeApiserver: 'KUBE_APISERVER_BIN',
  kubeControllerManager: 'KUBE_CONTROLLER_MANAGER_BIN',
  kubeScheduler: 'KUBE_SCHEDULER_BIN',
  kwok: 'KWOK_BIN',
  etcd: 'ETCD_BIN',
  helm: 'HELM_BIN',
  kustomize: 'KUSTOMIZE_BIN',
  oras: 'ORAS_BIN'
} as const

/** The cache root shared with scripts/build-tools.sh and scripts/node24.sh. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TAZUNA_ACTION_CACHE || path.join(os.homedir(), '.cache', 'tazuna-action')
}

/**
 * The env file build-tools.sh writes for the Kubernetes that TAZUNA_TEST_K8S selects:
 * env.sh for the default (newest), env-1.35.sh for `TAZUNA_TEST_K8S=1.35`.
 */
export function envFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const variant = env.TAZUNA_TEST_K8S
  return path.join(cacheDir(env), 'tools', variant ? `env-${variant}.sh` : 'env.sh')
}

/** Resolves every tool path or throws one error naming all that are missing. */
export function resolveToolPaths(env: NodeJS.ProcessEnv = process.env): ToolPaths {
  const envFile = envFilePath(env)
  const fromFile = existsSync(envFile) ? parseEnvFile(readFileSync(envFile, 'utf8')) : {}
  const lookup = (name: string): string | undefined => env[name] || fromFile[name]
  const missing: string[] = []
  const resolved = Object.fromEntries(
    Object.entries(VARS).map(([key, name]) => {
      const value = lookup(name)
      if (!value || !existsSync(value)) missing.push(`${name}=${value ?? '(unset)'}`)
      return [key, value ?? '']
    })
  ) as Record<keyof typeof VARS, string>
  if (missing.length > 0) {
    throw new Error(
      `test tools not found (${missing.join(', ')}); run \`bash scripts/build-tools.sh\` ` +
        `(writes ${envFile}) or set the variables to existing binaries`
    )
  }
  // The oracle from this run's own environment only, never the shared file (scripts/build-tools.sh).
  return { ...resolved, tazuna: env.TAZUNA_BIN || undefined }
}

/** Reads `export NAME=value` lines as written by build-tools.sh (values quoted by printf %q). */
export function parseEnvFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const m = /^export ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim())
    if (m?.[1] && m[2] !== undefined) vars[m[1]] = unquote(m[2])
  }
  return vars
}

function unquote(value: string): string {
  if (value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1)
  return value.replace(/\\(.)/g, '$1')
}
