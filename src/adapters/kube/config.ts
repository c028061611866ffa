/**
 * Finds and loads the ambient kubeconfig the way kubectl and Tazuna do
 * (docs/compatibility.md#command-line-and-kubeconfig: `KUBECONFIG`, `~/.kube/config`, in-cluster),
 * but fails fast with guidance where client-node's `loadFromDefault()` would silently fall back to
 * `http://localhost:8080` without credentials. A plain kubeconfig (a token or a client
 * certificate) is read without loading client-node (./plain-kubeconfig.ts); client-node reads
 * every other.
 */
import { existsSync } from 'node:fs'
import type https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import type { KubeConfig } from '@kubernetes/client-node'
import { ClusterError, NoKubeconfigError } from '../../errors.js'
import { SERVICE_ACCOUNT_TOKEN } from './ambient-kubeconfig.js'
import { describeClaims, type IdTokenSource } from './id-token.js'
import { readKubeConfigCluster, readPlainKubeConfig } from './plain-kubeconfig.js'

const GUIDANCE =
  'Set up cluster access before this step (for example azure/k8s-set-context, ' +
  '`aws eks update-kubeconfig`, google-github-actions/get-gke-credentials) or point ' +
  'KUBECONFIG at a kubeconfig file.'

/** How the client authenticates to the current context's server. */
export interface KubeCredentials {
  /**
   * Exec plugins and auth providers (token files, OIDC) can rotate credentials mid-run: they are
   * asked again for every request, as client-node does.
   */
  rotates: boolean
  /** The cluster's `proxy-url`: requests then go through client-node's proxy agent. */
  viaProxy: boolean
  /** Sets the TLS material and headers of a request (client-node's `applyToHTTPSOptions`). */
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>
  /**
   * The API server answered 401 to the options `applyToHTTPSOptions` set: true when the
   * credential was renewed and the request is worth sending once more (cluster-auth
   * github-oidc; a kubeconfig's credentials are never retried).
   */
  renewAfterUnauthorized?(sent: https.RequestOptions): Promise<boolean>
  /** Why a renewed credential may still be refused: added to the 401's message. */
  explainUnauthorized?(sent: https.RequestOptions): string
}

/** The current context's server and credentials, and where they came from, for messages. */
export interface LoadedKubeConfig {
  credentials: KubeCredentials
  /** The files read, or `in-cluster`. */
  source: string
  server: string
  context: string
  /** Who read it: our plain reader, or client-node. */
  reader: 'plain' | 'client-node'
}

/** Options for {@link loadKubeConfig}; `env` defaults to the process environment. */
export interface KubeConfigOptions {
  env?: Readonly<Record<string, string | undefined>>
  homeDir?: string
  /** cluster-auth github-oidc: the job's ID token is the bearer token (README.md#keyless). */
  bearer?: BearerAuth
  /**
   * Called once with each credential that exists only while the run asks for it: the token or
   * client key an exec plugin or auth provider returns (the action masks it in the job log, as
   * it masks the kubeconfig's own secrets before the run).
   */
  onCredential?: (value: string) => void
}

/** The job's ID token as the credential, to the kubeconfig's cluster or to `server`. */
export interface BearerAuth {
  tokens: IdTokenSource
  /** Input `server`: the API server, instead of the kubeconfig's current context. */
  server?: string
  /** Input `certificate-authority` (PEM) for `server`; absent: the system's roots. */
  certificateAuthority?: string
}

/**
 * Loads the current context's cluster and user. KUBECONFIG may list several files (merged
 * like kubectl, missing ones skipped); a kubeconfig without a usable current context, or no
 * kubeconfig at all, is a ClusterError that says how to fix it. Never contacts the server.
 */
export async function loadKubeConfig(options: KubeConfigOptions = {}): Promise<LoadedKubeConfig> {
  const env = options.env ?? process.env
  const bearerServer = options.bearer?.server
  if (options.bearer && bearerServer !== undefined) {
    return bearerToServer({ ...options.bearer, server: bearerServer })
  }
  const files = kubeconfigFiles(env, options.homeDir ?? os.homedir())
  if (options.bearer !== undefined) return bearerToKubeconfig(options.bearer, files)
  const source = files === 'in-cluster' ? files : files.join(path.delimiter)
  const plain = files === 'in-cluster' ? undefined : readPlainKubeConfig(files)
  if (plain !== undefined) {
    // A promise as client-node's: a CA file that cannot be read rejects, it does not throw.
    const applyToHTTPSOptions = (opts: https.RequestOptions): Promise<void> =>
      new Promise((resolve) => {
        plain.applyToHTTPSOptions(opts)
        resolve()
      })
    return {
      credentials: { rotates: false, viaProxy: false, applyToHTTPSOptions },
      source,
      server: serverOf(plain.server),
      context: plain.context,
      reader: 'plain'
    }
  }
  // Loaded only here: it is a chunk of its own in the bundle (scripts/bundle.sh).
  const { KubeConfig } = await import('@kubernetes/client-node')
  const kc = new KubeConfig()
  if (files === 'in-cluster') kc.loadFromCluster()
  else loadFiles(kc, files, () => new KubeConfig())
  return {
    credentials: credentialsOf(kc, options.onCredential),
    source,
    ...currentTarget(kc, source),
    reader: 'client-node'
  }
}

// Input `server` (and `certificate-authority`): no kubeconfig is read.
function bearerToServer(bearer: BearerAuth & { server: string }): LoadedKubeConfig {
  const ca = bearer.certificateAuthority
  const cluster = ca === undefined ? undefined : Buffer.from(ca)
  return {
    credentials: bearerCredentials(bearer.tokens, (opts) => {
      if (cluster !== undefined) opts.ca = cluster
    }),
    source: 'input "server"',
    server: serverOf(bearer.server),
    context: 'server',
    reader: 'plain'
  }
}

// The kubeconfig's current context names the cluster; its user, if any, holds no credential.
function bearerToKubeconfig(bearer: BearerAuth, files: string[] | 'in-cluster'): LoadedKubeConfig {
  const source = files === 'in-cluster' ? files : files.join(path.delimiter)
  const cluster = files === 'in-cluster' ? undefined : readKubeConfigCluster(files)
  if (cluster === undefined) {
    throw new ClusterError(
      `cluster-auth github-oidc: kubeconfig ${source} has no current context naming a cluster ` +
        'with a server address the action can reach directly (no proxy-url); give one, or ' +
        'inputs "server" and "certificate-authority"'
    )
  }
  if (cluster.userWithCredential !== undefined) {
    throw new ClusterError(
      `cluster-auth github-oidc: kubeconfig ${source}: context "${cluster.context}" names user ` +
        `"${cluster.userWithCredential}", which holds a credential; with cluster-auth ` +
        "github-oidc the job's ID token is the credential: remove the user from the context"
    )
  }
  // Read once: the CA of a run does not change, and every request is built anew.
  const tls: https.RequestOptions = {}
  cluster.applyToHTTPSOptions(tls)
  const { headers: _, ...clusterTls } = tls
  return {
    credentials: bearerCredentials(bearer.tokens, (opts) => Object.assign(opts, clusterTls)),
    source,
    server: serverOf(cluster.server),
    context: cluster.context,
    reader: 'plain'
  }
}

// Asked for every request (rotates): the token is renewed before its exp and after a 401.
function bearerCredentials(
  tokens: IdTokenSource,
  applyCluster: (opts: https.RequestOptions) => void
): KubeCredentials {
  const sentToken = (opts: https.RequestOptions): string | undefined => {
    const header = (opts.headers as Record<string, string> | undefined)?.Authorization
    return header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined
  }
  return {
    rotates: true,
    viaProxy: false,
    applyToHTTPSOptions: async (opts) => {
      applyCluster(opts)
      const token = await tokens.token()
      opts.headers = {
        ...(opts.headers as Record<string, string>),
        Authorization: `Bearer ${token}`
      }
    },
    renewAfterUnauthorized: async (sent) => {
      await tokens.renew(sentToken(sent))
      return true
    },
    explainUnauthorized: (sent) => {
      const token = sentToken(sent)
      return (
        "the API server did not accept the job's ID token" +
        (token === undefined ? '' : ` (${describeClaims(token)})`) +
        ': its authentication configuration decides which issuer, audience and claims it ' +
        'accepts (README.md#keyless)'
      )
    }
  }
}

function credentialsOf(kc: KubeConfig, onCredential?: (value: string) => void): KubeCredentials {
  const user = kc.getCurrentUser()
  const viaProxy = Boolean(kc.getCurrentCluster()?.proxyUrl)
  const fromPlugin = Boolean(user?.exec || user?.authProvider)
  const seen = new Set<string>()
  const report = (value: string | undefined) => {
    if (value === undefined || value === '' || seen.has(value)) return
    seen.add(value)
    onCredential?.(value)
  }
  return {
    rotates: fromPlugin || viaProxy,
    viaProxy,
    applyToHTTPSOptions: async (opts) => {
      await kc.applyToHTTPSOptions(opts)
      if (!fromPlugin || onCredential === undefined) return
      const authorization = (opts.headers as Record<string, unknown> | undefined)?.Authorization
      if (typeof authorization === 'string') report(authorization.replace(/^Bearer\s+/i, ''))
      // A PEM key is several lines, and the job log masks line by line: each body line too.
      for (const key of [opts.key ?? []].flat()) {
        if (typeof key !== 'string' && !Buffer.isBuffer(key)) continue
        const text = key.toString()
        report(text)
        for (const line of text.split('\n')) if (!line.startsWith('-----')) report(line.trim())
      }
    }
  }
}

/** The kubeconfig files to read, in order, or `in-cluster`. */
function kubeconfigFiles(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string
): string[] | 'in-cluster' {
  const listed = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '')
  if (listed.length > 0) {
    const files = listed.filter((f) => existsSync(f))
    if (files.length === 0) {
      throw new ClusterError(
        `KUBECONFIG names no existing file (${listed.join(', ')}). ${GUIDANCE}`
      )
    }
    return files
  }
  const home = path.join(homeDir, '.kube', 'config')
  if (existsSync(home)) return [home]
  if (env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) return 'in-cluster'
  throw new NoKubeconfigError(
    `no kubeconfig found: KUBECONFIG is not set and ${home} does not exist. ${GUIDANCE}`
  )
}

function loadFiles(kc: KubeConfig, files: readonly string[], another: () => KubeConfig): void {
  files.forEach((file, i) => {
    const target = i === 0 ? kc : another()
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
  return { server: serverOf(cluster.server), context }
}

function serverOf(server: string): string {
  return server.replace(/\/+$/, '')
}
