/**
 * The kubeconfigs most runs meet, read without @kubernetes/client-node: loading that library
 * costs about 0.1 s of every run that talks to a cluster, and of it we use only the kubeconfig
 * (docs/compatibility.md#kubernetes-client). "Plain" means a cluster with a server, a CA (file or
 * data), `insecure-skip-tls-verify` and `tls-server-name`, and a user with a bearer token, a
 * client certificate and key, and `as`.
 *
 * It is read as client-node 2.0.1 reads it, step for step: the same YAML parser (js-yaml, at the
 * version client-node resolves), the same entry checks, paths made absolute against each file's
 * directory, files merged with the first file's current-context, the first entry of a name
 * winning within a file, and the same connection options (`unit/adapters/plain-kubeconfig.test.ts`
 * holds them equal to client-node's over a corpus). Anything else gives undefined, and
 * client-node reads it: exec plugins, auth providers, `token-file`, basic auth, `proxy-url`,
 * in-cluster, and every kubeconfig client-node would refuse (it then says why).
 */
import { readFileSync } from 'node:fs'
import type https from 'node:https'
import path from 'node:path'
import { load } from 'js-yaml'

/** The current context of a plain kubeconfig, ready to connect with. */
export interface PlainKubeConfig {
  context: string
  /** The server address as client-node gives it (one trailing slash removed). */
  server: string
  /**
   * Sets what client-node's `applyToHTTPSOptions` sets for this cluster and user, but the agent
   * (the client brings its own): CA, client certificate and key (files read now, as client-node
   * reads them on every call), `rejectUnauthorized`, `servername` and the headers.
   */
  applyToHTTPSOptions(opts: https.RequestOptions): void
}

interface Cluster {
  name: string
  server: string
  caFile: string | undefined
  caData: string | undefined
  skipTLSVerify: boolean
  tlsServerName: string | undefined
  /** `proxy-url`, `exec`, `auth-provider`, `token-file` or `username`: client-node's part. */
  notPlain: boolean
}

interface User {
  name: string
  certFile: string | undefined
  certData: string | undefined
  keyFile: string | undefined
  keyData: string | undefined
  token: string | undefined
  impersonateUser: string | undefined
  notPlain: boolean
}

interface Context {
  name: string
  cluster: string
  user: string | undefined
}

interface Entries {
  clusters: Cluster[]
  users: User[]
  contexts: Context[]
}

/** Thrown inside the reader: this kubeconfig is client-node's to read. */
class NotPlain extends Error {}

/**
 * The current context of the kubeconfig `files` (in KUBECONFIG's order, all existing), or
 * undefined when it is not plain or client-node would refuse it.
 */
export function readPlainKubeConfig(files: readonly string[]): PlainKubeConfig | undefined {
  try {
    return read(files)
  } catch {
    // Not plain, or unreadable: client-node reads it again and reports what it finds.
    return undefined
  }
}

function read(files: readonly string[]): PlainKubeConfig {
  const { name, cluster, user } = currentOf(files)
  if (!user || user.notPlain) throw new NotPlain()
  return {
    context: name,
    server: cluster.server,
    applyToHTTPSOptions: (opts) => applyOptions(cluster, user, opts)
  }
}

/** The current context's cluster, for a bearer token the action brings itself. */
export interface KubeConfigCluster {
  context: string
  server: string
  /** The user the context names when that user holds a credential (the caller refuses it). */
  userWithCredential: string | undefined
  /** The cluster's TLS settings (CA, `insecure-skip-tls-verify`, `tls-server-name`). */
  applyToHTTPSOptions(opts: https.RequestOptions): void
}

/**
 * The current context's cluster of the kubeconfig `files`, read as {@link readPlainKubeConfig}
 * reads it, for `cluster-auth: github-oidc` (README.md#keyless): the context names no user, or
 * one without credentials. Undefined when the cluster is not plain (a `proxy-url`) or the files
 * are not a kubeconfig client-node would read.
 */
export function readKubeConfigCluster(files: readonly string[]): KubeConfigCluster | undefined {
  try {
    const { name, cluster, user } = currentOf(files)
    if (cluster.notPlain) return undefined
    const holds =
      user !== undefined &&
      Boolean(
        user.notPlain ||
        user.token ||
        user.certFile ||
        user.certData ||
        user.keyFile ||
        user.keyData ||
        user.impersonateUser
      )
    const noUser: User = {
      name: '',
      certFile: undefined,
      certData: undefined,
      keyFile: undefined,
      keyData: undefined,
      token: undefined,
      impersonateUser: undefined,
      notPlain: false
    }
    return {
      context: name,
      server: cluster.server,
      userWithCredential: holds ? user.name : undefined,
      applyToHTTPSOptions: (opts) => applyOptions(cluster, noUser, opts)
    }
  } catch {
    return undefined
  }
}

function currentOf(files: readonly string[]): {
  name: string
  cluster: Cluster
  user: User | undefined
} {
  const merged: Entries = { clusters: [], users: [], contexts: [] }
  let currentContext: unknown
  files.forEach((file, i) => {
    const doc = load(readFileSync(file).toString('utf-8'))
    if (!isRecord(doc)) throw new NotPlain()
    const entries = entriesOf(doc, path.dirname(file))
    if (i === 0) {
      // The first file's entries stand as they are (duplicates included) and its current-context
      // is kept: client-node's loadFromFile, then mergeConfig(…, preserveContext = true).
      Object.assign(merged, entries)
      currentContext = doc['current-context']
      return
    }
    append(merged.clusters, entries.clusters)
    append(merged.users, entries.users)
    append(merged.contexts, entries.contexts)
  })
  if (typeof currentContext !== 'string' || currentContext === '') throw new NotPlain()
  const context = merged.contexts.find((c) => c.name === currentContext)
  const cluster = merged.clusters.find((c) => c.name === context?.cluster)
  if (!context || !cluster || cluster.notPlain) throw new NotPlain()
  const user = merged.users.find((u) => u.name === context.user)
  // A context naming a user that is not defined: client-node's to report.
  if (context.user !== undefined && user === undefined) throw new NotPlain()
  return { name: currentContext, cluster, user }
}

/** client-node's mergeConfig: an entry whose name is already there is refused. */
function append<T extends { name: string }>(into: T[], entries: readonly T[]): void {
  for (const entry of entries) {
    if (into.some((e) => e.name === entry.name)) throw new NotPlain()
    into.push(entry)
  }
}

// client-node's applyHTTPSOptions and applyAuthorizationHeader, for a user no authenticator takes.
function applyOptions(cluster: Cluster, user: User, opts: https.RequestOptions): void {
  if (cluster.skipTLSVerify) opts.rejectUnauthorized = false
  if (cluster.tlsServerName) opts.servername = cluster.tlsServerName
  const ca = bufferFromFileOrString(cluster.caFile, cluster.caData)
  if (ca) opts.ca = ca
  const cert = bufferFromFileOrString(user.certFile, user.certData)
  if (cert) opts.cert = cert
  const key = bufferFromFileOrString(user.keyFile, user.keyData)
  if (key) opts.key = key
  const headers = (opts.headers ??= {}) as Record<string, string>
  if (user.impersonateUser !== undefined) headers['Impersonate-User'] = user.impersonateUser
  if (user.token) headers.Authorization = `Bearer ${user.token}`
}

function bufferFromFileOrString(file: string | undefined, data: string | undefined): Buffer | null {
  if (file) return readFileSync(file)
  if (data) return Buffer.from(data, 'base64')
  return null
}

// client-node's newClusters, newUsers and newContexts (an entry they refuse throws) and
// makePathsAbsolute, for every entry of the file, current or not.
function entriesOf(doc: Record<string, unknown>, dir: string): Entries {
  return {
    clusters: listOf(doc.clusters).map((elt) => {
      const c = record(elt.cluster)
      if (!c?.server || typeof c.server !== 'string') throw new NotPlain()
      return {
        name: nameOf(elt),
        server: c.server.replace(/\/$/, ''),
        caFile: fileIn(dir, c['certificate-authority']),
        caData: optionalString(c['certificate-authority-data']),
        skipTLSVerify: c['insecure-skip-tls-verify'] === true,
        tlsServerName: optionalString(c['tls-server-name']),
        notPlain: Boolean(c['proxy-url'])
      }
    }),
    users: listOf(doc.users).map((elt) => {
      const u = elt.user ? record(elt.user) : {}
      if (u === undefined) throw new NotPlain()
      const token = optionalString(u.token)
      // client-node reads a token file as it loads, whichever user names it.
      if (!token && u['token-file']) throw new NotPlain()
      const as = u.as
      if (as !== undefined && as !== null && (typeof as !== 'string' || as === '')) {
        throw new NotPlain()
      }
      return {
        name: nameOf(elt),
        certFile: fileIn(dir, u['client-certificate']),
        certData: optionalString(u['client-certificate-data']),
        keyFile: fileIn(dir, u['client-key']),
        keyData: optionalString(u['client-key-data']),
        token,
        impersonateUser: as ?? undefined,
        notPlain: Boolean(u.exec || u['auth-provider'] || u.username)
      }
    }),
    contexts: listOf(doc.contexts).map((elt) => {
      const c = record(elt.context)
      if (!c?.cluster || typeof c.cluster !== 'string') throw new NotPlain()
      const user = c.user || undefined
      if (user !== undefined && typeof user !== 'string') throw new NotPlain()
      return { name: nameOf(elt), cluster: c.cluster, user }
    })
  }
}

/** A list client-node reads: not an array reads as empty; every element an object. */
function listOf(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return []
  return value.map((elt: unknown) => record(elt) ?? notPlain())
}

function nameOf(elt: Record<string, unknown>): string {
  return typeof elt.name === 'string' && elt.name !== '' ? elt.name : notPlain()
}

/** A falsy value reads as absent (client-node tests truthiness); a truthy one must be a string. */
function optionalString(value: unknown): string | undefined {
  if (!value) return undefined
  return typeof value === 'string' ? value : notPlain()
}

/** makePathsAbsolute: a relative path is joined to the directory of the file that names it. */
function fileIn(dir: string, value: unknown): string | undefined {
  const file = optionalString(value)
  if (file === undefined || path.isAbsolute(file)) return file
  return path.join(dir, file)
}

function record(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function notPlain(): never {
  throw new NotPlain()
}
