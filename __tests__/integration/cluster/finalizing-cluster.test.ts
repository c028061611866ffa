// Prune, destroy and Job recreation on a cluster that really finalizes and collects garbage
// (kube-controller-manager and kwok, __tests__/cluster/README.md): what is left in State and in
// the cluster is what a team expects. Expected values: docs/compatibility.md#prune-and-delete
// (pruned objects leave State), #destroy (State is left exactly as it was) and
// #applying-one-object (a Job is deleted, with propagationPolicy Background, and created again).
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import { destroyCommand } from '../../../src/cli/destroy-command.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { adminSession, configMap, namespace, uniqueName } from '../../support/cluster.js'
import { deployment, runCommand, writeProject } from '../../support/cli-project.js'

let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

const env = { KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG }

/** Polls `probe` every 250 ms until it answers, for at most 90 s (real controllers, loaded CI). */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 360; i++) {
    const value = await probe()
    if (value !== undefined) return value
    await sleep(250)
  }
  throw new Error(`${what}: not within 90 s`)
}

const get = (apiVersion: string, kind: string, ns: string | undefined, name: string) =>
  admin.cluster.get({ apiVersion, kind, ...(ns === undefined ? {} : { namespace: ns }), name })

const stateOf = async (manifest: string): Promise<Record<string, string> | undefined> => {
  const cm = await get('v1', 'ConfigMap', 'tazuna', `tazuna-state-${manifest}`)
  return cm?.data as Record<string, string> | undefined
}

const podsIn = async (ns: string): Promise<JsonObject[]> => {
  const res = await admin.client.request(
    { method: 'GET', path: `/api/v1/namespaces/${ns}/pods` },
    `list Pods in ${ns}`
  )
  return (JSON.parse(res.body) as { items: JsonObject[] }).items
}

const uidOf = (o: JsonObject | undefined): string =>
  String((o?.metadata as { uid?: string } | undefined)?.uid)

const complete = (job: JsonObject | undefined): boolean =>
  (
    (job?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ??
    []
  ).some((c) => c.type === 'Complete' && c.status === 'True')

function job(ns: string, name: string, run: string): JsonObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: ns },
    spec: {
      template: {
        metadata: { annotations: { run } },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'migrate', image: 'registry.invalid/migrate:1' }]
        }
      }
    }
  }
}

describe('a cluster that finalizes', () => {
  it('prune of a Namespace: its objects and its Pods are gone, and State names none of them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'finalize-prune-'))
    const [m, ns, keepNs] = [uniqueName('prune'), uniqueName('gone'), uniqueName('keep')]
    await admin.cluster.apply(namespace(keepNs))
    writeProject(dir, [
      {
        name: m,
        objects: [
          namespace(ns),
          configMap(ns, 'settings', { level: 'info' }),
          deployment(ns, 'web', 1, 'run'),
          configMap(keepNs, 'kept', { k: 'v' })
        ]
      }
    ])
    const file = path.join(dir, 'tazuna.yaml')
    expect((await runCommand(applyCommand, file, { options: { sync: true }, env })).code).toBe(0)
    await eventually('a Pod of web running', async () =>
      (await podsIn(ns)).length > 0 ? true : undefined
    )

    writeProject(dir, [{ name: m, objects: [configMap(keepNs, 'kept', { k: 'v' })] }])
    const pruned = await runCommand(applyCommand, file, {
      options: { sync: true, prune: true },
      env
    })
    expect(pruned.code).toBe(0)

    const keys = Object.keys((await stateOf(m)) ?? {}).filter((k) => k !== '_metadata')
    expect(keys).toHaveLength(1)
    expect(keys[0]).toContain(keepNs)
    // The namespace controller deletes what the Namespace held, Pods included, then the Namespace.
    await eventually(`Namespace ${ns} gone`, async () =>
      (await get('v1', 'Namespace', undefined, ns)) === undefined ? true : undefined
    )
    expect(await get('apps/v1', 'Deployment', ns, 'web')).toBeUndefined()
    expect(await podsIn(ns)).toEqual([])
    expect(await get('v1', 'ConfigMap', keepNs, 'kept')).toBeDefined()
    await admin.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: keepNs })
  })

  it('destroy: the objects and what they own are gone; State is left exactly as it was', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'finalize-destroy-'))
    const [m, ns] = [uniqueName('destroy'), uniqueName('ns')]
    await admin.cluster.apply(namespace(ns))
    const file = writeProject(dir, [{ name: m, objects: [deployment(ns, 'web', 2, 'run')] }])
    expect((await runCommand(applyCommand, file, { options: { sync: true }, env })).code).toBe(0)
    await eventually('2 Pods of web', async () =>
      (await podsIn(ns)).length === 2 ? true : undefined
    )
    const before = await stateOf(m)

    const destroyed = await runCommand(destroyCommand, file, {
      options: { force: true },
      env: { ...env, TAZUNA_DESTROY_EXECUTABLE: 'true' }
    })
    expect(destroyed.code).toBe(0)

    // The garbage collector deletes the ReplicaSet and its Pods the Deployment owned.
    await eventually(`Pods of web in ${ns} gone`, async () =>
      (await podsIn(ns)).length === 0 ? true : undefined
    )
    expect(await get('apps/v1', 'Deployment', ns, 'web')).toBeUndefined()
    expect(await stateOf(m)).toEqual(before)
    await admin.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns })
  })

  it('a Job recreated on apply runs again, and the old run’s Pods are collected', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'finalize-job-'))
    const [m, ns] = [uniqueName('job'), uniqueName('ns')]
    await admin.cluster.apply(namespace(ns))
    await eventually('ServiceAccount default', async () =>
      (await get('v1', 'ServiceAccount', ns, 'default')) === undefined ? undefined : true
    )
    const file = writeProject(dir, [{ name: m, objects: [job(ns, 'migrate', '1')] }])
    expect((await runCommand(applyCommand, file, { options: { sync: true }, env })).code).toBe(0)
    const first = await eventually('the first run Complete', async () => {
      const j = await get('batch/v1', 'Job', ns, 'migrate')
      return complete(j) ? j : undefined
    })

    writeProject(dir, [{ name: m, objects: [job(ns, 'migrate', '2')] }])
    expect((await runCommand(applyCommand, file, { options: { sync: true }, env })).code).toBe(0)
    const second = await eventually('the second run Complete', async () => {
      const j = await get('batch/v1', 'Job', ns, 'migrate')
      return complete(j) && uidOf(j) !== uidOf(first) ? j : undefined
    })

    expect((second.status as { succeeded?: number }).succeeded).toBe(1)
    const owners = async () =>
      (await podsIn(ns)).map(
        (p) =>
          ((p.metadata as { ownerReferences?: { uid: string }[] }).ownerReferences ?? [])[0]?.uid
      )
    await eventually('only the second run’s Pod left', async () => {
      const uids = await owners()
      return uids.length === 1 && uids[0] === uidOf(second) ? true : undefined
    })
    await admin.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns })
  })
})
