// Starts a throwaway Kubernetes control plane (etcd + kube-apiserver, no controller manager)
// on loopback ports, the way controller-runtime's envtest does (spec test-cluster.md 3).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {
  clusterPaths,
  makeUsers,
  READER_USER,
  writeKubeconfig,
  writeServiceAccountKey,
  writeTokenFile,
  type TokenUser
} from './credentials.js'
import {
  killOnParentExit,
  pickFreePorts,
  startProcess,
  startReaper,
  stopProcess,
  waitUntilReady,
  type ServerProcess
} from './processes.js'

/** The namespace the read-only user may read ConfigMaps in (see README: why it exists). */
export const READER_NAMESPACE = 'tazuna'

export interface ClusterOptions {
  kubeApiserverBin: string
  etcdBin: string
  /** Defaults to a fresh directory under the OS temp dir. */
  workDir?: string
  /** Keep the work dir (logs, etcd data) after stopCluster; default false. */
  keepWorkDir?: boolean
  /** Per server; default 120 s (a cold 2-core machine needs ~10-20 s). */
  startTimeoutMs?: number
}

export interface Cluster {
  server: string
  workDir: string
  caFile: string
  adminKubeconfig: string
  readerKubeconfig: string
  admin: TokenUser
  reader: TokenUser
  etcd: ServerProcess
  apiserver: ServerProcess
  reaperPid: number | undefined
  keepWorkDir: boolean
}

/**
 * Starts etcd and kube-apiserver, waits for /readyz, grants the reader its RBAC and writes
 * admin.kubeconfig and reader.kubeconfig into the work dir. Everything started is killed if
 * this Node process exits; call stopCluster for an orderly stop.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const workDir = opts.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'tazuna-cluster-'))
  const files = clusterPaths(workDir)
  const timeoutMs = opts.startTimeoutMs ?? 120_000
  mkdirSync(files.certDir, { recursive: true })
  const users = makeUsers()
  writeTokenFile(files.tokenFile, [users.admin, users.reader])
  writeServiceAccountKey(files.saKey)
  const [etcdClientPort, etcdPeerPort, apiserverPort] = (await pickFreePorts(3)) as [
    number,
    number,
    number
  ]

  const etcd = startProcess(
    'etcd',
    opts.etcdBin,
    etcdArgs(files.etcdData, etcdClientPort, etcdPeerPort),
    files.etcdLog
  )
  killOnParentExit(etcd)
  const etcdUrl = `http://127.0.0.1:${etcdClientPort}`
  let apiserver: ServerProcess | undefined
  try {
    await waitUntilReady(etcd, () => etcdHealthy(etcdUrl), timeoutMs)
    apiserver = startProcess(
      'kube-apiserver',
      opts.kubeApiserverBin,
      apiserverArgs({ etcdUrl, port: apiserverPort, files }),
      files.apiserverLog
    )
    killOnParentExit(apiserver)
    const server = `https://127.0.0.1:${apiserverPort}`
    const api = (method: string, urlPath: string, body?: unknown) =>
      request({ server, caFile: files.caFile, token: users.admin.token }, method, urlPath, body)
    await waitUntilReady(
      apiserver,
      async () => (await api('GET', '/readyz')).status === 200,
      timeoutMs
    )
    await grantReader(api)
    writeKubeconfig({
      file: files.adminKubeconfig,
      server,
      caFile: files.caFile,
      user: users.admin
    })
    writeKubeconfig({
      file: files.readerKubeconfig,
      server,
      caFile: files.caFile,
      user: users.reader,
      namespace: READER_NAMESPACE
    })
    const cluster: Cluster = {
      server,
      workDir,
      caFile: files.caFile,
      adminKubeconfig: files.adminKubeconfig,
      readerKubeconfig: files.readerKubeconfig,
      admin: users.admin,
      reader: users.reader,
      etcd,
      apiserver,
      reaperPid: startReaper(process.pid, [apiserver.pid, etcd.pid]),
      keepWorkDir: opts.keepWorkDir ?? false
    }
    writeFileSync(files.stateFile, JSON.stringify(describeCluster(cluster), null, 2) + '\n')
    return cluster
  } catch (err) {
    if (apiserver) await stopProcess(apiserver)
    await stopProcess(etcd)
    throw err
  }
}

/** Stops kube-apiserver, then etcd (SIGTERM, SIGKILL after 5 s), then removes the work dir. */
export async function stopCluster(cluster: Cluster): Promise<void> {
  if (cluster.reaperPid !== undefined) {
    try {
      process.kill(cluster.reaperPid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
  await stopProcess(cluster.apiserver)
  await stopProcess(cluster.etcd)
  if (!cluster.keepWorkDir) rmSync(cluster.workDir, { recursive: true, force: true })
}

/** The serialisable facts about a running cluster (written to <workDir>/cluster.json). */
export function describeCluster(c: Cluster) {
  return {
    server: c.server,
    workDir: c.workDir,
    caFile: c.caFile,
    adminKubeconfig: c.adminKubeconfig,
    readerKubeconfig: c.readerKubeconfig,
    pids: { etcd: c.etcd.pid, kubeApiserver: c.apiserver.pid, parent: process.pid },
    logs: { etcd: c.etcd.logFile, kubeApiserver: c.apiserver.logFile }
  }
}

function etcdArgs(dataDir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`
  const peer = `http://127.0.0.1:${peerPort}`
  return [
    '--name=default',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    '--unsafe-no-fsync', // throwaway data; fsync dominates start-up and write latency
    '--log-level=warn'
  ]
}

function apiserverArgs(a: {
  etcdUrl: string
  port: number
  files: ReturnType<typeof clusterPaths>
}): string[] {
  return [
    `--etcd-servers=${a.etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${a.port}`,
    // No --tls-cert-file: kube-apiserver writes a self-signed CA and a serving cert for
    // 127.0.0.1 signed by it into apiserver.crt (leaf + CA), which the kubeconfigs trust.
    `--cert-dir=${a.files.certDir}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${a.files.saKey}`,
    `--service-account-signing-key-file=${a.files.saKey}`,
    `--token-auth-file=${a.files.tokenFile}`,
    '--authorization-mode=RBAC',
    // No controller creates `default` ServiceAccounts, so this plugin would reject every Pod.
    // NamespaceLifecycle stays on: it rejects writes into missing namespaces like a real cluster.
    '--disable-admission-plugins=ServiceAccount',
    // The reconciler of the `kubernetes` Service endpoints rejects a loopback address and
    // would log an error every few seconds.
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    '--profiling=false'
  ]
}

async function etcdHealthy(etcdUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${etcdUrl}/health`, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"health":"true"')))
    })
    req.on('error', () => resolve(false))
    req.setTimeout(2000, () => req.destroy())
  })
}

interface Endpoint {
  server: string
  caFile: string
  token: string
}

interface Response {
  status: number
  body: string
}

type Api = (method: string, urlPath: string, body?: unknown) => Promise<Response>

/** One HTTPS request that verifies the server against the cluster's CA. */
async function request(
  ep: Endpoint,
  method: string,
  urlPath: string,
  body?: unknown
): Promise<Response> {
  const ca = readFileSync(ep.caFile) // throws (probe: not ready) until the server wrote it
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(urlPath, ep.server),
      {
        method,
        ca,
        headers: { authorization: `Bearer ${ep.token}`, 'content-type': 'application/json' },
        timeout: 10_000
      },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      }
    )
    req.on('error', reject)
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: timed out`)))
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/**
 * Lets the reader get/list/watch ConfigMaps in READER_NAMESPACE (discovery it already has
 * through the default system:discovery binding). A RoleBinding needs its namespace to
 * exist, so the harness creates `tazuna` here; tests therefore cannot start from a
 * cluster without it.
 */
async function grantReader(api: Api): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1'
  const name = 'tazuna-reader'
  await create(api, '/api/v1/namespaces', { metadata: { name: READER_NAMESPACE } })
  await create(api, `${rbac}/namespaces/${READER_NAMESPACE}/roles`, {
    metadata: { name },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }]
  })
  await create(api, `${rbac}/namespaces/${READER_NAMESPACE}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: READER_USER }]
  })
}

async function create(api: Api, urlPath: string, body: object): Promise<void> {
  const res = await api('POST', urlPath, body)
  if (res.status !== 201)
    throw new Error(`POST ${urlPath}: HTTP ${res.status}: ${res.body.slice(0, 500)}`)
}
