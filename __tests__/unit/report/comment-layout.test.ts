// The comment in the order a reviewer reads it: the risks and their count first, the headline,
// then per manifest each entry with its content diff right under it, and the content hashes
// last in one collapsed block. Expected texts are written from that layout, not captured.
import { describe, expect, it } from '@jest/globals'
import { renderComment } from '../../../src/report/comment.js'
import type { ObjectContentDiff } from '../../../src/report/content-diff.js'
import { renderDiffMarkdown } from '../../../src/report/diff-markdown.js'
import type { DiffReport } from '../../../src/report/model.js'
import { hash, report } from './fixtures.js'
import { balanceOf, wellFormed } from './well-formed.js'

const settings = 'config//v1/ConfigMap/tazuna-demo/settings'
const web = 'web/apps/v1/Deployment/tazuna-demo/web'

const diff = (manifest: string, key: string, lines: string[], extra = {}): ObjectContentDiff => ({
  manifest,
  key,
  type: 'modified',
  relation: 'deployed',
  lines,
  ...extra
})

/** "One ConfigMap value and one replica count changed", a HorizontalPodAutoscaler on web. */
const demo = (): DiffReport =>
  report(
    [
      { manifest: 'namespaces', type: 'kustomize', entries: [] },
      {
        manifest: 'config',
        type: 'kustomize',
        entries: [{ type: 'modified', key: settings, oldHash: hash(0xbb), newHash: hash(0xdd) }]
      },
      {
        manifest: 'web',
        type: 'kustomize',
        entries: [{ type: 'modified', key: web, oldHash: hash(0xcc), newHash: hash(0xee) }]
      }
    ],
    {
      content: {
        source: 'base',
        baseSha: 'abcdef0123',
        diffs: [
          diff('config', settings, [
            '@@ -1,4 +1,4 @@',
            ' apiVersion: v1',
            ' data:',
            '-  GREETING: hello',
            '+  GREETING: bonjour'
          ]),
          diff('web', web, ['@@ -10,3 +10,3 @@', ' spec:', '-  replicas: 2', '+  replicas: 3'])
        ]
      },
      risks: [
        {
          kind: 'fights-controller',
          manifest: 'web',
          key: web,
          path: 'spec.replicas',
          message: 'a HorizontalPodAutoscaler targets it'
        }
      ]
    }
  )

/** Where each text first occurs; throws naming a text that is missing. */
const positions = (markdown: string, texts: string[]): number[] =>
  texts.map((t) => {
    const at = markdown.indexOf(t)
    if (at < 0) throw new Error(`missing ${JSON.stringify(t)} in:\n${markdown}`)
    return at
  })

describe('the comment reads top-down', () => {
  it('opens with the risk count, then the headline, the entries with their diffs, the hashes last', () => {
    const { markdown } = renderComment(demo())
    expect(markdown.split('\n')[1]).toBe('**⚠ 1 fights another controller.** Review these first:')
    const order = positions(markdown, [
      '- **fights a controller**: `web: apps/v1/Deployment/tazuna-demo/web` `spec.replicas`',
      '### Tazuna Diff for `deploy/tazuna.yaml`',
      '**2 modified.** 2 of 3 manifests have entries',
      '#### Changes by manifest',
      '##### `config` (kustomize): 1 modified',
      '-  GREETING: hello',
      '##### `web` (kustomize): 1 modified',
      '+  replicas: 3',
      'Without entries: `namespaces`.',
      '<details><summary>Content hashes (what Tazuna records in State)</summary>',
      `! modified     /v1/ConfigMap/tazuna-demo/settings ${hash(0xbb).slice(0, 12)} -> ${hash(0xdd).slice(0, 12)}`,
      '<sub>Diff digest'
    ])
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(balanceOf(markdown)).toEqual(wellFormed)
  })

  it('shows an entry as class and object with its diff open right under it', () => {
    const { markdown } = renderComment(demo())
    expect(markdown).toContain(
      '##### `config` (kustomize): 1 modified\n\n\n' +
        '<details open><summary><b>modified</b> <code>/v1/ConfigMap/tazuna-demo/settings</code></summary>\n\n' +
        '```diff\n--- base\n+++ head\n@@ -1,4 +1,4 @@\n apiVersion: v1\n data:\n' +
        '-  GREETING: hello\n+  GREETING: bonjour\n```\n\n</details>\n\n'
    )
    expect(markdown).toContain(
      '<details open><summary><b>modified</b> <code>apps/v1/Deployment/tazuna-demo/web</code> — ⚠ fights a controller</summary>'
    )
  })

  it('keeps the hashes out of everything above the technical block', () => {
    const { markdown } = renderComment(demo())
    const block = markdown.indexOf('<details><summary>Content hashes')
    expect(markdown.slice(0, block)).not.toContain(hash(0xbb).slice(0, 12))
    expect(markdown.slice(0, block)).not.toMatch(/^! modified/m)
  })

  it('collapses the diffs after the open budget, never opening one after a collapsed one', () => {
    const keys = Array.from({ length: 10 }, (_, i) => `m//v1/ConfigMap/ns/cm-${i}`)
    const r = report(
      [
        {
          manifest: 'm',
          type: 'kustomize',
          entries: keys.map((key) => ({
            type: 'modified',
            key,
            oldHash: hash(1),
            newHash: hash(2)
          }))
        }
      ],
      { content: { source: 'base', diffs: keys.map((k) => diff('m', k, ['-a: 1', '+a: 2'])) } }
    )
    const { markdown } = renderDiffMarkdown(r, {
      budget: 65_000,
      hashLength: 12,
      content: { linesPerObject: 10, fullDiff: 'full diff: report.diff', openBudget: 500 }
    })
    const tags = markdown.match(/<details( open)?><summary><b>modified/g)!
    expect(tags).toHaveLength(10)
    const open = tags.filter((t) => t.includes('open')).length
    expect(open).toBeGreaterThan(0)
    expect(open).toBeLessThan(10)
    expect(tags.slice(0, open).every((t) => t.includes(' open'))).toBe(true)
  })

  it("keeps an entry's line, marked, when its diff does not fit, and names the full diff once", () => {
    const big = 'm//v1/ConfigMap/ns/big'
    const small = 'm//v1/ConfigMap/ns/small'
    const r = report(
      [
        {
          manifest: 'm',
          type: 'kustomize',
          entries: [big, small].map((key) => ({
            type: 'modified' as const,
            key,
            oldHash: hash(1),
            newHash: hash(2)
          }))
        }
      ],
      {
        plan: undefined,
        content: {
          source: 'base',
          diffs: [
            diff(
              'm',
              big,
              Array.from({ length: 100 }, (_, i) => `+line ${i} ${'x'.repeat(100)}`)
            ),
            diff('m', small, ['-a: 1', '+a: 2'])
          ]
        }
      }
    )
    const { markdown } = renderDiffMarkdown(r, {
      budget: 4_000,
      hashLength: 12,
      content: { linesPerObject: 120, fullDiff: 'full diff: report.diff', openBudget: 4_000 }
    })
    expect(markdown.length).toBeLessThanOrEqual(4_000)
    expect(markdown).toContain('- **modified** `/v1/ConfigMap/ns/big` _(diff left out to fit)_\n')
    expect(markdown).toContain('<summary><b>modified</b> <code>/v1/ConfigMap/ns/small</code>')
    expect(markdown).toContain(
      '\nThe diffs of 1 object were left out to fit (full diff: report.diff).\n'
    )
    expect(balanceOf(markdown)).toEqual(wellFormed)
  })

  it('gives an entry without diff lines one line saying why', () => {
    const key = 'm//v1/ConfigMap/ns/same'
    const r = report(
      [
        {
          manifest: 'm',
          type: 'kustomize',
          entries: [
            { type: 'modified', key, oldHash: hash(1), newHash: hash(2) },
            { type: 'always-sync', key: 'm//v1/Secret/ns/generated', newHash: hash(3) }
          ]
        }
      ],
      { content: { source: 'base', diffs: [diff('m', key, [], { relation: 'not-applied' })] } }
    )
    const { markdown } = renderComment(r)
    expect(markdown).toContain(
      '- **modified** `/v1/ConfigMap/ns/same`: the same in base and head; State differs because the base branch is not applied yet\n'
    )
    expect(markdown).toContain('- **always-sync** `/v1/Secret/ns/generated`\n')
  })

  it('drops the hashes first when the budget is short, saying how many manifests they miss', () => {
    const whole = renderComment(demo(), { budget: 1_000_000 }).markdown
    const { markdown } = renderComment(demo(), { budget: whole.length - 10 })
    expect(markdown.length).toBeLessThanOrEqual(whole.length - 10)
    expect(markdown).toContain('-  GREETING: hello')
    expect(markdown).toContain('+  replicas: 3')
    // Room is kept for the longest notes, so a short cut may drop the hashes of both.
    expect(markdown).toMatch(
      /…and the hashes of [12] more manifests? \(the job summary has them\)\./
    )
    expect(balanceOf(markdown)).toEqual(wellFormed)
  })
})
