// One release's chart source and capabilities (docs/compatibility.md#helmfile step 5,
// docs/compatibility.md#helm-capabilities).
import { describe, expect, it } from '@jest/globals'
import {
  DEFAULT_KUBE_VERSION,
  resolveChartSource,
  selectCapabilities,
  type ChartSource
} from '../../../src/render/helmfile/helm-release.js'
import type { HelmRepository } from '../../../src/render/helmfile/helmfile-spec.js'

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
