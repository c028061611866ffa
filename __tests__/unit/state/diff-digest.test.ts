import { describe, expect, it } from '@jest/globals'
import { createHash } from 'node:crypto'
import { diffDigests, shortDigest } from '../../../src/state/diff-digest.js'
import type { DiffEntry } from '../../../src/state/diff.js'

const settings: DiffEntry = {
  type: 'modified',
  key: 'v1/ConfigMap/default/settings',
  oldHash: 'a'.repeat(64),
  newHash: 'b'.repeat(64)
}
const added: DiffEntry = { type: 'added', key: 'v1/ConfigMap/default/new', newHash: 'c'.repeat(64) }
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe('diffDigests', () => {
  it('is sha256 over the canonical JSON of sorted (manifest, class, key, recorded, new) rows', () => {
    const { digest, manifests } = diffDigests([{ manifest: 'app', entries: [settings] }])
    const row = ['modified', settings.key, settings.oldHash, settings.newHash]
    expect(digest).toBe(sha256(JSON.stringify([['app', ...row]])))
    expect(manifests).toEqual({ app: sha256(JSON.stringify([row])) })
  })

  it('does not depend on the order of manifests or entries', () => {
    const one = diffDigests([
      { manifest: 'b', entries: [settings, added] },
      { manifest: 'a', entries: [added] }
    ])
    const other = diffDigests([
      { manifest: 'a', entries: [added] },
      { manifest: 'b', entries: [added, settings] }
    ])
    expect(one).toEqual(other)
  })

  it.each([
    ['the recorded hash', { ...settings, oldHash: 'd'.repeat(64) }],
    ['the new hash', { ...settings, newHash: 'd'.repeat(64) }],
    ['the class', { ...settings, type: 'always-sync' as const }],
    ['the key', { ...settings, key: 'v1/ConfigMap/default/other' }]
  ])('changes with %s', (_, changed) => {
    const before = diffDigests([{ manifest: 'app', entries: [settings] }])
    const after = diffDigests([{ manifest: 'app', entries: [changed] }])
    expect(after.digest).not.toBe(before.digest)
    expect(after.manifests.app).not.toBe(before.manifests.app)
  })

  it('leaves manifests without entries out, and tells which manifest moved', () => {
    const base = diffDigests([
      { manifest: 'app', entries: [settings] },
      { manifest: 'db', entries: [added] },
      { manifest: 'empty', entries: [] }
    ])
    const moved = diffDigests([
      { manifest: 'app', entries: [{ ...settings, newHash: 'e'.repeat(64) }] },
      { manifest: 'db', entries: [added] }
    ])
    expect(Object.keys(base.manifests)).toEqual(['app', 'db'])
    expect(moved.manifests.db).toBe(base.manifests.db)
    expect(moved.manifests.app).not.toBe(base.manifests.app)
    expect(shortDigest(base.digest)).toHaveLength(12)
  })
})
