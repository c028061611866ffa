import { fingerprint, TEST_FINGERPRINT_KEY as KEY } from '../../support/secret-fingerprint.js'
import { describe, expect, it } from '@jest/globals'
import type { JsonObject } from '../../../src/go/yaml.js'
import { renderComment, renderDiffSummary, commentBudget } from '../../../src/report/comment.js'
import {
  computeContentDiffs,
  diffLines,
  objectsByKey,
  relationToState,
  renderReportDiff,
  type ObjectContentDiff
} from '../../../src/report/content-diff.js'
import {
  noDiffNote,
  renderContentIntro,
  renderObjectDiff
} from '../../../src/report/content-diff-markdown.js'
import { contentObject, renderContentYaml } from '../../../src/report/content-form.js'
import { computeContentHash } from '../../../src/state/hash.js'
import { report } from './fixtures.js'
import { balanceOf, wellFormed } from './well-formed.js'

const configMap = (name: string, data: JsonObject, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'app', ...extra },
  data
})

const secret = (data: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'app' },
  type: 'Opaque',
  data
})

const key = (name: string): string => `m//v1/ConfigMap/app/${name}`

describe('contentObject', () => {
  it.each<[string, JsonObject, JsonObject]>([
    [
      'drops the fields ContentHash strips and status',
      {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name: 'a', resourceVersion: '5', uid: 'u', generation: 2, managedFields: [] },
        status: { phase: 'x' }
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }
    ],
    [
      'drops the last-applied-configuration annotation and keeps the others',
      configMap(
        'a',
        {},
        {
          annotations: {
            'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"x"}}',
            team: 'web'
          }
        }
      ),
      configMap('a', {}, { annotations: { team: 'web' } })
    ],
    [
      'fingerprints Secret data and stringData values, keeping their keys',
      { ...secret({ user: 'YWRtaW4=' }), stringData: { token: 'plain' } },
      {
        ...secret({ user: fingerprint('YWRtaW4=') }),
        stringData: { token: fingerprint('plain') }
      }
    ]
  ])('%s', (_, input, expected) => {
    expect(contentObject(input, KEY)).toEqual(expected)
  })

  it('sorts keys in Go byte order at every depth', () => {
    const sorted = contentObject(
      {
        b: { z: 1, '\u{1F600}': 4, '\uFF21': 3, A: 2 },
        a: [{ y: 1, x: 2 }]
      },
      KEY
    )
    expect(JSON.stringify(sorted)).toBe(
      '{"a":[{"x":2,"y":1}],"b":{"A":2,"z":1,"\uFF21":3,"\u{1F600}":4}}'
    )
  })

  it('leaves a ConfigMap that is not a Secret unmasked', () => {
    expect(renderContentYaml(configMap('a', { password: 'visible' }), KEY)).toContain(
      'password: visible'
    )
  })

  it('never mutates its input', () => {
    const input = secret({ user: 'YWRtaW4=' })
    const copy = structuredClone(input)
    contentObject(input, KEY)
    expect(input).toEqual(copy)
  })
})

describe('diffLines', () => {
  const opts = { fingerprintKey: KEY }
  it('shows only the changed value with its context', () => {
    const lines = diffLines(
      configMap('a', { x: '1', y: '2' }),
      configMap('a', { x: '1', y: '3' }),
      opts
    )
    expect(lines.filter((l) => /^[-+]/.test(l))).toEqual(['-  y: "2"', '+  y: "3"'])
    expect(lines[0]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/)
  })

  it('is empty for objects that differ only in server-side fields', () => {
    const a = configMap('a', { x: '1' })
    const b = { ...configMap('a', { x: '1' }, { resourceVersion: '9' }), status: {} }
    expect(diffLines(a, b, opts)).toEqual([])
  })

  it('shows an added object as all additions from an empty range', () => {
    const lines = diffLines(undefined, configMap('a', { x: '1' }), opts)
    expect(lines[0]).toBe('@@ -0,0 +1,7 @@')
    expect(lines.slice(1).every((l) => l.startsWith('+'))).toBe(true)
  })

  it('shows which Secret key changed without either value', () => {
    const lines = diffLines(
      secret({ a: 'c2VjcmV0LW9uZQ==', b: 'same' }),
      secret({ a: 'c2VjcmV0LXR3bw==', b: 'same' }),
      opts
    )
    const text = lines.join('\n')
    expect(text).toContain(`-  a: ${fingerprint('c2VjcmV0LW9uZQ==')}`)
    expect(text).toContain(`+  a: ${fingerprint('c2VjcmV0LXR3bw==')}`)
    expect(text).not.toContain('c2VjcmV0')
  })
})

describe('relationToState', () => {
  const base = configMap('a', { x: '1' })
  const head = configMap('a', { x: '2' })
  const stored = computeContentHash(base)
  it.each([
    ['deployed when the base hashes as State records', base, stored, 'deployed'],
    [
      'base-differs when State records something else',
      base,
      computeContentHash(configMap('a', { x: 'drift' })),
      'base-differs'
    ],
    [
      'base-differs when the base lacks the object State records',
      undefined,
      stored,
      'base-differs'
    ],
    ['not-applied when the base equals the head', head, stored, 'not-applied']
  ] as const)('%s', (_, before, oldHash, expected) => {
    const entry = {
      type: 'modified' as const,
      key: key('a'),
      oldHash,
      newHash: computeContentHash(head)
    }
    expect(relationToState(entry, before)).toBe(expected)
  })

  it('calls an added object absent from base and State deployed', () => {
    expect(relationToState({ type: 'added', key: key('a'), newHash: 'h' }, undefined)).toBe(
      'deployed'
    )
  })
})

describe('computeContentDiffs', () => {
  const base = [configMap('a', { x: '1' }), configMap('gone', { y: '1' })]
  const head = [configMap('a', { x: '2', token: 'ghp_plantedtoken' }), configMap('new', { z: '1' })]
  const diffs = [
    {
      manifest: 'm',
      type: 'kustomize',
      entries: [
        { type: 'removed' as const, key: key('gone'), oldHash: computeContentHash(base[1]!) },
        {
          type: 'modified' as const,
          key: key('a'),
          oldHash: computeContentHash(base[0]!),
          newHash: computeContentHash(head[0]!)
        },
        { type: 'added' as const, key: key('new'), newHash: computeContentHash(head[1]!) },
        { type: 'always-sync' as const, key: 'm//v1/Secret/app/s', newHash: 'h' }
      ]
    }
  ]
  const computed = computeContentDiffs(
    diffs,
    {
      before: new Map([['m', objectsByKey('m', base)]]),
      head: new Map([['m', objectsByKey('m', head)]])
    },
    {
      source: 'base',
      redact: (t) => t.replaceAll('ghp_plantedtoken', '***'),
      fingerprintKey: KEY
    }
  )

  it('follows the Diff order and leaves always-sync entries out', () => {
    expect(computed.map((d) => [d.type, d.key, d.relation])).toEqual([
      ['added', key('new'), 'deployed'],
      ['modified', key('a'), 'deployed'],
      ['removed', key('gone'), 'deployed']
    ])
  })

  it('redacts every registered secret value in the lines', () => {
    const text = computed.flatMap((d) => d.lines).join('\n')
    expect(text).toContain('+  token: ***')
    expect(text).not.toContain('ghp_plantedtoken')
  })

  it('shows a removed object as all removals', () => {
    const removed = computed[2]!.lines.slice(1)
    expect(removed.length).toBeGreaterThan(0)
    expect(removed.every((l) => l.startsWith('-'))).toBe(true)
  })

  it('writes report.diff with file headers for every object', () => {
    const text = renderReportDiff(computed, 'base')
    expect(text).toContain('--- /dev/null\n+++ head/m: /v1/ConfigMap/app/new\n')
    expect(text).toContain('--- base/m: /v1/ConfigMap/app/a\n+++ head/m: /v1/ConfigMap/app/a\n')
    expect(text).toContain('--- base/m: /v1/ConfigMap/app/gone\n+++ /dev/null\n')
  })
})

const objectDiff = (name: string, lines: string[], extra: Partial<ObjectContentDiff> = {}) => ({
  manifest: 'm',
  key: key(name),
  type: 'modified' as const,
  relation: 'deployed' as const,
  lines,
  ...extra
})

describe('renderObjectDiff and renderContentIntro', () => {
  const options = { linesPerObject: 5, fullDiff: 'full diff: report.diff' }
  const piece = (d: ObjectContentDiff, open = false) =>
    renderObjectDiff(d, 'base', { ...options, summaryHtml: '<b>modified</b> x', open })

  it('puts an object in one <details>, open or collapsed, with a diff fence and blank lines around', () => {
    const d = objectDiff('a', ['@@ -1,1 +1,1 @@', '-x', '+y'])
    expect(piece(d)).toBe(
      '\n<details><summary><b>modified</b> x</summary>\n\n' +
        '```diff\n--- base\n+++ head\n@@ -1,1 +1,1 @@\n-x\n+y\n```\n\n</details>\n\n'
    )
    expect(piece(d, true)).toMatch(/^\n<details open><summary>/)
    expect(balanceOf(piece(d))).toEqual(wellFormed)
  })

  it('makes the fence longer than any backtick run in the content', () => {
    const md = piece(
      objectDiff('a', ['+  readme: |', '+    ```', '+    ````` </details> <details>'])
    )
    expect(md).toContain('``````diff\n')
    expect(balanceOf(md)).toEqual(wellFormed)
  })

  it('cuts an object after its line limit with "N more lines"', () => {
    const lines = Array.from({ length: 12 }, (_, i) => `+line ${i}`)
    const md = piece(objectDiff('a', lines))
    expect(md).toContain('+line 4\n```')
    expect(md).not.toContain('+line 5')
    expect(md).toContain('… 7 more lines (full diff: report.diff).')
  })

  it('warns on an object whose base differs from State and notes a not-applied one', () => {
    const differs = objectDiff('a', ['+x'], { relation: 'base-differs' })
    expect(piece(differs)).toContain('> ⚠️ the base render differs from what State records')
    expect(noDiffNote(differs)).toBeUndefined()
    expect(noDiffNote(objectDiff('b', [], { relation: 'not-applied' }))).toMatch(
      /^the same in base and head;/
    )
    expect(noDiffNote(objectDiff('c', [], { relation: 'live' }))).toBe('no content change')
  })

  it('says deployed → proposed only when some base is what State records', () => {
    const deployed = {
      source: 'base' as const,
      baseSha: 'abcdef0123',
      diffs: [objectDiff('a', ['+x'])]
    }
    expect(renderContentIntro(deployed, {})).toBe(
      'Compared with the render of the base commit `abcdef0`. Where State records the base ' +
        'render, each diff is exactly **deployed → proposed**. Secret values are shown as ' +
        'fingerprints only.\n\n'
    )
    const differs = {
      source: 'base' as const,
      diffs: [objectDiff('a', ['+x'], { relation: 'base-differs' })]
    }
    expect(renderContentIntro(differs, {})).not.toContain('deployed → proposed')
  })

  it('says why once when the base could not be rendered', () => {
    const content = {
      source: 'base' as const,
      diffs: [],
      notice: 'No content diff: the base commit could not be fetched'
    }
    expect(renderContentIntro(content, { timings: true })).toBe(
      'No content diff: the base commit could not be fetched\n\n'
    )
  })
})

describe('the comment with content diffs', () => {
  const many = Array.from({ length: 3000 }, (_, i) =>
    objectDiff(`cm-${String(i).padStart(4, '0')}`, [
      '@@ -1,3 +1,3 @@',
      ' data:',
      `-  value: "${i}"`,
      `+  value: "${i + 1}"`
    ])
  )
  const entries = many.map((d) => ({
    type: 'modified' as const,
    key: d.key,
    oldHash: 'a'.repeat(64),
    newHash: 'b'.repeat(64)
  }))
  const big = report([{ manifest: 'm', type: 'kustomize', entries }], {
    content: { source: 'base', diffs: many }
  })

  it('fits a 3,000-object change in one comment, well-formed, naming what was left out', () => {
    const { markdown } = renderComment(big)
    expect(markdown.length).toBeLessThanOrEqual(commentBudget)
    expect(balanceOf(markdown)).toEqual(wellFormed)
    expect(markdown).toContain('#### Changes by manifest')
    expect(markdown).toMatch(
      /The diffs of \d+ objects were left out to fit \(full diff: the job summary and `report\.diff`\)/
    )
    // One long manifest lists its first entries (diffs under the first of them), not only a count.
    expect(markdown).toContain(
      '<details open><summary><b>modified</b> <code>/v1/ConfigMap/app/cm-0000</code></summary>'
    )
    expect(markdown).toMatch(/- …and \d+ more entries \(the job summary has them\)/)
    expect(markdown).toContain('_(diff left out to fit)_')
  })

  it('shows every object in the job summary', () => {
    const { markdown } = renderDiffSummary(big, { reportPath: '/tmp/r/report.json' })
    const diffs = /<details( open)?><summary><b>modified<\/b> <code>\/v1\/ConfigMap/g
    expect(markdown.match(diffs)).toHaveLength(3000)
    expect(markdown).not.toContain('left out to fit')
    expect(balanceOf(markdown)).toEqual(wellFormed)
  })
})
