// One release as a `helm template` command line (docs/compatibility.md#helmfile step 5,
// docs/compatibility.md#empty-release-namespace, #helm-capabilities, #helm-hooks).
import { describe, expect, it } from '@jest/globals'
import {
  DEFAULT_KUBE_VERSION,
  EMPTY_NAMESPACE_STAND_IN,
  helmTemplateArgs,
  releaseOutput,
  resolveChartSource,
  selectCapabilities,
  type ChartSource
} from '../../../src/render/helmfile/helm-release.js'
import type { HelmRelease, HelmRepository } from '../../../src/render/helmfile/helmfile-spec.js'

const repo = (name: string, url: string, extra: Partial<HelmRepository> = {}): HelmRepository => ({
  name,
  url,
  username: '',
  password: '',
  oci: false,
  ...extra
})
const repos = [
  repo('bitnami', 'https://charts.bitnami.com/bitnami'),
  repo('private', 'https://charts.example.com', { username: 'u', password: 'p' }),
  repo('ghcr', 'oci://ghcr.io/org/charts/'),
  repo('ecr', '123.dkr.ecr.ap-northeast-1.amazonaws.com/charts', { oci: true })
]
const local = (p: string): string => `/helmfile/${p}`

describe('resolveChartSource', () => {
  it.each<[string, ChartSource]>([
    [
      'oci://registry.example.com/charts/app',
      { kind: 'oci', ref: 'oci://registry.example.com/charts/app' }
    ],
    ['bitnami/nginx', { kind: 'repo', chart: 'nginx', repository: repos[0]! }],
    ['ghcr/app', { kind: 'oci', ref: 'oci://ghcr.io/org/charts/app', repository: repos[2]! }],
    [
      'ecr/app',
      {
        kind: 'oci',
        ref: 'oci://123.dkr.ecr.ap-northeast-1.amazonaws.com/charts/app',
        repository: repos[3]!
      }
    ],
    ['./charts/app', { kind: 'local', path: '/helmfile/./charts/app' }],
    ['charts/app', { kind: 'local', path: '/helmfile/charts/app' }],
    ['unknown/app', { kind: 'local', path: '/helmfile/unknown/app' }]
  ])('%s', (chart, source) => {
    expect(resolveChartSource(chart, repos, local)).toEqual(source)
  })
})

describe('selectCapabilities', () => {
  const discovered = { kubeVersion: 'v1.32.13', apiVersions: ['apps/v1', 'example.com/v1/Widget'] }
  it.each([
    [
      'kubeVersion wins over discovery and keeps Helm defaults',
      'v1.29.0',
      discovered,
      { kubeVersion: 'v1.29.0', apiVersions: [] }
    ],
    ['discovery when no kubeVersion', '', discovered, discovered],
    [
      'the documented default without either',
      undefined,
      undefined,
      { kubeVersion: DEFAULT_KUBE_VERSION, apiVersions: [] }
    ]
  ])('%s', (_name, kubeVersion, caps, expected) => {
    expect(selectCapabilities(kubeVersion, caps)).toEqual(expected)
  })

  it('defaults to the Helm SDK library default v1.20.0', () => {
    expect(DEFAULT_KUBE_VERSION).toBe('v1.20.0')
  })
})

describe('helmTemplateArgs', () => {
  const release: HelmRelease = {
    name: 'web',
    namespace: 'apps',
    chart: 'x',
    version: '1.2.3',
    values: []
  }
  const caps = { kubeVersion: 'v1.32.13', apiVersions: ['apps/v1', 'example.com/v1/Widget'] }

  it('renders one release like a client-only install without hooks', () => {
    expect(
      helmTemplateArgs({
        release,
        chart: { kind: 'local', path: '/h/charts/web' },
        includeCRDs: true,
        capabilities: caps,
        valuesFiles: ['/h/a.yaml', '/tmp/b.json']
      })
    ).toEqual([
      'template',
      'web',
      '/h/charts/web',
      '--namespace',
      'apps',
      '--version',
      '1.2.3',
      '--include-crds',
      '--no-hooks',
      '--kube-version',
      'v1.32.13',
      '--api-versions',
      'apps/v1',
      '--api-versions',
      'example.com/v1/Widget',
      '--values',
      '/h/a.yaml',
      '--values',
      '/tmp/b.json'
    ])
  })

  it('passes an HTTP repository with --repo and its credentials', () => {
    const args = helmTemplateArgs({
      release: { ...release, version: '' },
      chart: { kind: 'repo', chart: 'nginx', repository: repos[1]! },
      includeCRDs: false,
      capabilities: { kubeVersion: 'v1.20.0', apiVersions: [] },
      valuesFiles: []
    })
    expect(args).toEqual([
      'template',
      'web',
      'nginx',
      '--repo',
      'https://charts.example.com',
      '--username',
      'u',
      '--password',
      'p',
      '--namespace',
      'apps',
      '--no-hooks',
      '--kube-version',
      'v1.20.0'
    ])
  })

  it('renders an omitted namespace with the stand-in (docs/compatibility.md#empty-release-namespace)', () => {
    const args = helmTemplateArgs({
      release: { ...release, namespace: '' },
      chart: { kind: 'oci', ref: 'oci://r/app' },
      includeCRDs: false,
      capabilities: caps,
      valuesFiles: []
    })
    expect(args.slice(3, 5)).toEqual(['--namespace', EMPTY_NAMESPACE_STAND_IN])
  })
})

describe('releaseOutput', () => {
  const rel = (namespace: string): HelmRelease => ({
    name: 'r',
    namespace,
    chart: 'c',
    version: '',
    values: []
  })
  const s = EMPTY_NAMESPACE_STAND_IN

  it('removes the stand-in so the text is what an empty .Release.Namespace renders', () => {
    expect(releaseOutput(`\nnamespace: ${s}\nq: "${s}"\nsvc: db.${s}.svc\n`, rel(''))).toBe(
      'namespace: \nq: ""\nsvc: db..svc'
    )
  })

  it('leaves the text of a release with a namespace alone, trimmed', () => {
    expect(releaseOutput(`  a: ${s}\n\n`, rel('apps'))).toBe(`a: ${s}`)
  })
})
