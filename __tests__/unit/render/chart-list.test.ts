// Where `chart list --check-latest` asks for a chart's newest version (src/render/helmfile/chart-list.ts).
// The first six rows are upstream's own table (pkg/manager/helmfile_releases_test.go,
// TestResolveChartSource); the rest follow the same function's source: splitRepoAlias's rules,
// an `oci://host` without a path, a trailing slash, the last repository of a name winning.
import { describe, expect, it } from '@jest/globals'
import {
  latestSourceKey,
  latestSourceOf,
  type LatestSource
} from '../../../src/render/helmfile/chart-list.js'
import type { HelmRepository } from '../../../src/render/helmfile/helmfile-spec.js'

const repo = (name: string, url: string, oci = false): HelmRepository => ({
  name,
  url,
  username: '',
  password: '',
  oci
})

const repositories = [
  repo('argo-cd', 'https://argoproj.github.io/argo-helm'),
  repo('myoci', 'oci://ghcr.io/example'),
  repo('ociflag', 'ghcr.io/example', true),
  repo('twice', 'https://first.example/charts'),
  repo('twice', 'https://second.example/charts')
]

/** kind, chart name and repository URL, as upstream's test compares them. */
function summary(source: LatestSource): [string, string, string] {
  if (source.kind === 'local') return ['local', '', '']
  if (source.kind === 'oci') return ['oci', source.chart, `oci://${source.repository}`]
  return ['http', source.chart, source.repository.url]
}

describe('latestSourceOf', () => {
  it.each([
    ['argo-cd/argo-cd', 'http', 'argo-cd', 'https://argoproj.github.io/argo-helm'],
    ['myoci/mychart', 'oci', 'mychart', 'oci://ghcr.io/example'],
    ['ociflag/mychart', 'oci', 'mychart', 'oci://ghcr.io/example'],
    [
      'oci://public.ecr.aws/karpenter/karpenter-crd',
      'oci',
      'karpenter-crd',
      'oci://public.ecr.aws/karpenter'
    ],
    ['./charts/mychart', 'local', '', ''],
    ['unknown/mychart', 'local', '', ''],
    ['oci://ghcr.io/example/app/', 'oci', 'app', 'oci://ghcr.io/example'],
    ['oci://ghcr.io', 'local', '', ''],
    ['argo-cd/nested/chart', 'local', '', ''],
    ['.hidden/chart', 'local', '', ''],
    ['/abs/chart', 'local', '', ''],
    ['argo-cd/', 'local', '', ''],
    ['', 'local', '', ''],
    ['twice/app', 'http', 'app', 'https://second.example/charts']
  ])('%j is %s', (chart, kind, name, url) => {
    expect(summary(latestSourceOf(chart, repositories))).toEqual([kind, name, url])
  })
})

describe('latestSourceKey', () => {
  it('is the same for an alias and a direct reference to one OCI chart', () => {
    const alias = latestSourceOf('myoci/app', repositories)
    const direct = latestSourceOf('oci://ghcr.io/example/app', repositories)
    expect(latestSourceKey(alias)).toBe('oci|oci://ghcr.io/example|app')
    expect(latestSourceKey(direct)).toBe(latestSourceKey(alias))
  })

  it('is empty for a local chart, which is never asked', () => {
    expect(latestSourceKey(latestSourceOf('./charts/app', repositories))).toBe('')
  })

  it('tells an HTTP repository from an OCI registry at the same address', () => {
    expect(latestSourceKey(latestSourceOf('argo-cd/app', repositories))).toBe(
      'http|https://argoproj.github.io/argo-helm|app'
    )
  })
})
