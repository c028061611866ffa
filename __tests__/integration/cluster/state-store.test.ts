// The State store against the real API server: exact ConfigMap shape, legacy data keys,
// one-LIST reads, resourceVersion-guarded saves and the 409 conflict path, the size limit.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { CONFIGMAP_DATA_LIMIT, configMapDataSize } from '../../../src/apply/state-size.js'
import type { State } from '../../../src/state/state.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { adminSession, readerSession, uniqueName } from '../../support/cluster.js'

let admin: KubeSession
const HASH_A = 'a'.repeat(64)
const HASH_B = 'b'.repeat(64)
const HASH_C = 'c'.repeat(64)

beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

function stateOf(entries: Record<string, string>, lastSyncedAt = '2026-05-08T01:02:03Z'): State {
  return {
    metadata: { gitCommitHash: 'abc', lastSyncedAt },
    entries: new Map(Object.entries(entries))
  }
}

async function rawConfigMap(manifest: string): Promise<JsonObject | undefined> {
  return admin.cluster.get({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'tazuna',
    name: `tazuna-state-${manifest}`
  })
}

async function writeRaw(manifest: string, data: Record<string, string>): Promise<void> {
  const res = await admin.client.request(
    {
      method: 'POST',
      path: '/api/v1/namespaces/tazuna/configmaps',
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `tazuna-state-${manifest}` },
        data
      }
    },
    'test setup'
  )
  expect(res.status).toBe(201)
}

async function replaceRaw(manifest: string, data: Record<string, string>): Promise<void> {
  const live = (await rawConfigMap(manifest)) as JsonObject
  const res = await admin.client.request(
    {
      method: 'PUT',
      path: `/api/v1/namespaces/tazuna/configmaps/tazuna-state-${manifest}`,
      body: { ...live, data }
    },
    'test setup'
  )
  expect(res.status).toBe(200)
}

describe('KubeStateStore', () => {
  it('reads a missing ConfigMap as empty State without a resourceVersion', async () => {
    const stored = await admin.store.read(uniqueName('none'))
    expect(stored.resourceVersion).toBeUndefined()
    expect(stored.state.entries.size).toBe(0)
  })

  it('writes only name, namespace and data with the Go bytes', async () => {
    const m = uniqueName('shape')
    const key = `${m}/rbac.authorization.k8s.io/v1/ClusterRole/system:controller:foo`
    await admin.store.save(m, stateOf({ [key]: HASH_A }), {
      touchedKeys: new Set([key]),
      base: await admin.store.read(m)
    })
    const cm = (await rawConfigMap(m)) as JsonObject
    const metadata = cm.metadata as JsonObject
    expect(metadata.labels).toBeUndefined()
    expect(metadata.annotations).toBeUndefined()
    expect(cm.data).toEqual({
      _metadata: '{"gitCommitHash":"abc","lastSyncedAt":"2026-05-08T01:02:03Z"}',
      [`${m}__rbac.authorization.k8s.io__v1__ClusterRole__system_x3acontroller_x3afoo`]: `{"contentHash":"${HASH_A}"}`
    })
    const back = await admin.store.read(m)
    expect([...back.state.entries]).toEqual([[key, HASH_A]])
    expect(back.resourceVersion).toBe(metadata.resourceVersion)
  })

  it('reads State written with the legacy data-key encoding', async () => {
    const m = uniqueName('legacy')
    await writeRaw(m, {
      _metadata: '{"gitCommitHash":"","lastSyncedAt":"2026-01-01T00:00:00Z"}',
      [`${m}__apps__v1__Deployment__my-namespace__my-app`]: `{"contentHash":"${HASH_A}"}`
    })
    const stored = await admin.store.read(m)
    expect([...stored.state.entries]).toEqual([
      [`${m}/apps/v1/Deployment/my-namespace/my-app`, HASH_A]
    ])
    expect(stored.state.metadata.lastSyncedAt).toBe('2026-01-01T00:00:00Z')
  })

  it('reads many manifests with one list, also as the read-only reader', async () => {
    const names = [uniqueName('many'), uniqueName('many'), uniqueName('many')]
    for (const m of names.slice(0, 2)) {
      await admin.store.save(m, stateOf({ [`${m}//v1/ConfigMap/ns/x`]: HASH_A }), {
        touchedKeys: new Set(),
        base: { state: stateOf({}) }
      })
    }
    const reader = await readerSession()
    try {
      const stored = await reader.store.readMany(names)
      expect(names.map((m) => stored.get(m)?.state.entries.size)).toEqual([1, 1, 0])
      expect(stored.get(names[0] as string)?.resourceVersion).toMatch(/^\d+$/)
    } finally {
      reader.close()
    }
  })

  it('keeps labels and annotations someone else put on the ConfigMap when updating', async () => {
    const m = uniqueName('keep')
    await writeRaw(m, {})
    const live = (await rawConfigMap(m)) as JsonObject
    ;(live.metadata as JsonObject).labels = { team: 'a' }
    await admin.client.request(
      { method: 'PUT', path: `/api/v1/namespaces/tazuna/configmaps/tazuna-state-${m}`, body: live },
      'test setup'
    )
    const base = await admin.store.read(m)
    await admin.store.save(m, stateOf({ [`${m}//v1/ConfigMap/ns/x`]: HASH_A }), {
      touchedKeys: new Set(),
      base
    })
    expect(((await rawConfigMap(m))?.metadata as JsonObject).labels).toEqual({ team: 'a' })
  })

  it('retries a conflicting save when only entries this run touched changed meanwhile', async () => {
    const m = uniqueName('merge')
    const [k1, k2] = [`${m}//v1/ConfigMap/ns/one`, `${m}//v1/ConfigMap/ns/two`]
    await admin.store.save(m, stateOf({ [k1]: HASH_A, [k2]: HASH_A }), {
      touchedKeys: new Set(),
      base: { state: stateOf({}) }
    })
    const base = await admin.store.read(m)
    await replaceRaw(m, {
      ...((await rawConfigMap(m))?.data as Record<string, string>),
      [`${m}____v1__ConfigMap__ns__one`]: `{"contentHash":"${HASH_C}"}`
    })
    await admin.store.save(m, stateOf({ [k1]: HASH_B, [k2]: HASH_A }), {
      touchedKeys: new Set([k1]),
      base
    })
    expect([...(await admin.store.read(m)).state.entries]).toEqual([
      [k1, HASH_B],
      [k2, HASH_A]
    ])
  })

  it('fails a conflicting save naming the manifest when another deploy changed other entries', async () => {
    const m = uniqueName('conflict')
    const [k1, k2] = [`${m}//v1/ConfigMap/ns/one`, `${m}//v1/ConfigMap/ns/two`]
    await admin.store.save(m, stateOf({ [k1]: HASH_A, [k2]: HASH_A }), {
      touchedKeys: new Set(),
      base: { state: stateOf({}) }
    })
    const base = await admin.store.read(m)
    const before = (await rawConfigMap(m))?.data as Record<string, string>
    await replaceRaw(m, {
      ...before,
      [`${m}____v1__ConfigMap__ns__two`]: `{"contentHash":"${HASH_C}"}`
    })
    await expect(
      admin.store.save(m, stateOf({ [k1]: HASH_B, [k2]: HASH_A }), {
        touchedKeys: new Set([k1]),
        base
      })
    ).rejects.toThrow(
      `state of manifest "${m}" (ConfigMap tazuna/tazuna-state-${m}) was changed by another deploy`
    )
    expect((await admin.store.read(m)).state.entries.get(k2)).toBe(HASH_C)
  })

  it('fails a create when another deploy created the State with entries meanwhile', async () => {
    const m = uniqueName('race')
    const base = await admin.store.read(m)
    await writeRaw(m, { [`${m}____v1__ConfigMap__ns__theirs`]: `{"contentHash":"${HASH_C}"}` })
    await expect(
      admin.store.save(m, stateOf({ [`${m}//v1/ConfigMap/ns/mine`]: HASH_A }), {
        touchedKeys: new Set([`${m}//v1/ConfigMap/ns/mine`]),
        base
      })
    ).rejects.toThrow('was changed by another deploy')
  })

  it.each([
    ['ASCII at the limit', { a: 'x'.repeat(1048576) }, 201],
    ['ASCII one byte over', { a: 'x'.repeat(1048577) }, 422],
    [
      'two-byte characters at the limit (bytes count, not characters)',
      { a: 'é'.repeat(524288) },
      201
    ],
    ['keys do not count', { ['k'.repeat(200)]: 'x'.repeat(1048576) }, 201]
  ])('computes the data size like the API server: %s', async (_label, data, status) => {
    expect(configMapDataSize(data) > CONFIGMAP_DATA_LIMIT).toBe(status === 422)
    const res = await admin.client.request(
      {
        method: 'POST',
        path: '/api/v1/namespaces/tazuna/configmaps',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('size') }, data }
      },
      'size probe'
    )
    expect(res.status).toBe(status)
  })

  it('refuses State over the 1 MiB ConfigMap data limit before sending it', async () => {
    const m = uniqueName('huge')
    const entries: Record<string, string> = {}
    for (let i = 0; i < 13000; i++) entries[`${m}//v1/ConfigMap/ns/cm-${i}`] = HASH_A
    await expect(
      admin.store.save(m, stateOf(entries), {
        touchedKeys: new Set(),
        base: { state: stateOf({}) }
      })
    ).rejects.toThrow(
      new RegExp(
        `^state of manifest "${m}" is too large to save: 13000 entries make \\d+ bytes of ConfigMap data, over the API server's limit of 1048576 bytes`
      )
    )
    expect(await rawConfigMap(m)).toBeUndefined()
  })
})
