import { describe, expect, it } from '@jest/globals'
import {
  formatSyncTime,
  StateDataError,
  stateConfigMapName,
  stateFromConfigMapData,
  stateToConfigMapData,
  type State
} from '../../../src/state/state.js'

const hash = 'a3a5b30562256c9e8fd0dbe0ff663080701af07cfefa2828663e5b332bf3d2cf'

describe('stateToConfigMapData', () => {
  it('writes the exact bytes of the Go structs (docs/compatibility.md#entry-and-metadata-bytes)', () => {
    const state: State = {
      metadata: { gitCommitHash: '', lastSyncedAt: '2026-05-08T01:02:03Z' },
      entries: new Map([['m/rbac.authorization.k8s.io/v1/ClusterRole/system:foo', hash]])
    }
    expect(stateToConfigMapData(state)).toEqual({
      _metadata: '{"gitCommitHash":"","lastSyncedAt":"2026-05-08T01:02:03Z"}',
      'm__rbac.authorization.k8s.io__v1__ClusterRole__system_x3afoo': `{"contentHash":"${hash}"}`
    })
  })

  it('round-trips through stateFromConfigMapData', () => {
    const state: State = {
      metadata: { gitCommitHash: 'abc', lastSyncedAt: '2026-05-08T01:02:03Z' },
      entries: new Map([
        ['m//v1/Service/default/web', hash],
        ['m/g/v1/K/name_with_underscore', hash]
      ])
    }
    expect(stateFromConfigMapData(stateToConfigMapData(state), 'm')).toEqual(state)
  })
})

describe('stateFromConfigMapData', () => {
  it('reads legacy data keys and ignores unknown fields', () => {
    const state = stateFromConfigMapData(
      {
        _metadata: '{"gitCommitHash":"c0ffee","lastSyncedAt":"t","extra":1}',
        m__apps__v1__Deployment__ns__app: `{"contentHash":"${hash}","note":"x"}`
      },
      'm'
    )
    expect(state.metadata).toEqual({ gitCommitHash: 'c0ffee', lastSyncedAt: 't' })
    expect([...state.entries]).toEqual([['m/apps/v1/Deployment/ns/app', hash]])
  })

  it('reads missing fields and a null document as empty strings', () => {
    const state = stateFromConfigMapData({ _metadata: 'null', a__b__c__d__e: '{}' }, 'm')
    expect(state.metadata).toEqual({ gitCommitHash: '', lastSyncedAt: '' })
    expect(state.entries.get('a/b/c/d/e')).toBe('')
  })

  it('matches field names case-insensitively like encoding/json', () => {
    const state = stateFromConfigMapData({ a__b__c__d__e: '{"CONTENTHASH":"x"}' }, 'm')
    expect(state.entries.get('a/b/c/d/e')).toBe('x')
  })

  it('reads an absent _metadata as empty metadata', () => {
    expect(stateFromConfigMapData({}, 'm').metadata).toEqual({
      gitCommitHash: '',
      lastSyncedAt: ''
    })
  })

  it.each([
    [
      'an entry that is not JSON',
      { a__b__c__d__e: 'nope' },
      'failed to parse state entry for key "a__b__c__d__e" in ConfigMap tazuna/tazuna-state-m'
    ],
    [
      'an entry with a number hash',
      { a__b__c__d__e: '{"contentHash":1}' },
      'failed to parse state entry for key "a__b__c__d__e"'
    ],
    ['an entry that is an array', { a__b__c__d__e: '[]' }, 'failed to parse state entry for key'],
    [
      'metadata that is not JSON',
      { _metadata: '{' },
      'failed to parse state metadata in ConfigMap tazuna/tazuna-state-m'
    ]
  ])('rejects %s, naming the ConfigMap and key', (_name, data, message) => {
    expect(() => stateFromConfigMapData(data, 'm')).toThrow(StateDataError)
    expect(() => stateFromConfigMapData(data, 'm')).toThrow(message)
  })
})

describe('formatSyncTime', () => {
  it.each([
    ['2026-05-08T01:02:03.999Z', '2026-05-08T01:02:03Z'],
    ['2026-05-08T10:02:03+09:00', '2026-05-08T01:02:03Z'],
    ['2026-12-31T23:59:59.000Z', '2026-12-31T23:59:59Z']
  ])('formats %s as RFC 3339 seconds in UTC', (input, expected) => {
    expect(formatSyncTime(new Date(input))).toBe(expected)
  })
})

describe('stateConfigMapName', () => {
  it('prefixes the manifest name', () => {
    expect(stateConfigMapName('state-minimal-nginx')).toBe('tazuna-state-state-minimal-nginx')
  })
})
