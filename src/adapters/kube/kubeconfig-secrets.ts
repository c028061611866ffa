/**
 * Every secret a kubeconfig holds, read from the parsed document (YAML or JSON, any style), so
 * the action can mask each bare value before anything is logged. A line regex misses flow-style
 * and quoted entries, JSON kubeconfigs, and the fields of auth providers and exec plugins.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parseAllDocuments } from 'yaml'

/** Fields of `users[].user` whose value is a credential. */
const USER_SECRET_FIELDS = ['token', 'client-key-data', 'password'] as const

/** Keys of `auth-provider.config` (oidc, gcp, azure) that hold credentials. */
const AUTH_PROVIDER_SECRET = /token|secret|password|key/i

/**
 * The secret values of a kubeconfig's text: user tokens, key data, passwords, the contents of
 * `tokenFile` (read relative to `baseDir`), auth-provider tokens and client secrets, and exec
 * plugin arguments and environment values. Unparsable text gives no value: the caller masks
 * nothing it cannot read, and client-node then refuses the file without quoting it.
 */
export function kubeconfigSecrets(text: string, baseDir = '.'): string[] {
  const found = new Set<string>()
  let docs
  try {
    docs = parseAllDocuments(text, { uniqueKeys: false })
  } catch {
    return []
  }
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    for (const entry of asArray(asRecord(doc.toJS({ maxAliasCount: 100 }))?.users)) {
      collectUser(asRecord(asRecord(entry)?.user), baseDir, found)
    }
  }
  return [...found].filter((value) => value.trim() !== '')
}

function collectUser(
  user: Record<string, unknown> | undefined,
  baseDir: string,
  found: Set<string>
): void {
  if (user === undefined) return
  for (const field of USER_SECRET_FIELDS) addString(user[field], found)
  const tokenFile = user.tokenFile ?? user['token-file']
  if (typeof tokenFile === 'string' && tokenFile !== '') {
    try {
      addString(readFileSync(path.resolve(baseDir, tokenFile), 'utf8').trim(), found)
    } catch {
      // An unreadable token file fails the session later, naming the file, not its content.
    }
  }
  const provider = asRecord(asRecord(user['auth-provider'])?.config)
  for (const [key, value] of Object.entries(provider ?? {})) {
    if (AUTH_PROVIDER_SECRET.test(key)) addString(value, found)
  }
  const exec = asRecord(user.exec)
  for (const arg of asArray(exec?.args)) addString(execArgumentValue(arg), found)
  for (const variable of asArray(exec?.env)) addString(asRecord(variable)?.value, found)
}

/**
 * The part of an exec plugin argument that may be a credential: a flag's name is not (masking
 * `--region` would blank it out of every log line), its `=value` and a bare argument are.
 */
function execArgumentValue(arg: unknown): unknown {
  if (typeof arg !== 'string' || !arg.startsWith('-')) return arg
  const eq = arg.indexOf('=')
  return eq < 0 ? undefined : arg.slice(eq + 1)
}

function addString(value: unknown, found: Set<string>): void {
  if (typeof value === 'string' && value !== '') found.add(value)
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/**
 * The secrets of the kubeconfig files a run will read: the given file, else every file of
 * `KUBECONFIG`, else `~/.kube/config`. Missing or unreadable files give nothing.
 */
export function kubeconfigFileSecrets(
  file: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string
): string[] {
  const files =
    file !== undefined
      ? [file]
      : env.KUBECONFIG
        ? env.KUBECONFIG.split(path.delimiter).filter((f) => f !== '')
        : [path.join(homeDir, '.kube', 'config')]
  return files.flatMap((f) => {
    try {
      return kubeconfigSecrets(readFileSync(f, 'utf8'), path.dirname(f))
    } catch {
      return []
    }
  })
}
