// The parts of the test cluster that make it behave like a real one (./README.md):
// kube-controller-manager (every default controller), kube-scheduler, and kwok, which plays
// the kubelet of a few fake Nodes with the Stages in kwok/stages.yaml.
import https from 'node:https'
import path from 'node:path'
import type { Api } from './bootstrap.js'
import type { clusterPaths, ComponentUsers } from './credentials.js'
import { startProcess, killOnParentExit, waitUntilReady, type ServerProcess } from './processes.js'

export interface ControllerBins {
  kubeControllerManagerBin: string
  kubeSchedulerBin: string
  kwokBin: string
}

export interface Controllers {
  controllerManager: ServerProcess
  scheduler: ServerProcess
  kwok: ServerProcess
  /** Names of the fake Nodes kwok manages. */
  nodes: string[]
}

/** kwok manages the Nodes with this annotation (kwok's docs use the same). */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node'
/** Pods labelled with this key fail as its value says (kwok/stages.yaml, README). */
export const FAILURE_LABEL = 'tazuna.test/failure'
export const EXIT_CODE_ANNOTATION = 'tazuna.test/exit-code'

export const STAGES_FILE = path.join(import.meta.dirname, 'kwok', 'stages.yaml')

type Files = ReturnType<typeof clusterPaths>

/**
 * Starts the three processes (ports from `ports`: controller manager, scheduler), creates
 * `nodeCount` fake Nodes and resolves once the controllers answer /healthz, the token and CA
 * controllers have filled namespaces `default` and `tazuna`, and every Node is Ready. On
 * failure whatever was started is left to the caller to stop (it is in `started`).
 */
export async function startControllers(a: {
  bins: ControllerBins
  files: Files
  api: Api
  users: ComponentUsers
  ports: [number, number]
  nodeCount: number
  timeoutMs: number
  started: ServerProcess[]
}): Promise<{ controllers: Controllers; controllersReadyMs: number; nodesReadyMs: number }> {
  const { files, bins } = a
  const t0 = Date.now()
  const controllerManager = startProcess(
    'kube-controller-manager',
    bins.kubeControllerManagerBin,
    controllerManagerArgs(files, a.ports[0]),
    files.controllerManagerLog
  )
  a.started.push(controllerManager)
  killOnParentExit(controllerManager)
  const scheduler = startProcess(
    'kube-scheduler',
    bins.kubeSchedulerBin,
    schedulerArgs(files, a.ports[1]),
    files.schedulerLog
  )
  a.started.push(scheduler)
  killOnParentExit(scheduler)
  const kwok = startProcess('kwok', bins.kwokBin, kwokArgs(files), files.kwokLog)
  a.started.push(kwok)
  killOnParentExit(kwok)

  const nodes = Array.from({ length: a.nodeCount }, (_, i) => `kwok-node-${i}`)
  await Promise.all(nodes.map((name) => createNode(a.api, name)))

  let controllersReadyMs = 0
  let nodesReadyMs = 0
  const controllersReady = async (): Promise<boolean> => {
    const ok = await allTrue([
      () => healthz(a.ports[0]),
      () => exists(a.api, '/api/v1/namespaces/default/serviceaccounts/default'),
      () => exists(a.api, '/api/v1/namespaces/tazuna/serviceaccounts/default'),
      () => exists(a.api, '/api/v1/namespaces/tazuna/configmaps/kube-root-ca.crt')
    ])
    return ok
  }
  await Promise.all([
    waitUntilReady(controllerManager, controllersReady, a.timeoutMs).then(
      () => (controllersReadyMs = Date.now() - t0)
    ),
    waitUntilReady(scheduler, () => healthz(a.ports[1]), a.timeoutMs),
    waitUntilReady(kwok, () => nodesReady(a.api, nodes), a.timeoutMs).then(
      () => (nodesReadyMs = Date.now() - t0)
    )
  ])
  return {
    controllers: { controllerManager, scheduler, kwok, nodes },
    controllersReadyMs,
    nodesReadyMs
  }
}

async function allTrue(probes: (() => Promise<boolean>)[]): Promise<boolean> {
  for (const probe of probes) if (!(await probe())) return false
  return true
}

async function exists(api: Api, urlPath: string): Promise<boolean> {
  return (await api('GET', urlPath)).status === 200
}

/**
 * GET /healthz of a component's own serving port. Its certificate is self-signed in memory by
 * the component, so this loopback probe does not verify it (it sends no credentials).
 */
function healthz(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(
      { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, timeout: 2000 },
      (res) => {
        res.resume()
        resolve(res.statusCode === 200)
      }
    )
    req.on('error', () => resolve(false))
    req.on('timeout', () => req.destroy())
  })
}

async function nodesReady(api: Api, nodes: string[]): Promise<boolean> {
  const res = await api('GET', '/api/v1/nodes')
  if (res.status !== 200) return false
  const list = JSON.parse(res.body) as {
    items: {
      metadata: { name: string }
      status?: { conditions?: { type: string; status: string }[] }
    }[]
  }
  const ready = new Set(
    list.items
      .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((n) => n.metadata.name)
  )
  return nodes.every((n) => ready.has(n))
}

/**
 * A fake Node as kwok's docs register one, without its `kwok.x-k8s.io/node=fake:NoSchedule`
 * taint: every Node of this cluster is fake, so Pods need no toleration.
 */
async function createNode(api: Api, name: string): Promise<void> {
  const resources = { cpu: '32', memory: '256Gi', pods: '110' }
  const res = await api('POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node-role.kubernetes.io/agent': '',
        type: 'kwok'
      }
    },
    status: { allocatable: resources, capacity: resources }
  })
  if (res.status !== 201) {
    throw new Error(`POST /api/v1/nodes ${name}: HTTP ${res.status}: ${res.body.slice(0, 500)}`)
  }
}

function controllerManagerArgs(files: Files, port: number): string[] {
  return [
    `--kubeconfig=${files.controllerManagerKubeconfig}`,
    `--authentication-kubeconfig=${files.controllerManagerKubeconfig}`,
    `--authorization-kubeconfig=${files.controllerManagerKubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${path.join(files.certDir, 'kube-controller-manager')}`,
    '--leader-elect=false',
    // The tokens controller signs with the key kube-apiserver verifies with; the root CA
    // becomes every namespace's kube-root-ca.crt ConfigMap.
    `--service-account-private-key-file=${files.saKey}`,
    `--root-ca-file=${files.caFile}`,
    '--profiling=false'
  ]
}

function schedulerArgs(files: Files, port: number): string[] {
  return [
    `--kubeconfig=${files.schedulerKubeconfig}`,
    `--authentication-kubeconfig=${files.schedulerKubeconfig}`,
    `--authorization-kubeconfig=${files.schedulerKubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${path.join(files.certDir, 'kube-scheduler')}`,
    '--leader-elect=false',
    '--profiling=false'
  ]
}

function kwokArgs(files: Files): string[] {
  return [
    `--kubeconfig=${files.kwokKubeconfig}`,
    `--config=${STAGES_FILE}`,
    '--manage-all-nodes=false',
    `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
    // Pod IPs, apart from the Service range 10.0.0.0/24.
    '--cidr=10.244.0.0/16',
    '--node-lease-duration-seconds=40'
  ]
}
