import { describe, expect, it } from '@jest/globals'
import { renderComment, renderDiffSummary, commentBudget } from '../../../src/report/comment.js'
import { renderDiffMarkdown } from '../../../src/report/diff-markdown.js'
import { parseMarker } from '../../../src/report/marker.js'
import { parseEntriesBlock } from '../../../src/report/reviewed-entries.js'
import { diffDigests } from '../../../src/state/diff-digest.js'
import { entries, hash, report } from './fixtures.js'
import { balanceOf, wellFormed } from './well-formed.js'

const diffRows = (markdown: string): string[] =>
  markdown.split('\n').filter((line) => /^[+!#-] (added|modified|removed|always-sync) /.test(line))

describe('renderDiffMarkdown ordering', () => {
  it('lists entries added, modified, removed, always-sync, each by key in Go byte order', () => {
    const shuffled = [
      { type: 'always-sync' as const, key: 'm//v1/Secret/ns/s', newHash: hash(1) },
      { type: 'removed' as const, key: 'm//v1/Service/ns/b', oldHash: hash(2) },
      { type: 'added' as const, key: 'm//v1/ConfigMap/ns/\u{1F600}', newHash: hash(3) },
      {
        type: 'modified' as const,
        key: 'm//v1/ConfigMap/ns/z',
        oldHash: hash(4),
        newHash: hash(5)
      },
      { type: 'added' as const, key: 'm//v1/ConfigMap/ns/\uFF21', newHash: hash(6) },
      { type: 'added' as const, key: 'm//v1/ConfigMap/ns/A', newHash: hash(7) },
      { type: 'removed' as const, key: 'm//v1/Service/ns/a', oldHash: hash(8) }
    ]
    const { markdown } = renderComment(
      report([{ manifest: 'm', type: 'kustomize', entries: shuffled }])
    )
    // U+FF21 (3 UTF-8 bytes, EF BC A1) sorts before U+1F600 (F0 ...) in Go, after it in UTF-16.
    expect(
      diffRows(markdown).map((r) => r.replace(/\s+\S+( -> \S+)?$|\s+\(was: \S+\)$/, ''))
    ).toEqual([
      '+ added        /v1/ConfigMap/ns/A',
      '+ added        /v1/ConfigMap/ns/\uFF21',
      '+ added        /v1/ConfigMap/ns/\u{1F600}',
      '! modified     /v1/ConfigMap/ns/z',
      '- removed      /v1/Service/ns/a',
      '- removed      /v1/Service/ns/b',
      '# always-sync  /v1/Secret/ns/s'
    ])
  })

  it('shows short hashes in the comment and whole hashes in the summary', () => {
    const r = report([
      {
        manifest: 'm',
        type: 'kustomize',
        entries: [
          {
            type: 'modified',
            key: 'm/apps/v1/Deployment/ns/web',
            oldHash: hash(1),
            newHash: hash(2)
          }
        ]
      }
    ])
    expect(diffRows(renderComment(r).markdown)).toEqual([
      `! modified     apps/v1/Deployment/ns/web ${hash(1).slice(0, 12)} -> ${hash(2).slice(0, 12)}`
    ])
    expect(diffRows(renderDiffSummary(r).markdown)).toEqual([
      `! modified     apps/v1/Deployment/ns/web ${hash(1)} -> ${hash(2)}`
    ])
  })

  it('says "No changes detected." and names manifests without entries', () => {
    const { markdown, detail } = renderComment(
      report([{ manifest: 'quiet', type: 'kustomize', entries: [] }])
    )
    expect(detail).toBe('entries')
    expect(markdown).toContain('**No changes detected.** 0 of 1 manifests have entries')
    expect(markdown).toContain('Without entries: `quiet`.')
  })

  it('puts the marker on the first line, naming config, environment, head commit and Diff digest', () => {
    const { markdown } = renderComment(report([]))
    const digest = diffDigests([])
    expect(parseMarker(markdown)).toEqual({
      tool: 'tazuna-action',
      schema: 2,
      config: 'deploy/tazuna.yaml',
      environment: 'production',
      sha: '0123456789abcdef0123456789abcdef01234567',
      diff: digest
    })
    expect(markdown).toContain(
      `<sub>Diff digest \`${digest.digest.slice(0, 12)}\` for \`0123456789ab\`</sub>`
    )
    expect(parseEntriesBlock(markdown)).toEqual({ complete: true, manifests: {} })
  })

  it('shows a failed manifest with its error, keeps the other Diffs and records no Diff digest', () => {
    const error =
      'manifest "nsless": failed to build: nsless (rendered by kustomize for manifest nsless): v1 ConfigMap c is namespaced but has no namespace'
    const { markdown } = renderComment(
      report([
        { manifest: 'nsless', type: 'kustomize', entries: [], error },
        { manifest: 'web', type: 'kustomize', entries: entries('web', 'added', 1) }
      ])
    )
    expect(markdown).toContain('#### 1 manifest failed to render')
    expect(markdown).toContain(
      `<code>nsless</code> (kustomize): failed to render, no Diff</summary>\n\n\`\`\`text\n${error}\n\`\`\``
    )
    expect(markdown).toContain('+ added        ')
    expect(markdown).not.toContain('Without entries: `nsless`')
    expect(parseMarker(markdown)?.diff).toBeUndefined()
    expect(parseEntriesBlock(markdown)).toBeUndefined()
  })

  it('lists check problems with file and line and says no Diff was computed', () => {
    const r = report([], {
      plan: undefined,
      problems: [
        { file: 'tazuna.yaml', line: 7, message: 'manifest "a" depends on itself' },
        { file: 'inc.yaml', message: 'include file not found' }
      ]
    })
    const { markdown } = renderComment(r)
    expect(markdown).toContain('**Check failed** with 2 problems; no Diff was computed')
    expect(markdown).toContain(
      '```text\ntazuna.yaml:7: manifest "a" depends on itself\ninc.yaml: include file not found\n```'
    )
  })
})

describe('renderDiffMarkdown budget', () => {
  const big = (n: number) => ({
    manifest: `m${n}`,
    type: 'kustomize',
    entries: entries(`m${n}`, 'added', 400)
  })

  it.each([
    ['everything fits', [1, 2], 1_000_000, 'entries', []],
    [
      'one manifest is too long: the others keep their rows',
      [400, 2, 3],
      20_000,
      'entries',
      ['m0']
    ],
    [
      'no manifest fits: the first lists the entries that fit, the other a counts row',
      [400, 400],
      3_000,
      'entries',
      ['m0', 'm1']
    ],
    ['not even one entry fits: a counts table', [400, 400], 700, 'counts', ['m0', 'm1']],
    [
      'not even the counts fit: the headline',
      Array(200).fill(1),
      2_500,
      'headline',
      Array.from({ length: 200 }, (_, i) => `m${i}`)
    ]
  ])('%s', (_, sizes, budget, detail, omitted) => {
    const manifests = (sizes as number[]).map((n, i) => ({
      manifest: `m${i}`,
      type: 'kustomize',
      entries: entries(`m${i}`, 'modified', n)
    }))
    const out = renderDiffMarkdown(report(manifests, { plan: undefined }), {
      budget: budget,
      hashLength: 12
    })
    expect(out.detail).toBe(detail)
    expect(out.omitted).toEqual(omitted)
    expect(out.markdown.length).toBeLessThanOrEqual(budget)
    expect(balanceOf(out.markdown)).toEqual(wellFormed)
  })

  it('keeps a huge Diff under the comment limit with balanced fences and details', () => {
    const r = report(Array.from({ length: 30 }, (_, i) => big(i)))
    const out = renderComment(r)
    expect(out.markdown.length).toBeLessThan(65_536)
    expect(out.markdown.length).toBeLessThanOrEqual(commentBudget)
    expect(balanceOf(out.markdown)).toEqual(wellFormed)
    expect(out.markdown).toContain('Entries left out to fit (the job summary has them)')
    const summary = renderDiffSummary(r)
    expect(Buffer.byteLength(summary.markdown)).toBeLessThanOrEqual(1_000_000)
    expect(summary.omitted.length).toBeLessThan(out.omitted.length)
  })

  it('drops the problems list before failing when only the headline is left', () => {
    const problems = Array.from({ length: 100 }, (_, i) => ({
      file: 'tazuna.yaml',
      line: i + 1,
      message: 'x'.repeat(900)
    }))
    const out = renderDiffMarkdown(report([], { problems, plan: undefined }), {
      budget: 20_000,
      hashLength: 12
    })
    expect(out.detail).toBe('headline')
    expect(out.markdown).toContain('…and 80 more')
    expect(balanceOf(out.markdown)).toEqual(wellFormed)
  })

  it('chooses a fence longer than backticks inside a key', () => {
    const key = 'm//v1/ConfigMap/ns/a```b'
    const out = renderComment(
      report([
        { manifest: 'm', type: 'kustomize', entries: [{ type: 'added', key, newHash: hash(1) }] }
      ])
    )
    expect(out.markdown).toContain('````diff\n+ added        /v1/ConfigMap/ns/a```b')
    expect(balanceOf(out.markdown)).toEqual(wellFormed)
  })

  it('escapes HTML in the manifest heading and the hashes block', () => {
    const out = renderComment(
      report([{ manifest: '<img>', type: 'x</summary>', entries: entries('m', 'added', 1) }])
    )
    expect(out.markdown).toContain('##### `<img>` (x&lt;/summary&gt;): 1 added\n')
    expect(out.markdown).toContain('`<img>` (x&lt;/summary&gt;):\n\n```diff\n')
    expect(balanceOf(out.markdown)).toEqual(wellFormed)
  })

  it('measures the summary in UTF-8 bytes', () => {
    const manifests = [
      { manifest: 'm', type: 'kustomize', entries: entries('日本語'.repeat(10), 'added', 20) }
    ]
    const options = { budget: 3000, hashLength: 12 }
    const chars = renderDiffMarkdown(report(manifests), options)
    const bytes = renderDiffMarkdown(report(manifests), {
      ...options,
      measure: (t) => Buffer.byteLength(t)
    })
    expect(chars.markdown.length).toBeLessThanOrEqual(3000)
    expect(Buffer.byteLength(chars.markdown)).toBeGreaterThan(3000)
    expect(chars.omitted).toEqual([])
    expect(bytes.omitted).toEqual(['m'])
    expect(Buffer.byteLength(bytes.markdown)).toBeLessThanOrEqual(3000)
  })
})
