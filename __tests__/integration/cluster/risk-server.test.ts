// Every "will fail on apply" rule of src/risk/rules.ts confirmed by the real API server: the
// before object is applied, the risk pass flags the after object, and the server refuses it.
// A rule the server accepts is a wrong rule. The test cluster runs kube-apiserver alone (no
// controllers): objects are stored and validated, never reconciled, which is all this needs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { assessRisks } from '../../../src/risk/assess.js'
import { formatStateKey, stateKeyOf } from '../../../src/state/key.js'
import { adminSession, namespace, uniqueName } from '../../support/cluster.js'

let admin: KubeSession
let ns: string

beforeAll(async () => {
  admin = await adminSession()
  ns = uniqueName('risk')
  await admin.cluster.apply(namespace(ns))
})

afterAll(() => admin.close())

const meta = (name: string) => ({ name, namespace: ns })
const podTemplate = (app: string): JsonObject => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] }
})
const deployment = (app: string): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('web'),
  spec: { selector: { matchLabels: { app } }, template: podTemplate(app) }
})
const claimTemplate = (storage: string): JsonObject => ({
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } }
})
const statefulSet = (spec: JsonObject): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: meta('db'),
  spec: {
    selector: { matchLabels: { app: 'db' } },
    serviceName: 'db',
    template: podTemplate('db'),
    ...spec
  }
})
const claim = (accessModes: string[]): JsonObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: meta('data'),
  spec: { accessModes, resources: { requests: { storage: '1Gi' } } }
})
const immutableConfigMap = (value: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: meta('frozen'),
  immutable: true,
  data: { value }
})
const service = (spec: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: meta('svc'),
  spec: { ports: [{ port: 80 }], ...spec }
})

/**
 * The will-fail paths the risk pass flags as live mode computes them: the live object against
 * the server's dry run of `after`, or, when the server refuses the dry run, against the render
 * laid over the live object (with the server's message kept).
 */
async function willFailPaths(live: JsonObject, after: JsonObject): Promise<string[]> {
  const key = formatStateKey(stateKeyOf('m', after))
  const side = <T>(o: T) => new Map([['m', new Map([[key, o]])]])
  let head = after
  let refusal: string | undefined
  try {
    head = (await admin.cluster.dryRunApply(after)).object
  } catch (error) {
    refusal = error instanceof Error ? error.message : String(error)
  }
  const risks = assessRisks({
    manifests: [{ manifest: 'm', entries: [{ type: 'modified', key }] }],
    before: side(live),
    head: side(head),
    ...(refusal === undefined ? {} : { refusals: side(refusal) })
  }).filter((r) => r.kind === 'will-fail')
  expect(risks.every((r) => r.server === refusal)).toBe(true)
  return risks.map((r) => r.path)
}

/** The object under a name of its own, so that the cases do not meet. */
// The tables are built when the file loads, before beforeAll names the namespace: set it here.
function named(obj: JsonObject, name: string): JsonObject {
  return { ...obj, metadata: { ...(obj.metadata as JsonObject), name, namespace: ns } }
}

async function liveOf(obj: JsonObject): Promise<JsonObject> {
  const m = obj.metadata as JsonObject
  const live = await admin.cluster.get({
    apiVersion: obj.apiVersion as string,
    kind: obj.kind as string,
    namespace: m.namespace as string,
    name: m.name as string
  })
  if (live === undefined) throw new Error(`${obj.kind as string} ${m.name as string} is not there`)
  return live
}

/** [rule, before, after, the field path flagged, the server's refusal]. */
const refused: [string, JsonObject, JsonObject, string, RegExp][] = [
  [
    'workload-selector',
    deployment('a'),
    deployment('b'),
    'spec.selector',
    /spec\.selector: Invalid value: .*field is immutable/
  ],
  [
    'statefulset-spec (volumeClaimTemplates)',
    statefulSet({ volumeClaimTemplates: [claimTemplate('1Gi')] }),
    statefulSet({ volumeClaimTemplates: [claimTemplate('2Gi')] }),
    'spec.volumeClaimTemplates',
    // Kubernetes 1.32 refused the whole spec; 1.37 names the field (both are the server's own).
    /spec: Forbidden: updates to statefulset spec for fields other than|spec\.volumeClaimTemplates: Invalid value: .*field is immutable/
  ],
  [
    'statefulset-spec (podManagementPolicy)',
    statefulSet({}),
    statefulSet({ podManagementPolicy: 'Parallel' }),
    'spec.podManagementPolicy',
    /spec: Forbidden: updates to statefulset spec for fields other than|spec\.podManagementPolicy: Invalid value: "Parallel": field is immutable/
  ],
  [
    'claim-spec',
    claim(['ReadWriteOnce']),
    claim(['ReadWriteMany']),
    'spec.accessModes',
    /spec: Forbidden: spec is immutable after creation/
  ],
  [
    'immutable-data',
    immutableConfigMap('1'),
    immutableConfigMap('2'),
    'data',
    /data: Forbidden: field is immutable when `immutable` is set/
  ]
]

describe('will-fail rules against the API server', () => {
  it.each(refused)(
    '%s: flagged, and refused by the server',
    async (_rule, before, after, path, why) => {
      const name = uniqueName('r')
      await admin.cluster.apply(named(before, name))
      const live = await liveOf(named(before, name))
      expect(await willFailPaths(live, named(after, name))).toEqual([path])
      await expect(admin.cluster.apply(named(after, name))).rejects.toThrow(why)
    }
  )

  it('service-cluster-ip: a new cluster IP is flagged, and refused by the server', async () => {
    await admin.cluster.apply(service({}))
    const live = await liveOf(service({}))
    const ip = (live.spec as JsonObject).clusterIP as string
    const parts = ip.split('.')
    const other = [...parts.slice(0, 3), String((Number(parts[3]) % 250) + 2)].join('.')
    const after = service({ clusterIP: other })
    expect(await willFailPaths(live, after)).toEqual(['spec.clusterIP'])
    await expect(admin.cluster.apply(after)).rejects.toThrow(
      /spec\.clusterIPs?(\[0\])?: Invalid value/
    )
  })

  it('an updatable StatefulSet field is not flagged, and the server applies it', async () => {
    const before = statefulSet({ replicas: 1, volumeClaimTemplates: [claimTemplate('1Gi')] })
    const after = statefulSet({
      replicas: 3,
      minReadySeconds: 5,
      volumeClaimTemplates: [claimTemplate('1Gi')]
    })
    const name = uniqueName('sts')
    const rename = (o: JsonObject): JsonObject => ({ ...o, metadata: meta(name) })
    await admin.cluster.apply(rename(before))
    expect(await willFailPaths(await liveOf(rename(before)), rename(after))).toEqual([])
    await expect(admin.cluster.apply(rename(after))).resolves.toBeUndefined()
  })

  // No rule for this on purpose: the server drops the allocated cluster IP itself.
  it('a Service turned ExternalName is not flagged, and the server applies it', async () => {
    const name = uniqueName('svc')
    const svc = (spec: JsonObject): JsonObject => named(service(spec), name)
    await admin.cluster.apply(svc({}))
    const after = svc({ type: 'ExternalName', externalName: 'db.example.com' })
    expect(await willFailPaths(await liveOf(svc({})), after)).toEqual([])
    await expect(admin.cluster.apply(after)).resolves.toBeUndefined()
  })
})
