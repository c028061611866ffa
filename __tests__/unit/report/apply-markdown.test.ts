import { describe, expect, it } from '@jest/globals'
import { renderApplyMarkdown } from '../../../src/report/apply-markdown.js'
import { formatDuration } from '../../../src/report/markdown.js'
import { applyReportJson, applyReportText, countOutputs } from '../../../src/report/files.js'
import type { ApplyReport } from '../../../src/report/model.js'
import { balanceOf, wellFormed } from './well-formed.js'

const counts = (added: number, modified = 0, removed = 0, alwaysSync = 0, pruned = 0) => ({
  added,
  modified,
  removed,
  alwaysSync,
  pruned
})

const failed: ApplyReport = {
  config: 'tazuna.yaml',
  environment: '',
  sha: 'feedfacefeedfacefeedfacefeedfacefeedface',
  layers: [
    [{ manifest: 'namespaces', result: 'applied', counts: counts(2, 0, 3, 0, 1), durationMs: 850 }],
    [
      { manifest: 'app', result: 'applied', counts: counts(1, 2), durationMs: 12_345 },
      {
        manifest: 'db',
        result: 'failed',
        counts: counts(0),
        durationMs: 125_000,
        error: 'failed to apply resource apps/v1/StatefulSet/db/pg: ```forbidden```'
      }
    ]
  ],
  failure: { layer: 1, message: 'layer 2 apply failed: manifest "db": failed to apply resource' }
}

describe('renderApplyMarkdown', () => {
  it('writes one table per layer with result, counts and duration', () => {
    const markdown = renderApplyMarkdown(failed, { budget: 100_000 })
    expect(markdown).toContain(
      '**Failed in layer 2.** 2 of 3 manifests applied in 2 layers · commit `feedfac`.'
    )
    expect(markdown).toContain('#### Layer 1\n')
    expect(markdown).toContain('| `namespaces` | ✅ applied | 2 | 0 | 3 (1 pruned) | 0 | 850 ms |')
    expect(markdown).toContain('| `app` | ✅ applied | 1 | 2 | 0 | 0 | 12.3 s |')
    expect(markdown).toContain('| `db` | ❌ failed | 0 | 0 | 0 | 0 | 2 min 5 s |')
    expect(markdown).toContain(
      '````text\nfailed to apply resource apps/v1/StatefulSet/db/pg: ```forbidden```\n````'
    )
    expect(balanceOf(markdown)).toEqual(wellFormed)
  })

  it('shortens error texts, then drops the tables, to stay within the budget', () => {
    const long: ApplyReport = {
      ...failed,
      layers: failed.layers.map((layer) => layer.map((m) => ({ ...m, error: 'e'.repeat(3000) })))
    }
    const full = renderApplyMarkdown(long, { budget: 100_000 })
    const shortened = renderApplyMarkdown(long, { budget: 3000 })
    const headline = renderApplyMarkdown(long, { budget: 600 })
    expect(full.length).toBeGreaterThan(9000)
    expect(shortened.length).toBeLessThanOrEqual(3000)
    expect(shortened).toContain('#### Layer 2')
    expect(headline).not.toContain('#### Layer')
    expect(headline).toContain('#### Failure')
    for (const m of [full, shortened, headline]) expect(balanceOf(m)).toEqual(wellFormed)
  })
})

describe('apply report files and outputs', () => {
  it.each([
    [500, '500 ms'],
    [1500, '1.5 s'],
    [61_000, '1 min 1 s']
  ])('formats %i ms as %s', (ms, text) => expect(formatDuration(ms)).toBe(text))

  it('writes a text table per layer and the failure', () => {
    expect(applyReportText(failed)).toBe(
      [
        'Layer: 1',
        '  MANIFEST                                 RESULT     COUNTS                   DURATION',
        '  namespaces                               applied    +2 ~0 -3 =0 (1 pruned)   850 ms',
        '',
        'Layer: 2',
        '  MANIFEST                                 RESULT     COUNTS                   DURATION',
        '  app                                      applied    +1 ~2 -0 =0              12.3 s',
        '  db                                       failed     +0 ~0 -0 =0              2 min 5 s',
        '',
        'error: layer 2 apply failed: manifest "db": failed to apply resource',
        ''
      ].join('\n')
    )
    expect(JSON.parse(applyReportJson(failed))).toMatchObject({
      kind: 'apply',
      counts: { added: 3, modified: 2, removed: 3, alwaysSync: 0 }
    })
  })

  it('derives only counts and names as outputs', () => {
    expect(
      countOutputs([
        { manifest: 'a', counts: counts(1) },
        { manifest: 'b', counts: counts(0) },
        { manifest: 'c', counts: counts(0, 0, 0, 2) }
      ])
    ).toEqual({
      'has-changes': 'true',
      added: '1',
      modified: '0',
      removed: '0',
      'always-sync': '2',
      'changed-manifests': 'a,c'
    })
    expect(countOutputs([{ manifest: 'c', counts: counts(0, 0, 0, 2) }])['has-changes']).toBe(
      'false'
    )
  })
})
