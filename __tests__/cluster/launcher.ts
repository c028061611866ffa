// Starts a throwaway Kubernetes cluster on loopback ports, the way controller-runtime's envtest
// does (spec test-cluster.md 3): etcd + kube-apiserver and, unless a test asks for the bare
// control plane, kube-controller-manager, kube-scheduler and kwok with fake Nodes (spec 8).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { etcdHealthy, grantReader, READER_NAMESPACE, request, type Api } from './bootstrap.js'
import { startControllers, type ControllerBins, type Controllers } from './controllers.js'
import {
  clusterPaths,
  makeComponentUsers,
  makeUsers,
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

export { READER_NAMESPACE }

export interface ClusterOptions {
  kubeApiserverBin: string
  etcdBin: string
  /** Defaults to a fresh directory under the OS temp dir. */
  workDir?: string
  /** Keep the work dir (logs, etcd data) after stopCluster; default false. */
  keepWorkDir?: boolean
  /** Per server; default 120 s (a loaded 2-core machine needs ~5-20 s for both). */
  startTimeoutMs?: number
  /**
   * kube-controller-manager, kube-scheduler and kwok. Without them the cluster is the bare
   * control plane of spec 3.4 (no namespace deletion, garbage collection or Pods; the
   * ServiceAccount admission plugin off, since nothing creates `default` ServiceAccounts).
   */
  controllers?: ControllerBins
  /** Fake Nodes kwok manages (with controllers); default 3. */
  nodes?: number
  /**
   * An AuthenticationConfiguration (apiserver.config.k8s.io/v1, YAML or JSON) that
   * kube-apiserver reads with --authentication-config: JWT authenticators beside the token file
   * (the keyless tests' issuer, README.md#keyless).
   */
  authenticationConfig?: string
  /** More kube-apiserver flags (integration/cluster/faults.test.ts: a resource without watch cache). */
  apiserverArgs?: string[]
}

/** Milliseconds from the start of startCluster (the last attempt). */
export interface StartupTimes {
  apiserverReadyMs: number
  /** /healthz of kube-controller-manager and the `default` ServiceAccounts and CA ConfigMaps. */
  controllersReadyMs?: number
  /** Every fake Node Ready. */
  nodesReadyMs?: number
  totalMs: number
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
  /** etcd's client URL (plain HTTP on loopback; its JSON gateway compacts, for the watch tests). */
  etcdUrl: string
  apiserver: ServerProcess
  /** Present when the cluster runs controllers (ClusterOptions.controllers). */
  controllers: Controllers | undefined
  startup: StartupTimes
  reaperPid: number | undefined
  keepWorkDir: boolean
  /** How kube-apiserver was started, for restartApiserver. */
  apiserverCommand: { bin: string; args: string[] }
}

type Files = ReturnType<typeof clusterPaths>

const ATTEMPTS = 3

/**
 * Starts etcd and kube-apiserver, waits for /readyz, grants the reader its RBAC and writes
 * admin.kubeconfig and reader.kubeconfig into the work dir. Everything started is killed if
 * this Node process exits; call stopCluster for an orderly stop. Retries with new ports
 * when one was taken between picking and binding it (other test runs on the machine).
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const workDir = opts.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'tazuna-cluster-'))
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, workDir)
    } catch (err) {
      if (attempt >= ATTEMPTS || !/address already in use/i.test(String(err))) throw err
      for (const entry of [
        'etcd-data',
        'certs',
        'etcd.log',
        'kube-apiserver.log',
        'kube-controller-manager.log',
        'kube-scheduler.log',
        'kwok.log'
      ]) {
        rmSync(path.join(workDir, entry), { recursive: true, force: true })
      }
    }
  }
}

async function startOnce(opts: ClusterOptions, workDir: string): Promise<Cluster> {
  const t0 = Date.now()
  const files = clusterPaths(workDir)
  const timeoutMs = opts.startTimeoutMs ?? 120_000
  mkdirSync(files.certDir, { recursive: true })
  const users = makeUsers()
  const components = makeComponentUsers()
  writeTokenFile(files.tokenFile, [
    users.admin,
    users.reader,
    ...(opts.controllers
      ? [components.controllerManager, components.scheduler, components.kwok]
      : [])
  ])
  writeServiceAccountKey(files.saKey)
  writeFileSync(files.auditPolicy, AUDIT_POLICY)
  const authenticationConfig =
    opts.authenticationConfig === undefined
      ? undefined
      : path.join(workDir, 'authentication-config.yaml')
  if (authenticationConfig !== undefined) {
    writeFileSync(authenticationConfig, opts.authenticationConfig!)
  }
  const [clientPort, peerPort, apiserverPort, cmPort, schedulerPort] = (await pickFreePorts(5)) as [
    number,
    number,
    number,
    number,
    number
  ]

  const etcdUrl = `http://127.0.0.1:${clientPort}`
  const etcd = startProcess(
    'etcd',
    opts.etcdBin,
    etcdArgs(files, clientPort, peerPort),
    files.etcdLog
  )
  killOnParentExit(etcd)
  let apiserver: ServerProcess | undefined
  const started: ServerProcess[] = []
  try {
    await waitUntilReady(etcd, () => etcdHealthy(etcdUrl), timeoutMs)
    const args = apiserverArgs({
      etcdUrl,
      port: apiserverPort,
      files,
      controllers: opts.controllers !== undefined
    })
    if (authenticationConfig !== undefined) {
      args.push(`--authentication-config=${authenticationConfig}`)
    }
    args.push(...(opts.apiserverArgs ?? []))
    apiserver = startProcess('kube-apiserver', opts.kubeApiserverBin, args, files.apiserverLog)
    killOnParentExit(apiserver)
    const server = `https://127.0.0.1:${apiserverPort}`
    const api: Api = (method, urlPath, body) =>
      request({ server, caFile: files.caFile, token: users.admin.token }, method, urlPath, body)
    const ready = async (): Promise<boolean> => (await api('GET', '/readyz')).status === 200
    await waitUntilReady(apiserver, ready, timeoutMs)
    const apiserverReadyMs = Date.now() - t0
    await grantReader(api)
    writeKubeconfigs(files, server, users)
    let controllers: Controllers | undefined
    const startup: StartupTimes = { apiserverReadyMs, totalMs: 0 }
    if (opts.controllers) {
      const common = { server, caFile: files.caFile }
      writeKubeconfig({
        ...common,
        file: files.controllerManagerKubeconfig,
        user: components.controllerManager
      })
      writeKubeconfig({ ...common, file: files.schedulerKubeconfig, user: components.scheduler })
      writeKubeconfig({ ...common, file: files.kwokKubeconfig, user: components.kwok })
      const result = await startControllers({
        bins: opts.controllers,
        files,
        api,
        users: components,
        ports: [cmPort, schedulerPort],
        nodeCount: opts.nodes ?? 3,
        timeoutMs,
        started
      })
      controllers = result.controllers
      startup.controllersReadyMs = apiserverReadyMs + result.controllersReadyMs
      startup.nodesReadyMs = apiserverReadyMs + result.nodesReadyMs
    }
    startup.totalMs = Date.now() - t0
    const cluster: Cluster = {
      server,
      workDir,
      caFile: files.caFile,
      adminKubeconfig: files.adminKubeconfig,
      readerKubeconfig: files.readerKubeconfig,
      ...users,
      etcd,
      etcdUrl,
      apiserver,
      controllers,
      startup,
      reaperPid: startReaper(process.pid, [...started.map((p) => p.pid), apiserver.pid, etcd.pid]),
      keepWorkDir: opts.keepWorkDir ?? false,
      apiserverCommand: { bin: opts.kubeApiserverBin, args }
    }
    writeFileSync(files.stateFile, JSON.stringify(describeCluster(cluster), null, 2) + '\n')
    return cluster
  } catch (err) {
    await Promise.all(started.map((p) => stopProcess(p)))
    if (apiserver) await stopProcess(apiserver)
    await stopProcess(etcd)
    throw err
  }
}

function writeKubeconfigs(
  files: Files,
  server: string,
  users: { admin: TokenUser; reader: TokenUser }
): void {
  const common = { server, caFile: files.caFile }
  writeKubeconfig({ ...common, file: files.adminKubeconfig, user: users.admin })
  writeKubeconfig({
    ...common,
    file: files.readerKubeconfig,
    user: users.reader,
    namespace: READER_NAMESPACE
  })
}

/**
 * Stops the controllers (together), then kube-apiserver, then etcd (SIGTERM, SIGKILL after
 * 5 s), then removes the work dir.
 */
export async function stopCluster(cluster: Cluster): Promise<void> {
  if (cluster.reaperPid !== undefined) {
    try {
      process.kill(cluster.reaperPid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
  const c = cluster.controllers
  if (c) await Promise.all([c.kwok, c.scheduler, c.controllerManager].map((p) => stopProcess(p)))
  await stopProcess(cluster.apiserver)
  await stopProcess(cluster.etcd)
  if (!cluster.keepWorkDir) rmSync(cluster.workDir, { recursive: true, force: true })
}

/**
 * Starts kube-apiserver again with the same flags (same port, certificates and etcd) after a
 * test killed it, and waits for /readyz. The new process replaces `cluster.apiserver`, so
 * stopCluster stops it; it is killed with this Node process like the first one.
 */
export async function restartApiserver(cluster: Cluster, timeoutMs = 120_000): Promise<void> {
  await cluster.apiserver.exited
  const { bin, args } = cluster.apiserverCommand
  const files = clusterPaths(cluster.workDir)
  const apiserver = startProcess('kube-apiserver', bin, args, files.apiserverLog)
  killOnParentExit(apiserver)
  cluster.apiserver = apiserver
  const ready = async (): Promise<boolean> =>
    (
      await request(
        { server: cluster.server, caFile: cluster.caFile, token: cluster.admin.token },
        'GET',
        '/readyz'
      )
    ).status === 200
  await waitUntilReady(apiserver, ready, timeoutMs)
}

/** The serialisable facts about a running cluster (written to <workDir>/cluster.json). */
export function describeCluster(c: Cluster) {
  return {
    server: c.server,
    workDir: c.workDir,
    caFile: c.caFile,
    adminKubeconfig: c.adminKubeconfig,
    readerKubeconfig: c.readerKubeconfig,
    pids: {
      etcd: c.etcd.pid,
      kubeApiserver: c.apiserver.pid,
      ...(c.controllers
        ? {
            kubeControllerManager: c.controllers.controllerManager.pid,
            kubeScheduler: c.controllers.scheduler.pid,
            kwok: c.controllers.kwok.pid
          }
        : {}),
      parent: process.pid
    },
    nodes: c.controllers?.nodes ?? [],
    startup: c.startup,
    logs: {
      etcd: c.etcd.logFile,
      kubeApiserver: c.apiserver.logFile,
      ...(c.controllers
        ? {
            kubeControllerManager: c.controllers.controllerManager.logFile,
            kubeScheduler: c.controllers.scheduler.logFile,
            kwok: c.controllers.kwok.logFile
          }
        : {}),
      audit: clusterPaths(c.workDir).auditLog
    }
  }
}

function etcdArgs(files: Files, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`
  const peer = `http://127.0.0.1:${peerPort}`
  return [
    '--name=default',
    `--data-dir=${files.etcdData}`,
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
  files: Files
  controllers: boolean
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
    // Without kube-controller-manager no controller creates `default` ServiceAccounts, so this
    // plugin would reject every Pod; with it, admission is the default set, like a real
    // cluster's. NamespaceLifecycle stays on: it rejects writes into missing namespaces.
    ...(a.controllers ? [] : ['--disable-admission-plugins=ServiceAccount']),
    // The reconciler of the `kubernetes` Service endpoints rejects a loopback address and
    // would log an error every few seconds.
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    '--profiling=false',
    // Every request a client sends, with the server's receive and completion times: the bench
    // counts requests and round trips on the critical path from it (__tests__/bench/requests.ts),
    // and tests pin request counts by user.
    `--audit-policy-file=${a.files.auditPolicy}`,
    `--audit-log-path=${a.files.auditLog}`,
    '--audit-log-format=json',
    '--audit-log-maxsize=200',
    '--audit-log-maxbackup=1'
  ]
}

// Metadata only (no bodies: Secrets stay out of the log), one event per request at completion;
// the server's own loopback client and health probes are left out, and so are the controllers'
// reads and the Node Leases (kwok's heartbeats in kube-node-lease): their writes stay, so the log shows when a
// controller or kwok changed an object.
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
  - level: None
    users: ['system:apiserver']
  - level: None
    nonResourceURLs: ['/readyz', '/livez', '/healthz']
  - level: None
    users: ['system:kube-controller-manager', 'system:kube-scheduler', 'tazuna-kwok']
    verbs: [get, list, watch]
  - level: None
    namespaces: [kube-node-lease]
    resources: [{ group: coordination.k8s.io, resources: [leases] }]
  - level: Metadata
`
