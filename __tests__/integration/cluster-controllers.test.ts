// Proves the test cluster behaves like a real one (__tests__/cluster/README.md): kube-controller-
// manager runs the Deployment, Job, namespace, garbage-collector and ServiceAccount controllers,
// kube-scheduler binds Pods to kwok's fake Nodes, and kwok's Stages (__tests__/cluster/kwok/
// stages.yaml) run them - or fail them the way the kubelet reports failures, for Pods labelled
// tazuna.test/failure (__tests__/cluster/README.md#failing-pods).
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from '@jest/globals'
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  type V1Pod,
  type V1PodSpec
} from '@kubernetes/client-node'

let core: CoreV1Api
let apps: AppsV1Api
let batch: BatchV1Api

beforeAll(() => {
  const file = process.env.TAZUNA_TEST_ADMIN_KUBECONFIG
  if (!file)
    throw new Error('TAZUNA_TEST_ADMIN_KUBECONFIG is not set: run through the integration project')
  const kc = new KubeConfig()
  kc.loadFromFile(file)
  core = kc.makeApiClient(CoreV1Api)
  apps = kc.makeApiClient(AppsV1Api)
  batch = kc.makeApiClient(BatchV1Api)
})

/** Polls `probe` until it returns a value (not undefined); fails with `what` after 60 s. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (err) {
      last = err
    }
    await sleep(250)
  }
  throw new Error(
    `not reached within 60 s: ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`
  )
}

async function gone(read: () => Promise<unknown>): Promise<true | undefined> {
  try {
    await read()
    return undefined
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) return true
    throw err
  }
}

/** A fresh namespace, once its `default` ServiceAccount exists (Pods need it to be admitted). */
async function freshNamespace(): Promise<string> {
  const name = `controllers-${randomUUID().slice(0, 8)}`
  await core.createNamespace({ body: { metadata: { name } } })
  await eventually(`ServiceAccount ${name}/default`, async () =>
    core.readNamespacedServiceAccount({ name: 'default', namespace: name })
  )
  return name
}

const podSpec = (image = 'registry.invalid/app:1'): V1PodSpec => ({
  containers: [{ name: 'app', image }]
})

async function createPod(namespace: string, name: string, failure: string, exitCode?: string) {
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: {
        name,
        labels: { 'tazuna.test/failure': failure },
        ...(exitCode ? { annotations: { 'tazuna.test/exit-code': exitCode } } : {})
      },
      spec: podSpec(`registry.invalid/${name}:1`)
    }
  })
}

/** The Pod once kwok has written its container statuses. */
async function podWithStatuses(namespace: string, name: string): Promise<V1Pod> {
  return eventually(`container statuses of Pod ${namespace}/${name}`, async () => {
    const pod = await core.readNamespacedPod({ name, namespace })
    return pod.status?.containerStatuses?.length ? pod : undefined
  })
}

const condition = (pod: V1Pod, type: string): string | undefined =>
  pod.status?.conditions?.find((c) => c.type === type)?.status

describe('controllers of the test cluster', () => {
  it('gives a new namespace its default ServiceAccount and the kube-root-ca.crt ConfigMap', async () => {
    const namespace = await freshNamespace()

    const ca = await eventually('kube-root-ca.crt', async () =>
      core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace })
    )

    expect(ca.data?.['ca.crt']).toContain('-----BEGIN CERTIFICATE-----')
  })

  it('rolls out a Deployment: Available, with Ready Pods on kwok Nodes', async () => {
    const namespace = await freshNamespace()
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: podSpec() }
        }
      }
    })

    const deployment = await eventually(
      'Deployment web Available with 2 ready replicas',
      async () => {
        const d = await apps.readNamespacedDeployment({ name: 'web', namespace })
        const available = d.status?.conditions?.find((c) => c.type === 'Available')?.status
        return available === 'True' && d.status?.readyReplicas === 2 ? d : undefined
      }
    )
    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })

    expect(deployment.status?.availableReplicas).toBe(2)
    expect(pods.items).toHaveLength(2)
    for (const pod of pods.items) {
      expect(pod.spec?.nodeName).toMatch(/^kwok-node-\d+$/)
      expect(pod.status?.phase).toBe('Running')
      expect(condition(pod, 'Ready')).toBe('True')
      expect(pod.metadata?.ownerReferences?.[0]?.kind).toBe('ReplicaSet')
    }
  })

  it('runs a Job to completion', async () => {
    const namespace = await freshNamespace()
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'once' },
        spec: { template: { spec: { ...podSpec(), restartPolicy: 'Never' } } }
      }
    })

    const job = await eventually('Job once Complete', async () => {
      const j = await batch.readNamespacedJob({ name: 'once', namespace })
      return j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        ? j
        : undefined
    })

    expect(job.status?.succeeded).toBe(1)
  })

  it('completes a Namespace deletion, deleting what it held', async () => {
    const namespace = await freshNamespace()
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'held' } } })

    await core.deleteNamespace({ name: namespace })

    await expect(
      eventually(`Namespace ${namespace} deleted`, () =>
        gone(() => core.readNamespace({ name: namespace }))
      )
    ).resolves.toBe(true)
  })

  it('garbage-collects an object whose owner was deleted', async () => {
    const namespace = await freshNamespace()
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'owner' } }
    })
    await core.createNamespacedConfigMap({
      namespace,
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }
          ]
        }
      }
    })

    await core.deleteNamespacedConfigMap({ name: 'owner', namespace })

    await expect(
      eventually('ConfigMap dependent collected', () =>
        gone(() => core.readNamespacedConfigMap({ name: 'dependent', namespace }))
      )
    ).resolves.toBe(true)
  })
})

describe('failing Pods (kwok Stages selected by label tazuna.test/failure)', () => {
  let namespace: string
  beforeAll(async () => {
    namespace = await freshNamespace()
  })

  it('image-pull-backoff: Pending, container waiting in ImagePullBackOff', async () => {
    await createPod(namespace, 'pull', 'image-pull-backoff')

    const pod = await podWithStatuses(namespace, 'pull')

    expect(pod.status?.phase).toBe('Pending')
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting).toEqual({
      reason: 'ImagePullBackOff',
      message: 'Back-off pulling image "registry.invalid/pull:1"'
    })
    expect(condition(pod, 'Ready')).toBe('False')
  })

  it('crash-loop-backoff: Running, waiting in CrashLoopBackOff, last exit code from the annotation', async () => {
    await createPod(namespace, 'crash', 'crash-loop-backoff', '137')

    const pod = await podWithStatuses(namespace, 'crash')
    const status = pod.status?.containerStatuses?.[0]

    expect(pod.status?.phase).toBe('Running')
    expect(status?.state?.waiting?.reason).toBe('CrashLoopBackOff')
    expect(status?.lastState?.terminated?.exitCode).toBe(137)
    expect(status?.lastState?.terminated?.reason).toBe('Error')
    expect(status?.restartCount).toBe(1)
    expect(condition(pod, 'Ready')).toBe('False')
  })

  it('never-ready: Running, containers running but the Pod not Ready', async () => {
    await createPod(namespace, 'unready', 'never-ready')

    const pod = await podWithStatuses(namespace, 'unready')

    expect(pod.status?.phase).toBe('Running')
    expect(pod.status?.containerStatuses?.[0]?.state?.running).toBeDefined()
    expect(pod.status?.containerStatuses?.[0]?.ready).toBe(false)
    expect(condition(pod, 'Ready')).toBe('False')
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe(
      'ContainersNotReady'
    )
  })

  it('exit: a Job whose Pod exits 3 fails with BackoffLimitExceeded', async () => {
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'fails' },
        spec: {
          backoffLimit: 0,
          template: {
            metadata: {
              labels: { 'tazuna.test/failure': 'exit' },
              annotations: { 'tazuna.test/exit-code': '3' }
            },
            spec: { ...podSpec(), restartPolicy: 'Never' }
          }
        }
      }
    })

    const job = await eventually('Job fails Failed', async () => {
      const j = await batch.readNamespacedJob({ name: 'fails', namespace })
      return j.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True')
    })
    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'job-name=fails' })

    expect(job.reason).toBe('BackoffLimitExceeded')
    expect(pods.items[0]?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(3)
  })
})
