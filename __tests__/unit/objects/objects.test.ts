import { describe, expect, it } from '@jest/globals'
import { desiredEntries, objectsFromYaml } from '../../../src/objects/objects.js'
import { ConfigError } from '../../../src/errors.js'

const file = 'rendered.yaml'
const names = (text: string, defaultNamespace?: string): string[] =>
  objectsFromYaml(text, { file, defaultNamespace }).map((o) => {
    const m = o.metadata as { name?: string; namespace?: string }
    return `${typeof o.kind === 'string' ? o.kind : JSON.stringify(o.kind)}:${m.namespace ?? '-'}/${m.name ?? '-'}`
  })

describe('objectsFromYaml (docs/compatibility.md#yaml-to-objects)', () => {
  it.each([
    [
      'skips empty, null and comment-only documents',
      '---\n---\n# c\n---\nnull\n---\nkind: A\nmetadata: {name: a}\n',
      ['A:-/a']
    ],
    [
      'skips documents without kind',
      'metadata: {name: x}\n---\nkind: A\nmetadata: {name: a}\n',
      ['A:-/a']
    ],
    ['keeps a document whose kind is null', 'kind: null\nmetadata: {name: a}\n', ['null:-/a']],
    [
      'expands List items that are mappings',
      'kind: List\nitems:\n- {kind: A, metadata: {name: a}}\n- x\n- null\n- {kind: B, metadata: {name: b}}\n',
      ['A:-/a', 'B:-/b']
    ],
    [
      'treats a List without an items array as an object',
      'kind: List\nitems: x\nmetadata: {name: l}\n',
      ['List:-/l']
    ],
    [
      'moves CRDs first and keeps the rest in order',
      'kind: B\nmetadata: {name: b}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: c1}\n---\nkind: A\nmetadata: {name: a}\n---\napiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: c2}\n',
      ['CustomResourceDefinition:-/c1', 'CustomResourceDefinition:-/c2', 'B:-/b', 'A:-/a']
    ],
    [
      'leaves a CRD kind of another group in place',
      'kind: A\nmetadata: {name: a}\n---\napiVersion: x.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: c}\n',
      ['A:-/a', 'CustomResourceDefinition:-/c']
    ],
    [
      'reads a JSON stream',
      '{"kind":"A","metadata":{"name":"a"}}\n{"kind":"B","metadata":{"name":"b"}}\n',
      ['A:-/a', 'B:-/b']
    ],
    [
      'reads one JSON object followed by YAML',
      '{"kind":"A","metadata":{"name":"a"}}\n---\nkind: B\nmetadata: {name: b}\n',
      ['A:-/a', 'B:-/b']
    ],
    [
      'treats --- with a trailing comment as a separator',
      'kind: A\nmetadata: {name: a}\n--- # next\nkind: B\nmetadata: {name: b}\n',
      ['A:-/a', 'B:-/b']
    ],
    [
      'reads CRLF line endings',
      'kind: A\r\nmetadata:\r\n  name: a\r\n---\r\nkind: B\r\nmetadata: {name: b}\r\n',
      ['A:-/a', 'B:-/b']
    ]
  ])('%s', (_name, text, expected) => {
    expect(names(text)).toEqual(expected)
  })

  it.each([
    ['a missing namespace', 'kind: A\nmetadata: {name: a}\n', 'A:team/a'],
    ['a null namespace', 'kind: A\nmetadata: {name: a, namespace: ~}\n', 'A:team/a'],
    ['missing metadata', 'kind: A\n', 'A:team/-'],
    [
      'a cluster-scoped kind (no discovery, docs/compatibility.md#cluster-scoped-namespace)',
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n',
      'Namespace:team/a'
    ],
    ['List items', 'kind: List\nitems: [{kind: A, metadata: {name: a}}]\n', 'A:team/a']
  ])('gives %s the default namespace', (_name, text, expected) => {
    expect(names(text, 'team')).toEqual([expected])
  })

  it('keeps an explicit empty namespace', () => {
    const [obj] = objectsFromYaml('kind: A\nmetadata: {name: a, namespace: ""}\n', {
      file,
      defaultNamespace: 'team'
    })
    expect(obj?.metadata).toEqual({ name: 'a', namespace: '' })
  })

  it('adds metadata {} and no namespace without a default', () => {
    expect(objectsFromYaml('kind: A\nmetadata: null\n', { file })).toEqual([
      { kind: 'A', metadata: {} }
    ])
  })

  it.each([
    [
      'a string',
      'kind: ConfigMap\nmetadata: "foo"\n',
      'metadata must be a mapping, got string (kind: ConfigMap)',
      2
    ],
    [
      'a number',
      'kind: 3\nmetadata: 1.5\n',
      'metadata must be a mapping, got float64 (kind: 3)',
      2
    ],
    [
      'a list',
      'kind: [a, 1]\nmetadata: [a]\n',
      'metadata must be a mapping, got []interface {} (kind: [a 1])',
      2
    ],
    [
      'a bool inside a List item',
      'kind: List\nitems:\n  - kind: K\n    metadata: yes\n',
      'metadata must be a mapping, got bool (kind: K)',
      4
    ]
  ])(
    'rejects metadata that is %s with the Go message and its line',
    (_name, text, message, line) => {
      const error = catchError(() => objectsFromYaml(text, { file }))
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).problems).toEqual([{ file, line, message }])
    }
  )

  it.each([
    ['a scalar document', 'kind: A\n---\njust text\n', 3],
    ['a separator followed by text', 'kind: A\n--- !tag\nkind: B\n', 2],
    ['YAML after two JSON objects', '{"kind":"A"}\n{"kind":"B"}\n---\nkind: C\n', 3],
    [
      'a YAML error in a later document, with its line in the whole stream',
      'kind: A\n---\nkind: B\nx: a: b\n',
      4
    ]
  ])('rejects %s naming the line', (_name, text, line) => {
    const error = catchError(() => objectsFromYaml(text, { file }))
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems[0]).toMatchObject({ file, line })
  })

  it('does not share objects between repeated aliases and its result', () => {
    const [obj] = objectsFromYaml('kind: A\nmetadata: {name: a}\nfirst: &v {k: 1}\nsecond: *v\n', {
      file
    })
    expect(obj?.first).toEqual(obj?.second)
    expect(obj?.first).not.toBe(obj?.second)
  })
})

describe('desiredEntries', () => {
  it('maps state keys to content hashes; a repeated key keeps the last object', () => {
    const objects = objectsFromYaml(
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: test-cm}\ndata: {key: old}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: test-cm}\ndata: {key: value}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: admin}\n',
      { file, defaultNamespace: 'default' }
    )
    const entries = desiredEntries('m', objects)
    expect([...entries.keys()]).toEqual([
      'm//v1/ConfigMap/default/test-cm',
      'm/rbac.authorization.k8s.io/v1/ClusterRole/default/admin'
    ])
    // docs/compatibility.md#contenthash vector 1.
    expect(entries.get('m//v1/ConfigMap/default/test-cm')).toBe(
      'a3a5b30562256c9e8fd0dbe0ff663080701af07cfefa2828663e5b332bf3d2cf'
    )
  })
})

function catchError(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}
