import { describe, expect, it } from '@jest/globals'
import { canonicalJson, computeContentHash } from '../../../src/state/hash.js'
import type { JsonObject } from '../../../src/go/yaml.js'

// Inputs and hashes: docs/compatibility.md#contenthash vectors 1–9 (computed upstream with Go's
// encoding/json + sha256).
const configMap: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'test-cm', namespace: 'default' },
  data: { key: 'value' }
}
const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'test-deploy', namespace: 'default' },
  spec: { replicas: 3 }
}
const serverFields: JsonObject = {
  resourceVersion: '12345',
  uid: 'abc-def-ghi',
  creationTimestamp: '2026-01-01T00:00:00Z',
  generation: 3,
  managedFields: [{ manager: 'kubectl' }],
  selfLink: '/api/v1/namespaces/default/configmaps/test-cm'
}
const escaping: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'esc', namespace: 'default' },
  data: {
    html: '<a href="x">&amp;</a>',
    jp: '日本語',
    ls: 'a\u2028b\u2029c',
    tab: 'a\tb\nc\r',
    ctl: '\u0001\u001f',
    bs: 'back\\slash',
    q: '"quoted"'
  }
}
const numbers = JSON.parse(
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nums","namespace":"default"},"data":null,"spec":{"int":3,"neg":-42,"float":0.5,"one":1.0,"big":1e21,"bigint":12345678901234567890,"small":1e-7,"tiny":0.000001,"exp":1.5e300,"t":true,"f":false,"n":null,"arr":[3,"x",{"b":1,"a":2}],"empty":{},"earr":[]}}'
) as JsonObject
const secret = JSON.parse(
  '{"apiVersion":"v1","kind":"Secret","metadata":{"creationTimestamp":null,"name":"cloud-credentials","namespace":"default"},"stringData":{"AWS_ACCESS_KEY_ID":"AKIAEXAMPLE","AWS_SECRET_ACCESS_KEY":"secret"},"type":"Opaque"}'
) as JsonObject
const keyOrder: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'keys', namespace: 'default' },
  data: {
    b: '1',
    B: '2',
    a: '3',
    _x: '4',
    'a.b': '5',
    'a-b': '6',
    ä: '7',
    z: '8',
    '10': '9',
    '9': '10'
  }
}
const clusterRoleCanonical =
  '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"cert-manager-webhook:subjectaccessreviews","namespace":"team-a"},"rules":[{"apiGroups":["authorization.k8s.io"],"resources":["subjectaccessreviews"],"verbs":["create"]}]}'

const vectors: [string, JsonObject, string, string | undefined][] = [
  [
    '1 ConfigMap',
    configMap,
    'a3a5b30562256c9e8fd0dbe0ff663080701af07cfefa2828663e5b332bf3d2cf',
    '{"apiVersion":"v1","data":{"key":"value"},"kind":"ConfigMap","metadata":{"name":"test-cm","namespace":"default"}}'
  ],
  [
    '2 ConfigMap with server-side metadata',
    { ...configMap, metadata: { ...(configMap.metadata as JsonObject), ...serverFields } },
    'a3a5b30562256c9e8fd0dbe0ff663080701af07cfefa2828663e5b332bf3d2cf',
    undefined
  ],
  [
    '3 Deployment',
    deployment,
    '1901ed633c6ca0acff5d18568a957c2c9016f5c270d4ba28e7af74759134f060',
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"test-deploy","namespace":"default"},"spec":{"replicas":3}}'
  ],
  [
    '4 Deployment with status',
    { ...deployment, status: { readyReplicas: 3, availableReplicas: 3 } },
    '1901ed633c6ca0acff5d18568a957c2c9016f5c270d4ba28e7af74759134f060',
    undefined
  ],
  [
    '5 escaping',
    escaping,
    '04149b2eff1e35f8b4496360fe512103d3ba23cd5cf07f421453e38f25a638de',
    '{"apiVersion":"v1","data":{"bs":"back\\\\slash","ctl":"\\u0001\\u001f","html":"\\u003ca href=\\"x\\"\\u003e\\u0026amp;\\u003c/a\\u003e","jp":"日本語","ls":"a\\u2028b\\u2029c","q":"\\"quoted\\"","tab":"a\\tb\\nc\\r"},"kind":"ConfigMap","metadata":{"name":"esc","namespace":"default"}}'
  ],
  [
    '6 numbers and nulls',
    numbers,
    'e877665699801919b0df07f0fd1b18503f2f722be00f344b3e93370a1596eade',
    '{"apiVersion":"v1","data":null,"kind":"ConfigMap","metadata":{"name":"nums","namespace":"default"},"spec":{"arr":[3,"x",{"a":2,"b":1}],"big":1e+21,"bigint":12345678901234567000,"earr":[],"empty":{},"exp":1.5e+300,"f":false,"float":0.5,"int":3,"n":null,"neg":-42,"one":1,"small":1e-7,"t":true,"tiny":0.000001}}'
  ],
  [
    '7 genesissecret Secret',
    secret,
    'f5305e16c35b52d03a4ea1cea4518cd920a9a5de8ceec51c85fbe8eee63ad5cd',
    undefined
  ],
  [
    '8 key ordering',
    keyOrder,
    '6825649ca0ba2e15be959905195d25f77295d2c9d566f9b6aa707652c263504b',
    '{"apiVersion":"v1","data":{"10":"9","9":"10","B":"2","_x":"4","a":"3","a-b":"6","a.b":"5","b":"1","z":"8","ä":"7"},"kind":"ConfigMap","metadata":{"name":"keys","namespace":"default"}}'
  ],
  [
    '9 ClusterRole with injected namespace',
    JSON.parse(clusterRoleCanonical) as JsonObject,
    '49f25e38b2c62ef24a8935b4e300f35f6d622501d95e207559abbe51423695cf',
    clusterRoleCanonical
  ]
]

describe('computeContentHash', () => {
  it.each(vectors)('matches Go for vector %s', (_name, input, hash) => {
    expect(computeContentHash(input)).toBe(hash)
  })

  it.each(vectors.filter((v) => v[3] !== undefined))(
    'serializes vector %s byte for byte like json.Marshal',
    (_name, input, _hash, canonical) => {
      const { status: _status, ...rest } = input
      expect(canonicalJson(rest)).toBe(canonical)
    }
  )

  it('does not mutate its input', () => {
    const input = structuredClone(vectors[1]?.[1] ?? {})
    const before = structuredClone(input)
    computeContentHash({ ...input, status: { phase: 'x' } })
    expect(input).toEqual(before)
  })

  it('gives different data a different hash', () => {
    const changed = { ...configMap, data: { key: 'other' } }
    expect(computeContentHash(changed)).not.toBe(computeContentHash(configMap))
  })

  it('keeps labels and annotations, including last-applied-configuration', () => {
    const annotated = {
      ...configMap,
      metadata: { name: 'test-cm', namespace: 'default', annotations: { a: 'b' } }
    }
    expect(computeContentHash(annotated)).not.toBe(computeContentHash(configMap))
  })

  it('ignores a non-mapping metadata instead of failing', () => {
    expect(() => computeContentHash({ kind: 'X', metadata: 'odd' })).not.toThrow()
  })
})

describe('canonicalJson', () => {
  it.each([
    ['negative zero keeps its sign', -0, '-0'],
    ['exponent below 1e-6', 1e-7, '1e-7'],
    ['exponent from 1e21', 1e21, '1e+21'],
    ['plain decimal just under 1e21', 1e20, '100000000000000000000'],
    ['backspace and form feed use short escapes', '\b\f', '"\\b\\f"'],
    ['DEL stays raw', '\u007f', '"\u007f"'],
    ['a lone surrogate becomes U+FFFD', '\ud800x', '"\ufffdx"'],
    ['an astral character stays raw', '😀', '"😀"']
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected)
  })

  it('sorts keys in UTF-8 byte order, not UTF-16 order', () => {
    expect(canonicalJson({ '😀': 1, '\ue000': 2, z: 3 })).toBe('{"z":3,"\ue000":2,"😀":1}')
  })

  it('throws on values JSON cannot hold, as Go does', () => {
    expect(() => canonicalJson(Infinity)).toThrow('unsupported value')
  })
})
