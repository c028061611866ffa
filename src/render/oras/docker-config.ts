/**
 * Registry credentials from a Docker config file, as oras-go's file store reads them
 * (docs/compatibility.md#oras): the `auths` entry of the registry (its key as written, else
 * a key that names the same host with a scheme or path, e.g. `https://host/`), from `auth`
 * (base64 of `user:password`) or else `username` and `password`. Credential helpers
 * (`credsStore`, `credHelpers`) are programs tazuna-action does not run: when one would answer
 * for the registry, the caller warns and the `auths` entry, if any, is used.
 */
import type { RegistryCredentials } from '../../oci/registry-client.js'

/** What the Docker config says for one registry. */
export interface DockerCredentials {
  /** Undefined when the file has nothing usable for the registry (anonymous then). */
  credentials?: RegistryCredentials
  /** The credential helper oras-go would ask instead (`docker-credential-<name>`). */
  helper?: string
}

/** The file is not JSON or an `auth` value is malformed; the message names the file. */
export class DockerConfigError extends Error {
  override name = 'DockerConfigError'
}

interface AuthEntry {
  auth?: unknown
  username?: unknown
  password?: unknown
}

/** The registry's entry in the config's text; `file` names it in errors. */
export function dockerCredentials(text: string, file: string, registry: string): DockerCredentials {
  let config: { auths?: unknown; credsStore?: unknown; credHelpers?: unknown }
  try {
    config = JSON.parse(text) as typeof config
  } catch (error) {
    throw new DockerConfigError(`${file}: not valid JSON: ${(error as Error).message}`)
  }
  if (typeof config !== 'object' || config === null) {
    throw new DockerConfigError(`${file}: not a JSON object`)
  }
  const server = serverAddress(registry)
  const helpers = isRecord(config.credHelpers) ? config.credHelpers : {}
  const named = helpers[server] ?? config.credsStore
  const helper = typeof named === 'string' && named !== '' ? named : undefined
  const auths = isRecord(config.auths) ? config.auths : {}
  const entry = auths[server] ?? Object.entries(auths).find(([key]) => hostOf(key) === server)?.[1]
  const credentials = isRecord(entry) ? credentialsOf(entry, file, server) : undefined
  return { ...(credentials ? { credentials } : {}), ...(helper ? { helper } : {}) }
}

/** oras-go's ServerAddressFromRegistry: Docker Hub is keyed by its legacy index URL. */
function serverAddress(registry: string): string {
  return registry === 'docker.io' ? 'https://index.docker.io/v1/' : registry
}

/** oras-go's ToHostname: the key without scheme and path. */
function hostOf(key: string): string {
  const withoutScheme = key.replace(/^https?:\/\//, '')
  return withoutScheme.split('/')[0] ?? withoutScheme
}

function credentialsOf(
  entry: AuthEntry,
  file: string,
  server: string
): RegistryCredentials | undefined {
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) {
      throw new DockerConfigError(
        `${file}: the auth value for ${server} is not base64 of user:password`
      )
    }
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
  }
  const username = typeof entry.username === 'string' ? entry.username : ''
  const password = typeof entry.password === 'string' ? entry.password : ''
  return username === '' && password === '' ? undefined : { username, password }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
