// The helmfile subset Tazuna reads (docs/compatibility.md#helmfile step 4), decoded like Go's
// encoding/json.
import { describe, expect, it } from '@jest/globals'
import { ConfigError } from '../../../src/errors.js'
import { parseHelmfileSpec } from '../../../src/render/helmfile/helmfile-spec.js'

describe('parseHelmfileSpec', () => {
  it('reads repositories and releases and ignores everything else', () => {
    const spec = parseHelmfileSpec(
      `environments: { default: {} }
helmDefaults: { wait: true }
repositories:
  - name: bitnami
    url: https://charts.bitnami.com/bitnami
    oci: false
releases:
  - name: web
    Namespace: apps
    chart: bitnami/nginx
    version: 1.2.3
    values: [a.yaml, {x: 1}, null]
    needs: [other]
`,
      'helmfile.yaml'
    )
    expect(spec).toEqual({
      repositories: [
        {
          name: 'bitnami',
          url: 'https://charts.bitnami.com/bitnami',
          username: '',
          password: '',
          oci: false
        }
      ],
      releases: [
        {
          name: 'web',
          namespace: 'apps',
          chart: 'bitnami/nginx',
          version: '1.2.3',
          values: ['a.yaml', { x: 1 }, null]
        }
      ]
    })
  })

  it('keeps an omitted namespace as the empty string (docs/compatibility.md#empty-release-namespace)', () => {
    expect(parseHelmfileSpec('releases: [{name: a, chart: c}]', 'h').releases[0]?.namespace).toBe(
      ''
    )
  })

  it('reads only the first YAML document, as sigs.k8s.io/yaml.Unmarshal', () => {
    expect(
      parseHelmfileSpec('releases: [{name: a}]\n---\nreleases: [{name: b}]', 'h').releases
    ).toHaveLength(1)
  })

  it('treats an empty helmfile as having no releases', () => {
    expect(parseHelmfileSpec('# nothing\n', 'h')).toEqual({ repositories: [], releases: [] })
  })

  // Go (sigs.k8s.io/yaml): a YAML number in a string field becomes its text; see go-file-decoding.test.ts.
  it('reads a version written as a YAML number as its text, as Go does', () => {
    expect(
      parseHelmfileSpec('releases:\n  - name: a\n    version: 1.2\n', 'h').releases[0]?.version
    ).toBe('1.2')
  })

  it("rejects a version that is not a scalar with Go's message, naming file and line", () => {
    expect(() =>
      parseHelmfileSpec('releases:\n  - name: a\n    version: [1.2]\n', 'helmfile.yaml')
    ).toThrow(
      new ConfigError([
        {
          file: 'helmfile.yaml',
          line: 3,
          message:
            'invalid helmfile: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field HelmfileRelease.releases.version of type string'
        }
      ])
    )
  })
})
