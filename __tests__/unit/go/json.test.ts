import { beforeAll, describe, expect, it } from '@jest/globals'
import { decodeGo, goYamlNumberString, type SourceRecorder } from '../../../src/go/json.js'
import { tazunaGoType } from '../../../src/go/schema-types.js'
import { parseYamlDocument, type JsonValue } from '../../../src/go/yaml.js'
import { describeWithGo, goTimeout, needsGo, runOracle } from './template/go-oracle.js'

// Expected values come from Go: __tests__/oracle/template/decode unmarshals each text with
// sigs.k8s.io/yaml into structs shaped like Tazuna's api/v1 types (docs/compatibility.md#schema)
// and returns the first error or the decoded value. Go reports only its first type mismatch; the
// decoder here collects all of them, so its first problem must equal Go's error.

const cases: [string, string][] = [
  [
    'a full document',
    `apiVersion: tazuna.pepabo.com/v1
kind: Tazuna
spec:
  minimumSupportedTazunaVersion: v0.1.0
  context_matches: [kind-.*, minikube]
  context_match_mode: and
  environments:
    prod: {context_matches: [prod-.*]}
    stg: {context_match_mode: or}
  manifests:
    - name: app
      description: the app
      type: kustomize
      path: ./app
      tags: [web, api]
      dependsOn: [base]
      kustomize: {defaultNamespace: app}
      tests:
        - type: WaitUntil
          timeoutSeconds: 30
          waitUntil: {resource: {apiVersion: apps/v1, kind: Deployment}, namespace: app, name: web, condition: 'true'}
    - name: chart
      type: helmfile
      path: charts/helmfile.yaml
      helmfile:
        includeCRDs: true
        wait: yes
        timeoutSeconds: 60
        kubeVersion: v1.31.0
        extraValueFiles: [a.yaml]
        vars:
          tag: {from: static, static: v1}
          list: {from: static, staticSlice: [a, 1, true]}
          map: {from: static, staticMap: {a: {b: 1}}}
          token: {from: op, op: {vault: v, item: i, field: f, key: label}}
    - name: pulled
      type: oras
      path: x
      oras: {reference: 'ghcr.io/a/b:1', plainHTTP: on, auth: {username: u}, delegate: {type: kustomize, kustomize: {defaultNamespace: d}}}
    - includes: [{path: more.yaml}]
  tests:
    - type: ExistNonExist
      existNonExist: {resource: {apiVersion: v1, kind: Namespace}, name: app, shouldExist: true}
  providers:
    - {name: local, type: envfile, envfile: {path: .env}}
`
  ],
  [
    'unknown fields are ignored',
    'spec:\n  unknown: 1\n  manifests:\n    - name: a\n      extra: {x: y}\n'
  ],
  [
    'case-insensitive field names',
    'SPEC:\n  Manifests:\n    - NAME: a\n      DependsOn: [b]\n      KUSTOMIZE: {DEFAULTNAMESPACE: ns}\n'
  ],
  [
    'the key sorting last wins',
    'spec:\n  manifests:\n    - name: lower\n      Name: upper\n      NAME: shout\n'
  ],
  [
    'numbers and booleans become strings',
    'spec:\n  manifests:\n    - name: 123\n      path: true\n      tags: [1.5, yes, off, 0.1, 3.14159265, 1e-7, 123456.7, 017, 0x1F, -2, 12345678901]\n      helmfile: {kubeVersion: 1.30}\n'
  ],
  [
    'null leaves the zero value',
    'spec:\n  manifests:\n    - name: ~\n      tags: null\n      helmfile: null\n  environments: null\n'
  ],
  ['an empty document', ''],
  ['a list as the document', '- a\n- b\n'],
  ['a string as spec', 'spec: hello\n'],
  ['a list as a name', 'spec:\n  manifests:\n    - name: [a]\n'],
  ['an object as a path', 'spec:\n  manifests:\n    - path: {a: 1}\n'],
  ['a string as manifests', 'spec:\n  manifests: a\n'],
  ['a string as tags', 'spec:\n  manifests:\n    - tags: web\n'],
  ['a fraction as an int', 'spec:\n  manifests:\n    - helmfile: {timeoutSeconds: 1.5}\n'],
  ['a string as an int', 'spec:\n  tests:\n    - intervalSeconds: "5"\n'],
  ['a string as a bool', 'spec:\n  manifests:\n    - helmfile: {wait: "true"}\n'],
  ['a number as a bool', 'spec:\n  manifests:\n    - helmfile: {includeCRDs: 1}\n'],
  ['a string as an environment', 'spec:\n  environments:\n    prod: x\n'],
  [
    'a wrong type inside an environment',
    'spec:\n  environments:\n    prod: {context_matches: x}\n'
  ],
  [
    'a wrong type inside a helmfile var',
    'spec:\n  manifests:\n    - helmfile: {vars: {a: {op: {vault: [x]}}}}\n'
  ],
  [
    'a wrong type inside an oras delegate',
    'spec:\n  manifests:\n    - oras: {delegate: {helmfile: {extraValueFiles: a}}}\n'
  ],
  [
    'two mismatches: Go reports the first in key order',
    'spec:\n  manifests:\n    - tags: x\n      name: [a]\n'
  ]
]

interface GoDecoded {
  error?: string
  value?: JsonValue
}

/** What a SourceRecorder is told: each decoded object with its line and its children's. */
interface Recorded {
  value: object
  file: string
  line: number | undefined
  childLine: (key: string | number) => number | undefined
}

function decode(text: string, recorded: Recorded[] = []) {
  const doc = parseYamlDocument(text, 'tazuna.yaml')
  const sources: SourceRecorder = {
    record: (value, file, line, childLine) => recorded.push({ value, file, line, childLine })
  }
  return decodeGo(doc.value, tazunaGoType, {
    file: 'tazuna.yaml',
    lineOf: (p) => (p.length === 0 ? doc.line : doc.lineOf(p)),
    sources
  })
}

/** Drops zero values ("" false 0 null [] {}) so Go's nil and our empty compare equal. */
function withoutZeros(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZeros)
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      const inner = withoutZeros(v)
      const empty =
        inner === '' ||
        inner === false ||
        inner === 0 ||
        inner === null ||
        inner === undefined ||
        (Array.isArray(inner) && inner.length === 0) ||
        (typeof inner === 'object' && inner !== null && Object.keys(inner).length === 0)
      if (!empty) out[k] = inner
    }
    return out
  }
  return value
}

describeWithGo(`decoding tazuna.yaml like sigs.k8s.io/yaml + encoding/json${needsGo}`, () => {
  let expected: GoDecoded[]
  beforeAll(() => {
    expected = runOracle(
      'decode',
      cases.map(([, text]) => text)
    )
  }, goTimeout)

  it.each(cases.map(([title], i) => [title, i] as const))(
    '%s decodes as Go decodes it',
    (_t, i) => {
      const actual = decode(cases[i]![1])
      const go = expected[i]!
      expect({
        error: actual.problems[0]?.message,
        value: go.error ? undefined : withoutZeros(actual.value)
      }).toEqual({
        error: go.error,
        value: go.error ? undefined : withoutZeros(go.value)
      })
    }
  )
})

describe('decode problems', () => {
  it('are all collected, each with the line of the offending value', () => {
    const { problems } = decode(
      'spec:\n  manifests:\n    - tags: x\n\n      name: [a]\n  tests: 3\n'
    )
    expect(problems).toEqual([
      {
        file: 'tazuna.yaml',
        line: 5,
        message:
          'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field Manifest.spec.manifests.name of type string'
      },
      {
        file: 'tazuna.yaml',
        line: 3,
        message:
          'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Manifest.spec.manifests.tags of type []string'
      },
      {
        file: 'tazuna.yaml',
        line: 6,
        message:
          'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field TazunaSpec.spec.tests of type []v1.TestPluginSpec'
      }
    ])
  })
})

describe('decoded positions', () => {
  it('are told for each decoded object and array, with the lines of its fields and items', () => {
    const recorded: Recorded[] = []
    const { value } = decode(
      'spec:\n  manifests:\n    - name: a\n\n      Tags: [x]\n    - name: b\n',
      recorded
    )
    const manifests = (value as { spec: { manifests: object[] } }).spec.manifests
    const told = (v: object) => recorded.find((r) => r.value === v)
    expect(told(manifests)).toMatchObject({ file: 'tazuna.yaml', line: 3 })
    expect(told(manifests)!.childLine(1)).toBe(6)
    // A field's line is that of the key it was decoded from, whatever its case.
    expect(told(manifests[0]!)!.childLine('tags')).toBe(5)
    expect(told(manifests[0]!)!.childLine('path')).toBeUndefined()
  })
})

describe('YAML numbers in string fields', () => {
  it.each([
    [123, '123'],
    [-2, '-2'],
    [1.3, '1.3'],
    [0.1, '0.1'],
    [3.14159265, '3.1415927'],
    [1e-7, '1e-07'],
    [123456.7, '123456.7'],
    [1234567.5, '1.2345675e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05']
  ])('%p prints as %p, like strconv.FormatFloat(f, g, -1, 32)', (value, text) => {
    expect(goYamlNumberString(value)).toBe(text)
  })
})
