import { describe, expect, it } from '@jest/globals'
import path from 'node:path'
import { createNodeFiles } from '../../../src/adapters/files/node-files.js'
import { checkConfig } from '../../../src/config/check.js'
import type { ConfigProblem } from '../../../src/errors.js'
import { createGoTemplateEngine } from '../../../src/adapters/render/template-engine.js'
import {
  describeWithGo,
  goTemplateEngineFiles,
  goTimeout,
  needsGo
} from '../go/template/go-oracle.js'

// One fixture per scenario under __tests__/fixtures/config-*/; each README says where the
// expected texts come from (mostly upstream messages quoted by the behaviour spec).

const fixtures = path.join('__tests__', 'fixtures')
const at = (
  fixture: string,
  file: string,
  line: number | undefined,
  message: string
): ConfigProblem =>
  line === undefined
    ? { file: path.join(fixtures, fixture, file), message }
    : { file: path.join(fixtures, fixture, file), line, message }

const engine = createGoTemplateEngine(() => goTemplateEngineFiles())

async function check(fixture: string, environment = '') {
  return checkConfig({
    file: path.join(fixtures, fixture, 'tazuna.yaml'),
    environment,
    engine,
    version: '0.1.0',
    files: createNodeFiles()
  })
}

const invalidName = (i: number, name: string) =>
  `manifest[${i}]: name "${name}" contains invalid characters (allowed: lowercase a-z0-9 and '-', must start and end with an alphanumeric)`

const cases: [string, ConfigProblem[]][] = [
  [
    'config-bad-yaml',
    [at('config-bad-yaml', 'tazuna.yaml', 5, 'invalid YAML: Sequence item without - indicator')]
  ],
  [
    'config-unknown-type',
    [
      at(
        'config-unknown-type',
        'tazuna.yaml',
        7,
        'validation failed for manifest[1]: unsupported manifest type: helm'
      )
    ]
  ],
  [
    'config-missing-path',
    [
      at(
        'config-missing-path',
        'tazuna.yaml',
        3,
        'validation failed for manifest[0]: manifest path is required'
      ),
      at(
        'config-missing-path',
        'tazuna.yaml',
        5,
        'validation failed for manifest[1]: manifest type is required'
      )
    ]
  ],
  [
    'config-bad-names',
    [
      at('config-bad-names', 'tazuna.yaml', 9, invalidName(2, 'my__app')),
      at('config-bad-names', 'tazuna.yaml', 12, invalidName(3, 'A-Z-test')),
      at('config-bad-names', 'tazuna.yaml', 15, invalidName(4, 'trailing-')),
      at('config-bad-names', 'tazuna.yaml', 18, 'manifest[5]: name is required'),
      at('config-bad-names', 'tazuna.yaml', 21, invalidName(6, 'my.manifest')),
      at('config-bad-names', 'tazuna.yaml', 24, invalidName(7, 'path/to')),
      at('config-bad-names', 'tazuna.yaml', 27, invalidName(8, 'has space')),
      at('config-bad-names', 'tazuna.yaml', 30, 'manifest[9]: name "_metadata" is reserved'),
      at(
        'config-bad-names',
        'tazuna.yaml',
        33,
        `manifest[10]: name "${'a'.repeat(241)}" is too long (241 chars, max 240)`
      )
    ]
  ],
  [
    'config-duplicate-names',
    [
      at(
        'config-duplicate-names',
        'more.yaml',
        3,
        'manifest name "same-name" is duplicated (2 times)'
      )
    ]
  ],
  [
    'config-depends-on',
    [
      at('config-depends-on', 'tazuna.yaml', 3, 'manifest "a" depends on itself'),
      at(
        'config-depends-on',
        'tazuna.yaml',
        7,
        'manifest "b" dependsOn references unknown manifest "ghost"'
      )
    ]
  ],
  [
    'config-cycle',
    [
      at(
        'config-cycle',
        'tazuna.yaml',
        6,
        'circular dependency detected in manifest dependsOn graph: a -> b -> a'
      )
    ]
  ],
  [
    'config-nested-includes',
    [
      at(
        'config-nested-includes',
        'first.yaml',
        6,
        `nested includes are not allowed in include file: ${path.join(fixtures, 'config-nested-includes', 'first.yaml')}`
      )
    ]
  ],
  [
    'config-missing-include',
    [
      at(
        'config-missing-include',
        'tazuna.yaml',
        7,
        `validation failed for manifest[1]: include file not found: ${path.join(fixtures, 'config-missing-include', 'missing.yaml')}`
      ),
      at(
        'config-missing-include',
        'tazuna.yaml',
        8,
        'validation failed for manifest[1]: include[1].path is required'
      )
    ]
  ],
  [
    'config-bad-regex',
    [
      at(
        'config-bad-regex',
        'tazuna.yaml',
        4,
        'context_matches[1] is not a valid regex: error parsing regexp: invalid named capture: `(?<=prod)-cluster`'
      ),
      at(
        'config-bad-regex',
        'tazuna.yaml',
        5,
        'context_matches[2] is not a valid regex: error parsing regexp: invalid escape sequence: `\\1`'
      ),
      at(
        'config-bad-regex',
        'tazuna.yaml',
        6,
        "context_match_mode must be 'or' or 'and', got: any"
      ),
      at(
        'config-bad-regex',
        'tazuna.yaml',
        9,
        'environments["prod"].context_matches[0] is not a valid regex: error parsing regexp: invalid or unsupported Perl syntax: `(?!`'
      )
    ]
  ],
  [
    'config-type-mismatch',
    [
      at(
        'config-type-mismatch',
        'tazuna.yaml',
        6,
        'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Manifest.spec.manifests.tags of type []string'
      ),
      at(
        'config-type-mismatch',
        'tazuna.yaml',
        7,
        'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field Manifest.spec.manifests.name of type string'
      ),
      at(
        'config-type-mismatch',
        'tazuna.yaml',
        11,
        'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number 1.5 into Go struct field ManifestHelmfile.spec.manifests.helmfile.timeoutSeconds of type int'
      )
    ]
  ],
  [
    'config-schema',
    [
      at(
        'config-schema',
        'tazuna.yaml',
        1,
        'apiVersion must be "tazuna.pepabo.com/v1", got "tazuna.pepabo.com/v2"'
      ),
      at('config-schema', 'tazuna.yaml', 2, 'kind must be "Tazuna", got "tazuna"'),
      at(
        'config-schema',
        'tazuna.yaml',
        14,
        "validation failed for manifest[0]: helmfile var 'a' has no From field, supported From is 'env/static/op'"
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        15,
        "validation failed for manifest[0]: helmfile var 'b' has From env but no env field"
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        16,
        "validation failed for manifest[0]: helmfile var 'c' has From static but multiple static fields are set (static: true, staticSlice: true, staticMap: false)"
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        17,
        `validation failed for manifest[0]: helmfile var 'd' op.key must be 'id' or 'label', got: "name"`
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        18,
        `validation failed for manifest[0]: helmfile var 'e' has unsupported From "vault", supported From is 'env/static/op'`
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        22,
        'validation failed for manifest[1]: oras validation failed for manifest ./x: oras.reference is required'
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        22,
        `validation failed for manifest[1]: oras validation failed for manifest ./x: oras.delegate.type must be 'helmfile' or 'kustomize', got: "helm"`
      ),
      at(
        'config-schema',
        'genesis.yaml',
        4,
        'genesissecret secrets[1].uri "op://vault/item" must be op://<host>/<vault>/<item>'
      ),
      at(
        'config-schema',
        'genesis.yaml',
        5,
        'genesissecret secrets[2].uri "https://example.com/a/b" must be op://<host>/<vault>/<item>'
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        5,
        'providers[0].name "default-op" is reserved for the built-in provider'
      ),
      at(
        'config-schema',
        'tazuna.yaml',
        6,
        'explicit "onepassword" type is not supported yet; use the built-in "default-op"'
      ),
      at('config-schema', 'tazuna.yaml', 7, 'providers[2].envfile.path is required')
    ]
  ],
  [
    'config-min-version',
    [
      at(
        'config-min-version',
        'tazuna.yaml',
        2,
        'this tazuna.yaml requires tazuna >= v99.0.0, but the running tazuna is 0.1.0; please upgrade tazuna'
      )
    ]
  ]
]

describe('tazuna check on bad configurations', () => {
  it.each(cases)('%s reports every problem at its file and line', async (fixture, expected) => {
    const result = await check(fixture)
    expect(result.problems).toEqual(expected)
  })

  it('keeps the manifests of include files with their own file and line', async () => {
    const result = await check('config-duplicate-names')
    expect(result.manifests.map((m) => [m.name, m.source])).toEqual([
      [
        'same-name',
        { file: path.join(fixtures, 'config-duplicate-names', 'tazuna.yaml'), line: 3 }
      ],
      ['other', { file: path.join(fixtures, 'config-duplicate-names', 'tazuna.yaml'), line: 6 }],
      ['same-name', { file: path.join(fixtures, 'config-duplicate-names', 'more.yaml'), line: 3 }]
    ])
  })

  it('reports a missing tazuna.yaml', async () => {
    const result = await check('config-does-not-exist')
    expect(result.problems).toEqual([
      at(
        'config-does-not-exist',
        'tazuna.yaml',
        undefined,
        `failed to read ${path.join(fixtures, 'config-does-not-exist', 'tazuna.yaml')}: no such file or directory`
      )
    ])
  })
})

describeWithGo(`tazuna check on templated configurations${needsGo}`, () => {
  const file = (fixture: string) => path.join(fixtures, fixture, 'tazuna.yaml')

  it(
    'passes a valid configuration for a declared environment',
    async () => {
      const result = await check('config-valid', 'prod')
      expect(result.problems).toEqual([])
      expect(result.manifests.map((m) => [m.name, m.path, m.source.line])).toEqual([
        ['base-prod', './base', 14],
        ['app', './apps/prod', 3],
        ['secrets', 'secrets/genesis.yaml', 20],
        ['chart', 'charts/', 24],
        ['pulled', 'oci', 34]
      ])
    },
    goTimeout
  )

  it('rejects an environment that is not declared', async () => {
    const result = await check('config-valid', 'dev')
    expect(result.problems).toEqual([
      at(
        'config-valid',
        'tazuna.yaml',
        9,
        'environment "dev" is not declared under spec.environments'
      )
    ])
  })

  it('renders the template with an empty environment when -e is not given', async () => {
    const result = await check('config-valid')
    expect(result.problems).toEqual([
      at('config-valid', 'tazuna.yaml', 14, invalidName(0, 'base-'))
    ])
  })

  it("reports an undefined template field with Go's message and line", async () => {
    const result = await check('config-bad-template', 'prod')
    expect(result.problems).toEqual([
      at(
        'config-bad-template',
        'tazuna.yaml',
        5,
        `failed to render ${file('config-bad-template')} as a Go template: template: ${file('config-bad-template')}:5:21: executing "${file('config-bad-template')}" at <.Cluster>: map has no entry for key "Cluster"`
      )
    ])
  })

  it('reports an undefined template function as a parse failure', async () => {
    const result = await check('config-undefined-function')
    expect(result.problems).toEqual([
      at(
        'config-undefined-function',
        'tazuna.yaml',
        6,
        `failed to parse ${file('config-undefined-function')} as a Go template: template: ${file('config-undefined-function')}:6: function "default" not defined`
      )
    ])
  })
})
