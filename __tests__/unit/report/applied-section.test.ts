import { describe, expect, it } from '@jest/globals'
import {
  renderAppliedSection,
  withAppliedSection,
  type AppliedNote
} from '../../../src/report/applied-section.js'
import { renderApplyMarkdown } from '../../../src/report/apply-markdown.js'
import type { ApplyReport } from '../../../src/report/model.js'
import { balanceOf, wellFormed } from './well-formed.js'

const counts = { added: 1, modified: 0, removed: 0, alwaysSync: 0, pruned: 0 }
const zero = { ...counts, added: 0 }

// A failure in the second layer, as the layered apply reports it: upstream's message counts
// layers from 0.
const failedInLayer2: ApplyReport = {
  config: 'tazuna.yaml',
  environment: '',
  sha: 'feedfacefeedfacefeedfacefeedfacefeedface',
  layers: [
    [{ manifest: 'namespace', result: 'applied', counts, durationMs: 10 }],
    [
      { manifest: 'app', result: 'failed', counts: zero, durationMs: 5, error: 'HTTP 422 Invalid' },
      { manifest: 'db', result: 'applied', counts, durationMs: 5 }
    ],
    [{ manifest: 'web', result: 'not-run', counts: zero, durationMs: 0 }]
  ],
  failure: { layer: 1, message: 'layer 1 apply failed: manifest "app": HTTP 422 Invalid' }
}

const note: AppliedNote = {
  sha: failedInLayer2.sha,
  report: failedInLayer2,
  verdict: { headline: 'Applies the Diff reviewed on #41.', details: [], reviewed: true }
}

const marker = '<!-- tazuna-action:{"tool":"tazuna-action"} -->'
const sticky = `${marker}\n### Tazuna Diff for \`tazuna.yaml\`\n\nthe Diff\n<!-- tazuna-action:reviewed-entries {} -->\n`

const visibleLines = (body: string): string[] =>
  body.split('\n').filter((l) => l.trim() !== '' && !/^<!--.*-->$/.test(l))

describe('the "Applied" section', () => {
  it('says at a glance which layer and manifest failed, and whether the Diff was reviewed', () => {
    expect(visibleLines(renderAppliedSection(note, 65_000))[0]).toBe(
      '### ❌ Applied: failed in layer 2 (`app`), reviewed Diff'
    )
  })

  it('goes first in the sticky comment, after the marker line, with the Diff kept after it', () => {
    const body = withAppliedSection(sticky, note)!
    expect(body.split('\n')[0]).toBe(marker)
    expect(visibleLines(body)[0]).toBe('### ❌ Applied: failed in layer 2 (`app`), reviewed Diff')
    expect(body.endsWith('the Diff\n<!-- tazuna-action:reviewed-entries {} -->')).toBe(true)
    expect(balanceOf(body)).toEqual(wellFormed)
  })

  it('replaces an earlier section, one before the Diff or one appended after it', () => {
    const applied: AppliedNote = {
      sha: note.sha,
      report: { ...failedInLayer2, failure: undefined }
    }
    const once = withAppliedSection(sticky, note)!
    const appendedByOlderVersions = `${sticky.trimEnd()}\n\n${renderAppliedSection(note, 10_000)}`
    for (const earlier of [once, appendedByOlderVersions]) {
      const body = withAppliedSection(earlier, applied)!
      expect(visibleLines(body)[0]).toBe('### ✅ Applied')
      expect(body).not.toContain('Applied: failed')
      expect(body.match(/### Tazuna Diff/g)).toHaveLength(1)
    }
  })
})

describe('the failure in the apply summary', () => {
  it('names the layer counted from 1, as the tables do, without upstream 0-based prefix', () => {
    const markdown = renderApplyMarkdown(failedInLayer2, { budget: 100_000 })
    expect(markdown).toContain(
      '#### Failure in layer 2\n\n```text\nmanifest "app": HTTP 422 Invalid\n```\n'
    )
    expect(markdown).not.toContain('layer 1 apply failed')
  })
})

// docs/reliability.md#cancellation: a run cancelled in layer 2 of 3, as the layered apply
// reports it (src/apply/layered-apply.ts).
const cancelledInLayer2: ApplyReport = {
  ...failedInLayer2,
  layers: [
    [{ manifest: 'namespace', result: 'applied', counts, durationMs: 10 }],
    [
      { manifest: 'db', result: 'applied', counts, durationMs: 5 },
      {
        manifest: 'app',
        result: 'cancelled',
        counts: zero,
        durationMs: 5,
        error:
          'manifest "app": apply v1 ConfigMap n/a: not sent, because the run was cancelled (SIGINT)'
      }
    ],
    [{ manifest: 'web', result: 'not-run', counts: zero, durationMs: 0 }]
  ],
  failure: {
    layer: 1,
    message: 'the run was cancelled (SIGINT) in layer 2 of 3\nmanifest "app": …'
  },
  cancelled: { layer: 1, reason: 'SIGINT' }
}

describe('the "Applied" section of a cancelled run', () => {
  const section = renderAppliedSection({ ...note, report: cancelledInLayer2 }, 65_000)

  it('says at a glance where it was cancelled, how much was not applied, and that a re-run converges', () => {
    expect(visibleLines(section)[0]).toBe(
      '### ⚠️ Cancelled (SIGINT) in layer 2 of 3: 2 of 4 manifests not applied, a re-run converges, reviewed Diff'
    )
  })

  it('lists what was applied and what was not, and which State was saved', () => {
    expect(section).toContain('| `db` | ✅ applied |')
    expect(section).toContain('| `app` | ⚠️ cancelled, State not saved |')
    expect(section).toContain('| `web` | ⏸️ not run |')
    expect(section).toContain('**Cancelled (SIGINT) in layer 2 of 3.** 2 of 4 manifests applied')
    expect(section).toContain('A re-run of the job applies what is missing.')
    expect(section).toContain('#### Cancelled (SIGINT) in layer 2 of 3\n')
    expect(section).toContain('Not applied: `app`, `web`.')
    expect(section).not.toContain('Later layers were not applied')
    expect(balanceOf(section)).toEqual(wellFormed)
  })

  it('keeps a hostile signal reason inert', () => {
    const hostile = renderAppliedSection(
      {
        ...note,
        report: { ...cancelledInLayer2, cancelled: { layer: 1, reason: '`x` <img src=y> **z**' } }
      },
      65_000
    )
    expect(balanceOf(hostile)).toEqual(wellFormed)
    expect(hostile).not.toContain('<img')
  })
})
