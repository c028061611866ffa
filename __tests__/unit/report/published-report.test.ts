/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- the tables edit report.json as plain JSON */
import { describe, expect, it } from '@jest/globals'
import { diffReportJson } from '../../../src/report/files.js'
import { parseMarker } from '../../../src/report/marker.js'
import { renderPublishedComment } from '../../../src/report/published-comment.js'
import {
  inertMarkdown,
  neutralise,
  readPublishedReport
} from '../../../src/report/published-report.js'
import { entries, hash, report } from './fixtures.js'
import { balanceOf } from './well-formed.js'

// A report as a fork's Diff run writes it (report.json of src/report/files.ts).
const written = report([
  { manifest: 'web', type: 'kustomize', entries: entries('web', 'modified', 2) },
  { manifest: 'db', type: 'helmfile', entries: [] }
])
const riskKey = 'web/apps/v1/Deployment/team-web/obj-00000'
const document = (): Record<string, unknown> =>
  JSON.parse(
    diffReportJson(
      {
        ...written,
        risks: [
          { kind: 'destroys-data', manifest: 'web', key: riskKey, path: 'spec', message: 'gone' }
        ]
      },
      { pullRequest: 7 }
    )
  ) as Record<string, unknown>
const read = (change: (doc: Record<string, any>) => void) => {
  const doc = document()
  change(doc)
  return () => readPublishedReport(JSON.stringify(doc))
}

describe('readPublishedReport', () => {
  it('reads back the Diff, the pull request and the commit the Diff run wrote', () => {
    const { pullRequest, report: back } = readPublishedReport(JSON.stringify(document()))
    expect(pullRequest).toBe(7)
    expect(back.sha).toBe(written.sha)
    expect(back.manifests).toEqual(
      written.manifests.map((m) => ({ manifest: m.manifest, type: m.type, entries: m.entries }))
    )
    expect(back.risks).toEqual([
      { kind: 'destroys-data', manifest: 'web', key: riskKey, path: 'spec', message: 'gone' }
    ])
    expect(back.plan).toBeUndefined()
  })

  it.each<[string, (doc: Record<string, any>) => void, string]>([
    ['another schema', (d) => (d.schema = 2), '"schema" is 2, not 1'],
    ['an apply report', (d) => (d.kind = 'apply'), '"kind" is "apply", not "diff"'],
    [
      'an unknown field',
      (d) => (d.script = 'rm -rf /'),
      'the report has an unknown field "script"'
    ],
    [
      'no pull request',
      (d) => (d.pullRequest = null),
      '"pullRequest" is not a pull request number'
    ],
    ['a fractional pull request', (d) => (d.pullRequest = 1.5), '"pullRequest" is not'],
    ['a sha that is not one', (d) => (d.sha = 'main'), '"sha" is not a commit id'],
    [
      'a manifest name Tazuna refuses',
      (d) => (d.manifests[0].manifest = '@team'),
      'contains invalid characters'
    ],
    [
      'a key of another manifest',
      (d) => (d.manifests[1].entries = [d.manifests[0].entries[0]]),
      'belongs to manifest "web", not "db"'
    ],
    [
      'a key that is no state key',
      (d) => (d.manifests[0].entries[0].key = 'web/x'),
      '"manifests"[0].entries[0].key is not a state key'
    ],
    [
      'a key with a space',
      (d) => (d.manifests[0].entries[0].key += ' x'),
      'has spaces or control characters'
    ],
    [
      'an unknown entry type',
      (d) => (d.manifests[0].entries[0].type = 'deleted'),
      'is not a Diff entry type'
    ],
    [
      'a hash with markup',
      (d) => (d.manifests[0].entries[0].newHash = '<b>'),
      'is not a content hash'
    ],
    [
      'counts that do not match the entries',
      (d) => (d.manifests[0].counts.modified = 0),
      '"manifests"[0].counts.modified does not match'
    ],
    ['totals that do not match', (d) => (d.counts.added = 5), '"counts".added does not match'],
    ['an unknown risk kind', (d) => (d.risks[0].kind = 'fine'), 'is not a risk kind'],
    ['a string where a list belongs', (d) => (d.problems = 'none'), '"problems" is not an array'],
    ['a type with markup', (d) => (d.manifests[0].type = '<img>'), 'is not a manifest type'],
    [
      'an overlong message',
      (d) => (d.risks[0].message = 'x'.repeat(65_537)),
      'longer than 65536 characters'
    ],
    [
      'too many manifests',
      (d) => (d.manifests = Array(1001).fill(d.manifests[1])),
      'more than 1000 items'
    ]
  ])('refuses %s', (_, change, message) => {
    expect(read(change)).toThrow(message)
  })

  it('refuses text that is not JSON, naming the parser’s complaint', () => {
    expect(() => readPublishedReport('{"schema": 1,')).toThrow(/^it is not JSON \(/)
  })

  it('neutralises mentions and drops control and bidi characters in every string it keeps', () => {
    const { report: back } = readPublishedReport(
      JSON.stringify({
        ...document(),
        problems: [{ file: 'tazuna.yaml', line: 3, message: 'ask @acme/admins\u202e now\u0007' }]
      })
    )
    expect(back.problems[0]!.message).toBe('ask @\u2060acme/admins now')
  })
})

describe('neutralise and inertMarkdown', () => {
  it.each([
    ['@octocat', '@\u2060octocat'],
    ['a\u0000b\tc\nd', 'ab\tc\nd'],
    ['\u2066rtl\u2069', 'rtl']
  ])('neutralise(%j)', (input, output) => expect(neutralise(input)).toBe(output))

  it('escapes the Markdown that could make a link, image, heading or emphasis', () => {
    expect(inertMarkdown('![x](https://e.test) **b** # h')).toBe(
      '\\!\\[x\\]\\(https://e.test\\) \\*\\*b\\*\\* \\# h'
    )
  })
})

/** The Markdown without its fenced code blocks and code spans. */
const outsideCode = (markdown: string): string =>
  markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '').replace(/(`+)[^`]*?\1/g, '')

describe('renderPublishedComment', () => {
  const origin = {
    runUrl: 'https://github.com/acme/deploy/actions/runs/99',
    headRepository: 'contributor/deploy'
  }
  const hostile = (): Record<string, unknown> => ({
    ...document(),
    risks: [
      {
        kind: 'widens-access',
        manifest: 'web',
        key: riskKey,
        path: 'rules[0]',
        message: 'ping @acme/security <img src=x onerror=alert(1)> [click](https://evil.test)',
        accepted: false
      }
    ],
    manifests: [
      {
        ...(document().manifests as Record<string, unknown>[])[0],
        error: '</details><script>alert(1)</script> cc @octocat ```'
      },
      (document().manifests as unknown[])[1]
    ]
  })

  it('cautions that the pull request’s run computed it, right under a published marker', () => {
    const { report: back } = readPublishedReport(JSON.stringify(document()))
    const { markdown } = renderPublishedComment(back, origin)
    const [first, second] = markdown.split('\n')
    expect(parseMarker(markdown)).toEqual({
      tool: 'tazuna-action',
      schema: 2,
      config: written.config,
      environment: written.environment,
      sha: written.sha,
      published: true
    })
    expect(second).toBe('> [!CAUTION]')
    expect(markdown).toContain(
      "Computed by [the pull request's workflow run](https://github.com/acme/deploy/actions/runs/99) for `contributor/deploy`"
    )
    expect(first).not.toContain('digest')
    expect(markdown).not.toContain('Diff digest')
    expect(markdown).toContain(hash(0).slice(0, 12))
  })

  it('leaves no mention, HTML tag or link of the report live, and closes every block', () => {
    const { report: back } = readPublishedReport(JSON.stringify(hostile()))
    const { markdown } = renderPublishedComment(back, origin)
    expect(markdown).not.toMatch(/@(acme|octocat)/)
    // Inside code blocks HTML is shown as text; anywhere else it must be escaped.
    expect(markdown).toContain('<script>')
    expect(outsideCode(markdown)).not.toMatch(/<img|<script|<\/details><script/)
    expect(markdown).not.toContain('[click](')
    expect(markdown).toContain('\\[click\\]\\(https://evil.test\\)')
    expect(balanceOf(markdown)).toEqual({
      openFence: false,
      detailsDepth: 0,
      closedBeforeOpen: false
    })
  })
})
