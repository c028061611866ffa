// Proves the integration harness is the real thing: a kube-apiserver that enforces server-side
// apply, CRDs, optimistic concurrency and RBAC, and real kustomize and helm binaries.
// The cluster and tools come from __tests__/cluster/global-setup.ts.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, beforeAll } from '@jest/globals'
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  VersionApi,
  type KubernetesObject,
  type V1CustomResourceDefinition
} from '@kubernetes/client-node'
import { clusterRelease } from '../cluster/release.js'

const run = promisify(execFile)
const fixtures = path.join(import.meta.dirname, '..', 'cluster', 'fixtures')
const FIELD_MANAGER = 'tazuna-harness-test'

function env(name: string): string {
  const value = process.env[name]
  if (!value)
    throw new Error(`${name} is not set: run through the integration jest project (global-setup)`)
  return value
}

function loadKubeConfig(file: string): KubeConfig {
  const kc = new KubeConfig()
  kc.loadFromFile(file)
  return kc
}

/** The HTTP status of a rejected client-node call (fails the test if the call succeeded). */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call
  } catch (err) {
    if (err instanceof ApiException) return err.code
    throw err
  }
  throw new Error('expected the API server to reject the request')
}

let admin: KubeConfig
let core: CoreV1Api

/** Creates a namespace nobody else uses, so that tests running at the same time do not meet. */
async function uniqueNamespace(): Promise<string> {
  const name = `harness-${randomUUID().slice(0, 8)}`
  await core.createNamespace({ body: { metadata: { name } } })
  return name
}

/** What the server returns for an applied object; `spec` shape depends on the kind. */
type Applied = KubernetesObject & { spec?: Record<string, unknown> }

async function serverSideApply(
  obj: KubernetesObject & { spec?: unknown },
  force = false
): Promise<Applied> {
  // A new client per call: KubernetesObjectApi caches discovery, which a fresh CRD outdates.
  return KubernetesObjectApi.makeApiClient(admin).patch<Applied>(
    obj as Applied,
    undefined,
    undefined,
    FIELD_MANAGER,
    force,
    PatchStrategy.ServerSideApply
  )
}

beforeAll(() => {
  admin = loadKubeConfig(env('TAZUNA_TEST_ADMIN_KUBECONFIG'))
  core = admin.makeApiClient(CoreV1Api)
})

describe('test API server', () => {
  it('reports the Kubernetes release of its wrapper module on /version', async () => {
    const release = clusterRelease()
    const version = await admin.makeApiClient(VersionApi).getCode()

    expect(version.gitVersion).toBe(release.version)
    expect([version.major, version.minor]).toEqual(['1', release.minor])
  })

  it('creates a Deployment by server-side apply and records the field manager', async () => {
    const namespace = await uniqueNamespace()
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'registry.invalid/web:1' }] }
        }
      }
    }

    const applied = await serverSideApply(deployment)

    expect(applied.metadata?.managedFields?.map((f) => [f.manager, f.operation])).toEqual([
      [FIELD_MANAGER, 'Apply']
    ])
    expect(applied.spec?.replicas).toBe(2)
  })

  it('rejects a server-side apply that takes over another manager field with 409 Conflict', async () => {
    const namespace = await uniqueNamespace()
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', namespace },
      data: { k: 'a' }
    }
    await serverSideApply(cm)

    const status = await statusOf(
      KubernetesObjectApi.makeApiClient(admin).patch(
        { ...cm, data: { k: 'b' } },
        undefined,
        undefined,
        'someone-else',
        false,
        PatchStrategy.ServerSideApply
      )
    )

    expect(status).toBe(409)
  })

  it('serves a custom resource once its CRD is Established', async () => {
    const namespace = await uniqueNamespace()
    const group = `harness${randomUUID().slice(0, 8)}.tazuna.test`
    const crd: V1CustomResourceDefinition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } }
              }
            }
          }
        ]
      }
    }
    await serverSideApply(crd)
    await waitForEstablished(crd.metadata!.name!)

    const widget = await applyWhenServed({
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace },
      spec: { size: 3 }
    })

    expect(widget.metadata?.uid).toBeTruthy()
    expect(widget.spec?.size).toBe(3)
  })

  it('rejects a ConfigMap replace with a stale resourceVersion with 409 Conflict', async () => {
    const namespace = await uniqueNamespace()
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'state' }, data: { v: '1' } }
    })
    await core.replaceNamespacedConfigMap({
      name: 'state',
      namespace,
      body: { ...created, data: { v: '2' } }
    })

    const status = await statusOf(
      core.replaceNamespacedConfigMap({
        name: 'state',
        namespace,
        body: { ...created, data: { v: '3' } }
      })
    )

    expect(status).toBe(409)
  })
})

describe('read-only user tazuna-reader', () => {
  const reader = (): CoreV1Api =>
    loadKubeConfig(env('TAZUNA_TEST_READER_KUBECONFIG')).makeApiClient(CoreV1Api)

  it('may list ConfigMaps in namespace tazuna', async () => {
    const list = await reader().listNamespacedConfigMap({ namespace: 'tazuna' })

    expect(list.items).toBeInstanceOf(Array)
  })

  it('is forbidden (403) to create a ConfigMap', async () => {
    const status = await statusOf(
      reader().createNamespacedConfigMap({
        namespace: 'tazuna',
        body: { metadata: { name: 'nope' } }
      })
    )

    expect(status).toBe(403)
  })
})

describe('real tools', () => {
  it('kustomize v5.8.1 builds a kustomization', async () => {
    const kustomize = env('KUSTOMIZE_BIN')
    const { stdout: version } = await run(kustomize, ['version'])
    const { stdout } = await run(kustomize, ['build', path.join(fixtures, 'kustomize')])

    expect(version.trim()).toBe('v5.8.1')
    expect(stdout).toContain('name: harness-plain')
    expect(stdout).toMatch(/name: harness-generated-[a-z0-9]{10}\n/)
    expect(stdout).toContain('app.kubernetes.io/part-of: cluster-harness')
  })

  it('helm v3.21.4 renders a local chart with the test cluster Kubernetes version', async () => {
    const helm = env('HELM_BIN')
    const { stdout: version } = await run(helm, ['version', '--template', '{{.Version}}'])
    const home = await mkdtemp(path.join(os.tmpdir(), 'harness-helm-'))
    const { stdout } = await run(helm, ['template', 'demo', path.join(fixtures, 'chart')], {
      // No repositories or plugins of the developer's own helm setup.
      env: { ...process.env, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home }
    })

    expect(version).toBe('v3.21.4')
    expect(stdout).toContain('name: demo-harness')
    expect(stdout).toContain(`kubeVersion: "v1.${clusterRelease().minor}.0"`)
  })
})

async function waitForEstablished(name: string): Promise<void> {
  const api = admin.makeApiClient(ApiextensionsV1Api)
  for (let i = 0; i < 120; i++) {
    const crd = await api.readCustomResourceDefinition({ name })
    if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return
    await sleep(250)
  }
  throw new Error(`CRD ${name} not Established after 30 s`)
}

/** Discovery can lag Established by a moment (spec test-cluster.md 7.6): retry 404s briefly. */
async function applyWhenServed(obj: KubernetesObject & { spec?: unknown }): Promise<Applied> {
  for (let i = 0; ; i++) {
    try {
      return await serverSideApply(obj)
    } catch (err) {
      const notYet =
        err instanceof ApiException
          ? err.code === 404
          : /Unrecognized API version/.test(String(err))
      if (!notYet || i >= 60) throw err
      await sleep(500)
    }
  }
}
