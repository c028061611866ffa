import { describe, expect, it } from '@jest/globals'
import {
  formatStateKey,
  parseStateKey,
  resourceOf,
  stateKeyOf,
  StateKeyError,
  type StateKey
} from '../../../src/state/key.js'

// Vectors: pepabo/tazuna pkg/state/key_test.go via docs/compatibility.md#state-keys.
const vectors: [string, StateKey][] = [
  [
    'prometheus/apps/v1/Deployment/monitoring/prometheus',
    {
      manifest: 'prometheus',
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespace: 'monitoring',
      name: 'prometheus'
    }
  ],
  [
    'prometheus//v1/ConfigMap/monitoring/prometheus-config',
    {
      manifest: 'prometheus',
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      namespace: 'monitoring',
      name: 'prometheus-config'
    }
  ],
  [
    'prometheus/rbac.authorization.k8s.io/v1/ClusterRole/tazuna-admin',
    {
      manifest: 'prometheus',
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'ClusterRole',
      namespace: '',
      name: 'tazuna-admin'
    }
  ]
]

describe('state keys', () => {
  it.each(vectors)('parses %s', (text, key) => {
    expect(parseStateKey(text)).toEqual(key)
  })

  it.each(vectors)('formats %s', (text, key) => {
    expect(formatStateKey(key)).toBe(text)
  })

  it('keeps a slash inside the name in the sixth part (SplitN)', () => {
    expect(parseStateKey('m/g/v1/K/ns/a/b')).toMatchObject({ namespace: 'ns', name: 'a/b' })
  })

  it.each(['', 'm/g/v1/K', 'a'])('rejects %j with the Go message', (text) => {
    expect(() => parseStateKey(text)).toThrow(StateKeyError)
    expect(() => parseStateKey(text)).toThrow(
      `invalid state key format: ${JSON.stringify(text)} (expected 5 or 6 parts separated by '/')`
    )
  })
})

describe('stateKeyOf', () => {
  it.each([
    [
      'core group',
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'd' } },
      'm//v1/Service/d/web'
    ],
    [
      'named group',
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', namespace: 'd' } },
      'm/apps/v1/Deployment/d/x'
    ],
    [
      'no namespace',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
      'm//v1/Namespace/team-a'
    ],
    [
      'empty namespace',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: '' } },
      'm//v1/ConfigMap/c'
    ],
    [
      'apiVersion with two slashes empties group, version and kind',
      { apiVersion: 'a/b/c', kind: 'K', metadata: { name: 'n' } },
      'm////n'
    ],
    ['apiVersion "/"', { apiVersion: '/', kind: 'K', metadata: { name: 'n' } }, 'm///K/n'],
    [
      'non-string fields read as empty',
      { apiVersion: 7, kind: 5, metadata: { name: 1, namespace: 2 } },
      'm////'
    ],
    ['missing metadata', { apiVersion: 'v1', kind: 'K' }, 'm//v1/K/']
  ])('reads %s like unstructured', (_name, obj, key) => {
    expect(formatStateKey(stateKeyOf('m', obj))).toBe(key)
  })
})

describe('resourceOf', () => {
  it.each([
    ['m//v1/Service/default/web', '/v1/Service/default/web'],
    ['m/apps/v1/Deployment/default/old', 'apps/v1/Deployment/default/old'],
    [
      'm/rbac.authorization.k8s.io/v1/ClusterRole/admin',
      'rbac.authorization.k8s.io/v1/ClusterRole/admin'
    ],
    ['not-a-key', 'not-a-key']
  ])('shows %s as %s', (key, resource) => {
    expect(resourceOf(key)).toBe(resource)
  })
})
