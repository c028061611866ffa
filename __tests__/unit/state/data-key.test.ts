import { describe, expect, it } from '@jest/globals'
import { decodeDataKey, encodeDataKey } from '../../../src/state/data-key.js'

// Vectors: docs/compatibility.md#data-key-encoding (upstream configmap_key_test.go inputs,
// encodings from a Go port).
const vectors: [string, string][] = [
  [
    'my-manifest/apps/v1/Deployment/my-namespace/my-app',
    'my-manifest__apps__v1__Deployment__my-namespace__my-app'
  ],
  ['my-manifest//v1/Namespace/my-namespace', 'my-manifest____v1__Namespace__my-namespace'],
  [
    'cert-manager/rbac.authorization.k8s.io/v1/ClusterRole/cert-manager-webhook:subjectaccessreviews',
    'cert-manager__rbac.authorization.k8s.io__v1__ClusterRole__cert-manager-webhook_x3asubjectaccessreviews'
  ],
  [
    'm/rbac.authorization.k8s.io/v1/ClusterRole/system:controller:foo',
    'm__rbac.authorization.k8s.io__v1__ClusterRole__system_x3acontroller_x3afoo'
  ],
  ['m/g/v1/Kind/name_with_underscore', 'm__g__v1__Kind__name_x5fwith_x5funderscore'],
  [
    'm/cert-manager.io/v1/Certificate/ns/example.com-tls',
    'm__cert-manager.io__v1__Certificate__ns__example.com-tls'
  ]
]

describe('ConfigMap data keys', () => {
  it.each(vectors)('encodes %s', (key, dataKey) => {
    expect(encodeDataKey(key)).toBe(dataKey)
  })

  it.each(vectors)('decodes back to %s', (key, dataKey) => {
    expect(decodeDataKey(dataKey)).toBe(key)
  })

  it('encodes every byte of multi-byte UTF-8 with lowercase hex', () => {
    expect(encodeDataKey('m/g/v1/K/ä')).toBe('m__g__v1__K___xc3_xa4')
    expect(decodeDataKey('m__g__v1__K___xc3_xa4')).toBe('m/g/v1/K/ä')
  })

  it('only produces characters a ConfigMap key allows', () => {
    expect(encodeDataKey('m/g/v1/K/ns/a b:c_d@é😀')).toMatch(/^[-._a-zA-Z0-9]+$/)
  })

  it('reads keys written by the legacy encoder (/ → __ only)', () => {
    expect(decodeDataKey('my-manifest__apps__v1__Deployment__my-namespace__my-app')).toBe(
      'my-manifest/apps/v1/Deployment/my-namespace/my-app'
    )
  })

  it.each(['_zfoo', 'trailing_', '_xZZ', '_x4'])('keeps the odd sequence %s literally', (key) => {
    expect(decodeDataKey(key)).toBe(key)
  })

  it('accepts upper-case hex digits when decoding', () => {
    expect(decodeDataKey('a_x3Ab')).toBe('a:b')
  })

  // Runs of underscores, read left to right as the spec's decoder reads them: each `__` is a
  // `/`, a `_` left over is kept; with and without a `_x` escape elsewhere in the key (the
  // decoder takes a shorter path when there is none).
  it.each([
    ['a___b', 'a/_b'],
    ['____', '//'],
    ['_____', '//_'],
    ['a__', 'a/'],
    ['_', '_'],
    ['a___x3ab', 'a/:b'],
    ['a____x3a', 'a//x3a'],
    ['a___b_x3a', 'a/_b:']
  ])('decodes the underscores of %s as %s', (dataKey, key) => {
    expect(decodeDataKey(dataKey)).toBe(key)
  })
})
