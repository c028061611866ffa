// The API server's words that live mode's dry run adds to a finding (its refusal, its warnings)
// in the comment's risk list, report.json and a published report read back: escaped like the
// finding's message, since a warning's text is a CRD author's (deprecationWarning) and so
// the repository's or the cluster's, not ours.
import { describe, expect, it } from '@jest/globals'
import { diffReportJson } from '../../../src/report/files.js'
import { readPublishedReport } from '../../../src/report/published-report.js'
import { renderRisksSection } from '../../../src/report/risks-markdown.js'
import type { Risk } from '../../../src/risk/model.js'
import { entries, report } from './fixtures.js'

const key = 'web/example.com/v1/Widget/team-web/obj-00000'
const warned: Risk = {
  kind: 'deprecated-api',
  manifest: 'web',
  key,
  path: 'apiVersion',
  message: 'the CustomResourceDefinition marks example.com/v1 deprecated: "v1 goes"',
  serverWarnings: ['v1 goes <img src=x onerror=alert(1)>', 'second\nline']
}
const own: Risk = {
  kind: 'server-warning',
  manifest: 'web',
  key,
  path: '',
  message: 'spec.x: <b>soon</b> ignored'
}

describe('the risk list', () => {
  it("shows the warnings that confirm a finding after it, escaped, on the finding's one line", () => {
    expect(renderRisksSection([warned], 30).split('\n')[2]).toBe(
      '- **uses a deprecated API**: `web: example.com/v1/Widget/team-web/obj-00000` `apiVersion`: ' +
        'the CustomResourceDefinition marks example.com/v1 deprecated: &quot;v1 goes&quot; — ' +
        "the API server's dry run warns: v1 goes &lt;img src=x onerror=alert(1)&gt;; second line"
    )
  })

  it('lists a warning of its own under its label, counted in the headline', () => {
    const section = renderRisksSection([own], 30)
    expect(section.split('\n')[0]).toBe(
      "**⚠ 1 warning from the API server's dry run.** Review these first:"
    )
    expect(section).toContain(
      "- **warned of by the API server's dry run**: `web: example.com/v1/Widget/team-web/obj-00000`: spec.x: &lt;b&gt;soon&lt;/b&gt; ignored"
    )
  })
})

describe('report.json', () => {
  const json = () =>
    diffReportJson(
      report([{ manifest: 'web', type: 'kustomize', entries: entries('web', 'modified', 1) }], {
        risks: [warned, own]
      }),
      { pullRequest: 7 }
    )

  it('keeps the warnings beside the finding they confirm', () => {
    const doc = JSON.parse(json()) as { risks: unknown[] }
    expect(doc.risks).toEqual([
      { ...warned, accepted: false },
      { ...own, accepted: false }
    ])
  })

  it('is read back with the warnings made inert, and refused with more than 100 of them', () => {
    const back = readPublishedReport(json()).report.risks ?? []
    expect(back[0]?.serverWarnings).toEqual([
      'v1 goes <img src=x onerror=alert\\(1\\)>',
      'second\nline'
    ])
    const doc = JSON.parse(json()) as { risks: { serverWarnings?: string[] }[] }
    doc.risks[0]!.serverWarnings = Array<string>(101).fill('w')
    expect(() => readPublishedReport(JSON.stringify(doc))).toThrow(
      '"risks"[0].serverWarnings has more than 100 items'
    )
  })
})
