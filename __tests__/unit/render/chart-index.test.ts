// Repository index reading and version choice. Expected values restate Helm v3.21.4's
// pkg/repo/index.go (`loadIndex` sorts newest first, `Get` prefers an exact string, then the
// first version satisfying the constraint; '' means the newest non-prerelease) and
// `repo.ResolveReferenceURL` (chartrepo_test.go). integration/render/chart-sources.test.ts checks
// the same choices against real helm.
import { describe, expect, it } from '@jest/globals'
import {
  parseChartIndex,
  selectIndexEntry,
  selectTag
} from '../../../src/render/helmfile/chart-index.js'
import { resolveReferenceUrl } from '../../../src/render/helmfile/chart-fetch.js'

const INDEX = `apiVersion: v1
entries:
  demo:
  - name: demo
    version: 1.2.3
    urls: [demo-1.2.3.tgz]
  - name: demo
    version: 2.0.0-rc.1
    urls: [demo-2.0.0-rc.1.tgz]
  - name: demo
    version: v1.10.0
    urls: [https://cdn.example/demo-1.10.0.tgz]
  - name: demo
    version: not-semver
    urls: [x.tgz]
  - name: demo
    version: 1.9.0
    urls: []
  - null
`

describe('parseChartIndex', () => {
  it('sorts each chart newest first, unparsable versions last, and drops empty entries', () => {
    const index = parseChartIndex(INDEX)
    expect(index.get('demo')?.map((e) => e.version)).toEqual([
      '2.0.0-rc.1',
      'v1.10.0',
      '1.9.0',
      '1.2.3',
      'not-semver'
    ])
  })

  it.each([
    ['', 'empty index.yaml file'],
    ['entries: {}\n', 'no API version specified'],
    ['apiVersion: v1\nentries:\n  demo:\n  - version: 1.0\n', 'version must be a string']
  ])('rejects %j: %s', (text, message) => {
    expect(() => parseChartIndex(text)).toThrow(message)
  })
})

describe('selectIndexEntry', () => {
  const index = parseChartIndex(INDEX)
  it.each([
    ['', 'v1.10.0'],
    ['1.2.3', '1.2.3'],
    ['v1.10.0', 'v1.10.0'],
    ['1.10.0', 'v1.10.0'],
    ['~1.2', '1.2.3'],
    ['^1', 'v1.10.0'],
    ['>=2.0.0-0', '2.0.0-rc.1'],
    ['not-semver', 'not-semver'],
    ['<1', undefined]
  ])('for %j picks %s', (version, want) => {
    expect(selectIndexEntry(index, 'demo', version)?.version).toBe(want)
  })

  it('finds nothing for an unknown chart', () => {
    expect(selectIndexEntry(index, 'other', '')).toBeUndefined()
  })

  it('throws for a version that is no constraint', () => {
    expect(() => selectIndexEntry(index, 'demo', '>=x.y')).toThrow('improper constraint')
  })
})

describe('selectTag', () => {
  const tags = ['2.0.0-rc.1', '1.3.0+build.1', '1.2.4', '1.2.3']
  it.each([
    ['', '1.3.0+build.1'],
    ['1.2.3', '1.2.3'],
    ['~1.2', '1.2.4'],
    ['>=2.0.0-0', '2.0.0-rc.1'],
    ['>=3', undefined]
  ])('for %j picks %s', (version, want) => {
    expect(selectTag(tags, version)).toBe(want)
  })
})

describe('resolveReferenceUrl', () => {
  it.each([
    [
      'https://charts.example/stable',
      'demo-1.0.0.tgz',
      'https://charts.example/stable/demo-1.0.0.tgz'
    ],
    ['https://charts.example/stable/', 'index.yaml', 'https://charts.example/stable/index.yaml'],
    [
      'https://charts.example/stable?token=t',
      'demo.tgz',
      'https://charts.example/stable/demo.tgz?token=t'
    ],
    ['https://charts.example/a/b', '../c/demo.tgz', 'https://charts.example/a/c/demo.tgz'],
    ['https://charts.example/a', 'https://cdn.example/demo.tgz', 'https://cdn.example/demo.tgz']
  ])('resolves %s + %s', (base, ref, want) => {
    expect(resolveReferenceUrl(base, ref)).toBe(want)
  })
})
