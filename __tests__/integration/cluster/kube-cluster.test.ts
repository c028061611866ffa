// The Cluster and Discovery adapters against the real test API server: server-side apply with
// field manager `tazuna`, raw bodies (strict field validation sees every field we send), CRDs
// followed by their custom resources, Job/Pod recreation, deletes and error messages.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { ClusterError } from '../../../src/errors.js'
import { clusterRelease } from '../../cluster/release.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import {
  adminSession,
  configMap,
  namespace,
  readerSession,
  uniqueName
} from '../../support/cluster.js'

let admin: KubeSession
let ns: string

beforeAll(async () => {
  admin = await adminSession()
  ns = uniqueName('cluster')
  await admin.cluster.apply(namespace(ns))
})

afterAll(() => admin.close())

function managers(live: JsonObject | undefined): string[] {
  const fields = (live?.metadata as JsonObject).managedFields as JsonObject[]
  return fields.map((f) => `${f.manager as string}/${f.operation as string}`)
}

describe('discovery', () => {
  it('reports the server version and every group/version and group/version/Kind', async () => {
    const caps = await admin.discovery.capabilities()
    expect(caps.kubeVersion).toBe(clusterRelease().version)
    expect(caps.apiVersions).toEqual(
      expect.arrayContaining([
        'v1',
        'v1/ConfigMap',
        'apps/v1',
        'apps/v1/Deployment',
        'batch/v1/Job'
      ])
    )
    expect([...caps.apiVersions].sort()).toEqual(caps.apiVersions)
  })
})

describe('apply', () => {
  it('creates and updates objects by server-side apply as field manager tazuna', async () => {
    await admin.cluster.apply(configMap(ns, 'ssa', { a: '1' }))
    await admin.cluster.apply(configMap(ns, 'ssa', { a: '2' }))
    const live = await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'ssa'
    })
    expect(live?.data).toEqual({ a: '2' })
    expect(managers(live)).toEqual(['tazuna/Apply'])
  })

  // The typed serializer of client-node would drop `notAField` and succeed silently. The API
  // server answers SSA of an undeclared field with a 500, which must not be retried.
  it('sends the raw object, so the server sees and rejects a field the schema lacks', async () => {
    const obj = { ...configMap(ns, 'strict', { a: '1' }), notAField: true }
    await expect(admin.cluster.apply(obj)).rejects.toThrow(
      /^apply v1 ConfigMap .*\/strict: HTTP 500 .*\.notAField: field not declared in schema$/
    )
  })

  it('ignores resourceVersion and managedFields carried by the object', async () => {
    const obj = configMap(ns, 'stale', { a: '1' })
    ;(obj.metadata as JsonObject).resourceVersion = '1'
    ;(obj.metadata as JsonObject).managedFields = [{ manager: 'someone-else' }]
    await admin.cluster.apply(obj)
    const live = await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'stale'
    })
    expect(managers(live)).toEqual(['tazuna/Apply'])
  })

  it('applies a cluster-scoped object that carries an injected namespace (docs/compatibility.md#cluster-scoped-namespace)', async () => {
    const name = uniqueName('role')
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, namespace: ns },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]
    }
    await admin.cluster.apply(role)
    const live = await admin.cluster.get({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      name
    })
    expect((live?.metadata as JsonObject).name).toBe(name)
  })

  it('applies a custom resource right after its CRD', async () => {
    const group = `${uniqueName('g')}.example.com`
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
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
    await admin.cluster.apply(crd)
    const cr = {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 3 }
    }
    await admin.cluster.apply(cr)
    const live = await admin.cluster.get({
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      namespace: ns,
      name: 'w'
    })
    expect(live?.spec).toEqual({ size: 3 })
  })

  it('deletes and recreates a Job on every apply', async () => {
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once', namespace: ns },
      spec: {
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'c', image: 'busybox', command: ['true'] }]
          }
        }
      }
    }
    const ref = { apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'once' }
    await admin.cluster.apply(job)
    const first = await admin.cluster.get(ref)
    await admin.cluster.apply(job)
    const second = await admin.cluster.get(ref)
    expect((second?.metadata as JsonObject).uid).not.toBe((first?.metadata as JsonObject).uid)
  })

  it('deletes and recreates a Pod on every apply', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: ns },
      spec: { containers: [{ name: 'c', image: 'busybox' }] }
    }
    const ref = { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'p' }
    await admin.cluster.apply(pod)
    const first = await admin.cluster.get(ref)
    await admin.cluster.apply(pod)
    const second = await admin.cluster.get(ref)
    expect((second?.metadata as JsonObject).uid).not.toBe((first?.metadata as JsonObject).uid)
  })

  it('names the verb, the object and the API message when the server refuses', async () => {
    const error = await admin.cluster
      .apply(configMap('no-such-namespace-x', 'cm', {}))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ClusterError)
    expect((error as ClusterError).message).toBe(
      'apply v1 ConfigMap no-such-namespace-x/cm: HTTP 404 NotFound: namespaces "no-such-namespace-x" not found'
    )
    expect((error as ClusterError).code).toBe(404)
  })

  it("names a Secret's refused field but not the value the server quotes", async () => {
    const secret = (kind: string) => ({
      apiVersion: 'v1',
      kind,
      metadata: { name: 'unquoted', namespace: ns },
      data: { password: 918273 }
    })
    const refusal = async (kind: string) =>
      String(((await admin.cluster.apply(secret(kind)).catch((e: unknown) => e)) as Error).message)
    // The same mistake in a ConfigMap shows what the server says (structured-merge-diff's words).
    expect(await refusal('ConfigMap')).toContain(
      '.data.password: expected string, got &value.valueUnstructured{Value:918273}'
    )
    const message = await refusal('Secret')
    expect(message).toContain(
      '.data.password: expected string, got a value that is not shown (the object is a Secret)'
    )
    expect(message).not.toContain('918273')
  })

  it('fails for a kind the server does not serve', async () => {
    await expect(
      admin.cluster.apply({
        apiVersion: 'nope.example.com/v1',
        kind: 'Nope',
        metadata: { name: 'n' }
      })
    ).rejects.toThrow(
      'apply nope.example.com/v1 Nope n: the API server does not serve kind Nope in nope.example.com/v1'
    )
  })
})

describe('get and delete', () => {
  it('returns undefined for a missing object and ignores NotFound on delete', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'missing' }
    expect(await admin.cluster.get(ref)).toBeUndefined()
    await expect(admin.cluster.delete(ref)).resolves.toBeUndefined()
  })

  it('deletes an existing object', async () => {
    await admin.cluster.apply(configMap(ns, 'gone', {}))
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'gone' }
    await admin.cluster.delete(ref)
    expect(await admin.cluster.get(ref)).toBeUndefined()
  })
})

describe('the read-only reader', () => {
  it('can discover but gets 403 Forbidden on apply', async () => {
    const reader = await readerSession()
    try {
      expect((await reader.discovery.capabilities()).kubeVersion).toBe(clusterRelease().version)
      const error = (await reader.cluster
        .apply(configMap(ns, 'r', {}))
        .catch((e: unknown) => e)) as ClusterError
      expect(error.code).toBe(403)
      expect(error.message).toMatch(
        /^apply v1 ConfigMap .*\/r: HTTP 403 Forbidden: configmaps "r" is forbidden/
      )
    } finally {
      reader.close()
    }
  })
})
