import { describe, expect, it } from '@jest/globals'
import type { DesiredState } from '../../../src/apply/manifest-unit.js'
import type { StoredState } from '../../../src/apply/ports.js'
import type { Manifest } from '../../../src/config/schema.js'
import type { ApplyDeps } from '../../../src/engine/apply.js'
import type { ConfigRun } from '../../../src/engine/load.js'
import { passReviewGate } from '../../../src/engine/review-gate.js'
import type { GateManifest } from '../../../src/report/diff-gate.js'

const h = (c: string) => c.repeat(64)
const manifest = (name: string, tags: string[] = []) =>
  ({ name, type: 'kustomize', tags }) as unknown as Manifest
const run = {
  manifests: [manifest('config'), manifest('web', ['web']), manifest('')]
} as unknown as ConfigRun
const stored = (entries: [string, string][]): StoredState => ({
  state: { metadata: { gitCommitHash: '', lastSyncedAt: '' }, entries: new Map(entries) }
})

function depsOf(builds: string[], tags: string[] = []): ApplyDeps {
  return {
    settings: { tags } as unknown as ApplyDeps['settings'],
    session: {
      store: {
        readMany: () =>
          Promise.resolve(new Map([['config', stored([['v1/ConfigMap/d/settings', h('0')]])]]))
      }
    } as unknown as ApplyDeps['session'],
    clock: {} as ApplyDeps['clock'],
    build: (m) => {
      builds.push(m.name)
      if (m.name === 'web') return Promise.reject(new Error('kustomize build failed'))
      const desired: DesiredState = {
        objects: [],
        entries: new Map([['v1/ConfigMap/d/settings', h('1')]]),
        alwaysSync: new Set()
      }
      return Promise.resolve(desired)
    }
  }
}

describe('passReviewGate', () => {
  it('hands the gate every selected named manifest Diff from State, before the layered apply renders', async () => {
    const builds: string[] = []
    let seen: readonly GateManifest[] = []
    const deps = await passReviewGate(run, (diff) => void (seen = diff), depsOf(builds))
    expect(seen.map((m) => [m.manifest, m.entries, m.error])).toEqual([
      [
        'config',
        [{ type: 'modified', key: 'v1/ConfigMap/d/settings', oldHash: h('0'), newHash: h('1') }],
        undefined
      ],
      ['web', undefined, 'kustomize build failed']
    ])
    await deps.build(run.manifests[0]!)
    await expect(deps.build(run.manifests[1]!)).rejects.toThrow('kustomize build failed')
    expect(builds).toEqual(['config', 'web'])
  })

  it('leaves out manifests the tags do not select', async () => {
    let seen: readonly GateManifest[] = []
    await passReviewGate(run, (diff) => void (seen = diff), depsOf([], ['other']))
    expect(seen).toEqual([])
  })

  it('refuses when the gate throws', async () => {
    const refuse = () => {
      throw new Error('refusing to apply')
    }
    await expect(passReviewGate(run, refuse, depsOf([]))).rejects.toThrow('refusing to apply')
  })
})
