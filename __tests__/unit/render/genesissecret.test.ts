// GenesisSecret pure parts (docs/compatibility.md#genesissecret): the file decoder, item mapping,
// the Secret object.
import { describe, expect, it } from '@jest/globals'
import { mapItems, secretObject } from '../../../src/render/genesissecret/genesissecret.js'
import { computeContentHash } from '../../../src/state/hash.js'
import {
  parseGenesisSecret,
  type GenesisSecretSource
} from '../../../src/render/genesissecret/genesissecret-spec.js'
import { parseOpItem, parseOpUri } from '../../../src/render/genesissecret/onepassword.js'

describe('parseGenesisSecret', () => {
  it('decodes provider, secrets, static and outputs like the Go struct', () => {
    const spec = parseGenesisSecret(
      `kind: Whatever
spec:
  Provider: local
  secrets:
    - uri: op://h/v/i
      preferLabel: true
      items: { user: { mapTo: USER }, pass: { mapTo: PASS } }
  static: { A: "1" }
  outputs:
    - stdout: {}
    - kubernetesSecret: { name: s, namespace: ns, type: kubernetes.io/tls, labels: { a: b } }
    - stdout: null
`,
      'gs.yaml'
    )
    expect(spec).toEqual({
      provider: 'local',
      secrets: [
        {
          uri: 'op://h/v/i',
          preferLabel: true,
          items: new Map([
            ['user', 'USER'],
            ['pass', 'PASS']
          ])
        }
      ],
      static: { A: '1' },
      outputs: [
        { kind: 'stdout' },
        {
          kind: 'kubernetesSecret',
          secret: {
            name: 's',
            namespace: 'ns',
            type: 'kubernetes.io/tls',
            labels: { a: 'b' },
            annotations: undefined
          }
        },
        { kind: 'none' }
      ]
    })
  })

  // Go (sigs.k8s.io/yaml) turns YAML booleans and numbers into their text in string fields;
  // the expected values are the decode oracle's (see go-file-decoding.test.ts).
  it('reads YAML 1.1 scalars as Go does: `namespace: n` is the string "false"', () => {
    const spec = parseGenesisSecret(
      'spec:\n  outputs:\n    - kubernetesSecret: { namespace: n }\n',
      'gs.yaml'
    )
    expect(spec.outputs[0]).toMatchObject({
      kind: 'kubernetesSecret',
      secret: { namespace: 'false' }
    })
  })

  it('reads a static number as its text, as Go does', () => {
    expect(parseGenesisSecret('spec:\n  static:\n    PORT: 5432\n', 'gs.yaml').static).toEqual({
      PORT: '5432'
    })
  })

  it("rejects a static value that is not a scalar with Go's message, naming the line", () => {
    expect(() => parseGenesisSecret('spec:\n  static:\n    PORT: [5432]\n', 'gs.yaml')).toThrow(
      'gs.yaml:3: invalid GenesisSecret: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field GenesisSecretSpec.spec.static of type string'
    )
  })
})

describe('mapItems', () => {
  const source: GenesisSecretSource = {
    uri: '',
    preferLabel: false,
    items: new Map([
      ['username', 'DB_USER'],
      ['password', 'DB_PASSWORD']
    ])
  }

  it('maps every listed item to its mapTo key and ignores the rest', () => {
    const fetched = new Map([
      ['username', 'u'],
      ['password', 'p'],
      ['other', 'o']
    ])
    expect([...mapItems(source, fetched, 'manifest m')]).toEqual([
      ['DB_USER', 'u'],
      ['DB_PASSWORD', 'p']
    ])
  })

  it('fails on the first missing key with Tazuna’s message and no values', () => {
    expect(() => mapItems(source, new Map([['username', 'u-secret']]), 'manifest m')).toThrow(
      'manifest m: key password not found in fetched data'
    )
  })

  it('accepts an empty value as present', () => {
    expect(
      mapItems(
        source,
        new Map([
          ['username', ''],
          ['password', '']
        ]),
        'm'
      ).get('DB_USER')
    ).toBe('')
  })
})

describe('secretObject', () => {
  const data = new Map([['K', 'v']])
  it.each([
    [
      'a full output',
      {
        name: 'n',
        namespace: 'ns',
        labels: { a: 'b' },
        annotations: { c: 'd' },
        type: 'kubernetes.io/tls'
      },
      data,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'n', namespace: 'ns', labels: { a: 'b' }, annotations: { c: 'd' } },
        stringData: { K: 'v' },
        type: 'kubernetes.io/tls'
      }
    ],
    [
      'type defaulting to Opaque, empty fields omitted',
      { name: 'n', namespace: '', labels: {}, type: '' },
      data,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'n' },
        stringData: { K: 'v' },
        type: 'Opaque'
      }
    ],
    [
      'no data: stringData omitted (omitempty)',
      { name: 'n', namespace: 'ns', type: '' },
      new Map<string, string>(),
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'n', namespace: 'ns' }, type: 'Opaque' }
    ]
  ])('%s', (_name, output, d, expected) => {
    expect(secretObject(output, d)).toEqual(expected)
  })
})

describe('the Secret of docs/compatibility.md#contenthash vector 7', () => {
  it('hashes to the spec vector', () => {
    const secret = secretObject(
      { name: 'cloud-credentials', namespace: 'default', type: '' },
      new Map([
        ['AWS_ACCESS_KEY_ID', 'AKIAEXAMPLE'],
        ['AWS_SECRET_ACCESS_KEY', 'secret']
      ])
    )
    expect(computeContentHash(secret)).toBe(
      'f5305e16c35b52d03a4ea1cea4518cd920a9a5de8ceec51c85fbe8eee63ad5cd'
    )
  })
})

describe('parseOpUri', () => {
  it.each([
    [
      'op://my.1password.com/Production Vault/database',
      { vault: 'Production Vault', item: 'database' }
    ],
    ['op://h/v_1/i.2-3', { vault: 'v_1', item: 'i.2-3' }],
    ['op://h/日本/項目', { vault: '日本', item: '項目' }]
  ])('accepts %s', (uri, ref) => {
    expect(parseOpUri(uri)).toEqual(ref)
  })

  it.each(['op:///v/i', 'op://h/v', 'op://h/v/i/extra', 'https://h/v/i', 'op://h/v!/i'])(
    'rejects %s',
    (uri) => {
      expect(parseOpUri(uri)).toEqual({ error: expect.stringContaining('invalid 1Password URI') })
    }
  )
})

describe('parseOpItem', () => {
  it('reads id, label and value of every field; a field without value has ""', () => {
    expect(
      parseOpItem(
        JSON.stringify({
          id: 'x',
          fields: [
            { id: 'password', label: 'pw', value: 's' },
            { id: 'notesPlain', label: 'notes' }
          ]
        }),
        'item'
      )
    ).toEqual([
      { id: 'password', label: 'pw', value: 's' },
      { id: 'notesPlain', label: 'notes', value: '' }
    ])
  })

  it('does not quote the output when it is not JSON', () => {
    expect(() => parseOpItem('secret-ish garbage', 'm: item v/i')).toThrow(
      /^m: item v\/i: op printed output that is not JSON$/
    )
  })
})
