import { describe, expect, it } from '@jest/globals'
import type { DiffEntry } from '../../../src/state/diff.js'
import {
  renderNotComparedText,
  settleWithheldSecrets,
  statesOfSnapshot,
  WITHHELD_HASH
} from '../../../src/state/snapshot-diff.js'
import type { StateSnapshot } from '../../../src/state/snapshot.js'
import { renderDiffText } from '../../../src/state/text.js'

const secret = 'app//v1/Secret/app/db'
const settings = 'app//v1/ConfigMap/app/settings'
const h = (c: string) => c.repeat(64)

describe('statesOfSnapshot', () => {
  it('reads Secret entries with the withheld hash and other entries as recorded', () => {
    const snapshot = {
      manifests: new Map([
        [
          'app',
          {
            metadata: { gitCommitHash: 'c1', lastSyncedAt: 't' },
            entries: new Map([[settings, h('a')]]),
            secrets: [secret]
          }
        ]
      ])
    } as unknown as StateSnapshot
    expect(statesOfSnapshot(snapshot)).toEqual(
      new Map([
        [
          'app',
          {
            metadata: { gitCommitHash: 'c1', lastSyncedAt: 't' },
            entries: new Map([
              [settings, h('a')],
              [secret, WITHHELD_HASH]
            ])
          }
        ]
      ])
    )
  })
})

describe('settleWithheldSecrets', () => {
  const modifiedSecret: DiffEntry = {
    type: 'modified',
    key: secret,
    oldHash: WITHHELD_HASH,
    newHash: h('b')
  }
  const modifiedSettings: DiffEntry = {
    type: 'modified',
    key: settings,
    oldHash: h('a'),
    newHash: h('c')
  }
  const removedSecret: DiffEntry = { type: 'removed', key: secret, oldHash: WITHHELD_HASH }
  const alwaysSync: DiffEntry = { type: 'always-sync', key: secret, newHash: h('d') }

  it('lists a Secret it cannot compare as not compared and keeps every other entry', () => {
    const diffs = [
      { manifest: 'app', type: 'kustomize', entries: [modifiedSettings, modifiedSecret] }
    ]
    expect(settleWithheldSecrets(diffs)).toEqual({
      manifests: [{ manifest: 'app', type: 'kustomize', entries: [modifiedSettings] }],
      notCompared: [{ manifest: 'app', key: secret }]
    })
  })

  it('counts a Secret whose base and head renders are the same as unchanged', () => {
    const diffs = [{ manifest: 'app', entries: [modifiedSecret] }]
    const settled = settleWithheldSecrets(diffs, (m, key) => m === 'app' && key === secret)
    expect(settled).toEqual({ manifests: [{ manifest: 'app', entries: [] }], notCompared: [] })
  })

  it('keeps removed and always-sync Secret entries, which need no recorded hash', () => {
    const diffs = [{ manifest: 'app', entries: [removedSecret, alwaysSync] }]
    expect(settleWithheldSecrets(diffs).manifests[0]!.entries).toEqual([removedSecret, alwaysSync])
    expect(renderDiffText(diffs)).toContain('(was: withheld)')
  })
})

describe('renderNotComparedText', () => {
  it('is empty without entries', () => {
    expect(renderNotComparedText([])).toBe('')
  })

  it('lists each entry as a # line with its manifest and resource, sorted', () => {
    expect(
      renderNotComparedText([
        { manifest: 'b', key: 'b//v1/Secret/x/s' },
        { manifest: 'a', key: secret }
      ])
    ).toBe(
      '# Not compared without cluster access (a State snapshot holds no Secret hashes):\n' +
        '#   a: /v1/Secret/app/db\n' +
        '#   b: /v1/Secret/x/s\n'
    )
  })
})
