// GenesisSecret files (docs/compatibility.md#genesissecret) and rendered helmfiles
// (docs/compatibility.md#helmfile step 4) are read with sigs.k8s.io/yaml into Go structs. Expected
// values come from Go: the decode oracle (__tests__/oracle/template/decode, types in decode/v1)
// unmarshals each text and returns its first error or the decoded value; the decoder here must
// report the same first error (with the file kind in front) or decode the same value.
import { beforeAll, expect, it } from '@jest/globals'
import { parseGenesisSecret } from '../../../src/render/genesissecret/genesissecret-spec.js'
import { parseHelmfileSpec } from '../../../src/render/helmfile/helmfile-spec.js'
import { decodeGo } from '../../../src/go/json.js'
import { genesisSecretGoType } from '../../../src/go/schema-types.js'
import { ConfigError } from '../../../src/errors.js'
import { parseYamlDocuments, type JsonValue } from '../../../src/go/yaml.js'
import { describeWithGo, goTimeout, needsGo, runOracle } from '../go/template/go-oracle.js'

type Kind = 'GenesisSecret' | 'Helmfile'

const cases: [string, Kind, string][] = [
  [
    'a full GenesisSecret',
    'GenesisSecret',
    `kind: Whatever
spec:
  Provider: local
  secrets:
    - uri: op://h/v/i
      preferLabel: yes
      items: { user: { mapTo: USER }, pass: { MapTo: PASS }, port: { mapTo: 5432 } }
  static: { A: "1", B: 2, C: on, D: 1.5 }
  outputs:
    - stdout: {}
    - kubernetesSecret: { name: s, namespace: n, type: kubernetes.io/tls, labels: { a: b, c: 1 }, context: x }
    - stdout: null
`
  ],
  [
    'a YAML 1.1 boolean as a string field',
    'GenesisSecret',
    'spec:\n  outputs:\n    - kubernetesSecret: { namespace: n }\n'
  ],
  ['a number as a static value', 'GenesisSecret', 'spec:\n  static:\n    PORT: 5432\n'],
  ['a list as a static value', 'GenesisSecret', 'spec:\n  static:\n    PORT: [1]\n'],
  [
    'a list as a namespace',
    'GenesisSecret',
    'spec:\n  outputs:\n    - kubernetesSecret: { namespace: [a] }\n'
  ],
  ['a mapping as secrets', 'GenesisSecret', 'spec:\n  secrets: {a: 1}\n'],
  ['a string as preferLabel', 'GenesisSecret', 'spec:\n  secrets:\n    - preferLabel: "x"\n'],
  ['a number as stdout', 'GenesisSecret', 'spec:\n  outputs:\n    - stdout: 1\n'],
  ['a string as an item', 'GenesisSecret', 'spec:\n  secrets:\n    - items: {a: x}\n'],
  ['a list as the GenesisSecret', 'GenesisSecret', '- a\n'],
  ['an empty GenesisSecret', 'GenesisSecret', '# nothing\n'],
  [
    'a full helmfile',
    'Helmfile',
    `environments: { default: {} }
repositories:
  - name: bitnami
    URL: https://charts.bitnami.com/bitnami
    oci: true
releases:
  - name: web
    Namespace: apps
    chart: bitnami/nginx
    version: 1.2
    values: [a.yaml, {x: 1}, null, 3]
    needs: [other]
`
  ],
  ['a list as a release name', 'Helmfile', 'releases:\n  - name: [a]\n'],
  ['a string as releases', 'Helmfile', 'releases: x\n'],
  ['a string as oci', 'Helmfile', 'repositories:\n  - oci: "true"\n'],
  ['a string as values', 'Helmfile', 'releases:\n  - values: a.yaml\n'],
  ['a list as the helmfile', 'Helmfile', '- a\n'],
  ['a string as the helmfile', 'Helmfile', 'hello\n'],
  ['only the first document counts', 'Helmfile', 'releases: [{name: a}]\n---\nreleases: x\n'],
  ['an empty helmfile', 'Helmfile', '']
]

interface GoDecoded {
  error?: string
  value?: JsonValue
}

function firstProblem(parse: () => unknown): string | undefined {
  try {
    parse()
    return undefined
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.problems[0]?.message
  }
}

function decodedValue(kind: Kind, text: string): unknown {
  if (kind === 'Helmfile') return parseHelmfileSpec(text, 'helmfile.yaml')
  const doc = parseYamlDocuments(text, 'gs.yaml')[0]
  return decodeGo(doc?.value ?? null, genesisSecretGoType, { file: 'gs.yaml', lineOf: () => 1 })
    .value
}

/** Drops zero values ("" false 0 null [] {}) so Go's nil and our empty compare equal. */
function withoutZeros(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZeros)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    const inner = withoutZeros(v)
    const empty =
      [undefined, null, '', false, 0].includes(inner as never) ||
      (typeof inner === 'object' && inner !== null && Object.keys(inner).length === 0)
    if (!empty) out[k] = inner
  }
  return out
}

describeWithGo(`GenesisSecret files and helmfiles decode as Go decodes them${needsGo}`, () => {
  let expected: GoDecoded[]
  beforeAll(() => {
    expected = runOracle(
      'decode',
      cases.map(([, type, text]) => ({ type, text }))
    )
  }, goTimeout)

  it.each(cases.map(([title, kind, text], i) => [title, kind, text, i] as const))(
    '%s',
    (_title, kind, text, i) => {
      const go = expected[i]!
      const prefix = kind === 'Helmfile' ? 'invalid helmfile' : 'invalid GenesisSecret'
      const parse =
        kind === 'Helmfile'
          ? () => parseHelmfileSpec(text, 'helmfile.yaml')
          : () => parseGenesisSecret(text, 'gs.yaml')
      const error = firstProblem(parse)
      expect({
        error,
        value: error === undefined ? withoutZeros(decodedValue(kind, text)) : undefined
      }).toEqual({
        error: go.error === undefined ? undefined : `${prefix}: ${go.error}`,
        value: go.error === undefined ? withoutZeros(go.value) : undefined
      })
    }
  )
})
