// The terminal text of `plan` and `state diff --content` (src/cli/diff-text.ts), and how
// `--content` parses. Expected texts are Tazuna's plan layout (pkg/runner/plan.go
// writePlanManifestHeader / writePlanChange: `Manifest: %s`, `  + %s (to be created)`,
// `  ~ %s`, diff lines with four spaces, empty diff lines dropped, a blank line per manifest,
// `No changes detected.`), written out by hand.
import { describe, expect, it } from '@jest/globals'
import { parseCommandLine } from '../../../src/cli.js'
import { runCliInProcess } from '../../support/cli.js'
import { paletteFor, renderContentText, renderPlanText } from '../../../src/cli/diff-text.js'
import type { ContentReport } from '../../../src/report/content-diff.js'

const plain = paletteFor({ isTTY: false, env: {} })
const ESC = '\u001b'

describe('plan text', () => {
  it("is Tazuna's layout: groups, creates, updates with indented diff lines", () => {
    const text = renderPlanText(
      [
        {
          manifest: 'app',
          changes: [
            { kind: 'create', resource: 'ConfigMap/ns/new', lines: [] },
            {
              kind: 'update',
              resource: 'ConfigMap/ns/settings',
              lines: ['@@ -1,2 +1,2 @@', ' data:', '-  level: info', '+  level: debug', '']
            }
          ]
        },
        { manifest: 'infra', changes: [{ kind: 'create', resource: 'Namespace/ns', lines: [] }] }
      ],
      plain
    )
    expect(text).toBe(
      'Manifest: app\n' +
        '  + ConfigMap/ns/new (to be created)\n' +
        '  ~ ConfigMap/ns/settings\n' +
        '    @@ -1,2 +1,2 @@\n' +
        '     data:\n' +
        '    -  level: info\n' +
        '    +  level: debug\n' +
        '\n' +
        'Manifest: infra\n' +
        '  + Namespace/ns (to be created)\n' +
        '\n'
    )
  })

  it('lists the risks first, one # line each', () => {
    const text = renderPlanText(
      [
        {
          manifest: 'db',
          changes: [{ kind: 'update', resource: 'StatefulSet/ns/pg', lines: [] }],
          risks: [
            {
              kind: 'will-fail',
              manifest: 'db',
              key: 'db/apps/v1/StatefulSet/ns/pg',
              path: 'spec.volumeClaimTemplates',
              message: 'cannot be updated',
              server: 'Forbidden'
            }
          ]
        }
      ],
      plain
    )
    expect(text).toBe(
      '# Risks: 1 change will fail on apply\n' +
        '#   will-fail db: apps/v1/StatefulSet/ns/pg spec.volumeClaimTemplates: cannot be updated (the API server says: Forbidden)\n' +
        '\n' +
        'Manifest: db\n' +
        '  ~ StatefulSet/ns/pg\n' +
        '\n'
    )
  })

  it('says No changes detected. when no manifest has a change', () => {
    expect(renderPlanText([], plain)).toBe('No changes detected.\n')
  })

  it('colours only on a terminal without NO_COLOR (an empty NO_COLOR does not count)', () => {
    const plans = [
      {
        manifest: 'm',
        changes: [{ kind: 'create' as const, resource: 'ConfigMap/n/a', lines: [] }]
      }
    ]
    expect(renderPlanText(plans, paletteFor({ isTTY: true, env: {} }))).toBe(
      `Manifest: m\n${ESC}[32m  + ConfigMap/n/a (to be created)${ESC}[0m\n\n`
    )
    expect(renderPlanText(plans, paletteFor({ isTTY: true, env: { NO_COLOR: '' } }))).toContain(ESC)
    expect(
      renderPlanText(plans, paletteFor({ isTTY: true, env: { NO_COLOR: '1' } }))
    ).not.toContain(ESC)
    expect(renderPlanText(plans, paletteFor({ isTTY: false, env: {} }))).not.toContain(ESC)
  })
})

describe('content diff text', () => {
  const content: ContentReport = {
    source: 'base',
    diffs: [
      {
        manifest: 'app',
        key: 'app//v1/ConfigMap/ns/settings',
        type: 'modified',
        relation: 'base-differs',
        lines: ['@@ -1 +1 @@', '-a: 1', '+a: 2']
      },
      {
        manifest: 'app',
        key: 'app//v1/ConfigMap/ns/same',
        type: 'modified',
        relation: 'not-applied',
        lines: []
      }
    ]
  }

  it('heads the diffs, notes a base that differs from State, and one line for not applied', () => {
    expect(renderContentText(content, 'base abc (HEAD)', plain)).toBe(
      '# Content diffs: base abc (HEAD) -> working tree. Secret values are shown as fingerprints only.\n' +
        '# app: /v1/ConfigMap/ns/settings: the base render differs from what State records (drift, a manual apply or a merge not applied yet): this diff is from the base branch, not from what is deployed\n' +
        '--- base/app: /v1/ConfigMap/ns/settings\n' +
        '+++ head/app: /v1/ConfigMap/ns/settings\n' +
        '@@ -1 +1 @@\n' +
        '-a: 1\n' +
        '+a: 2\n' +
        '# app: /v1/ConfigMap/ns/same: the same in base and head; State differs because the base branch is not applied yet\n'
    )
  })

  it('is empty without object diffs', () => {
    expect(renderContentText({ source: 'live', diffs: [] }, 'live', plain)).toBe('')
  })
})

describe('--content parsing', () => {
  it('reads a bare --content as base, and --content=live as live', () => {
    expect(parseCommandLine(['state', 'diff', '--content']).options.content).toBe('base')
    expect(parseCommandLine(['state', 'diff', '--content=live']).options.content).toBe('live')
    const spaced = parseCommandLine(['state', 'diff', '--content', 'live', '--base', 'main'])
    expect(spaced.options).toEqual({ content: 'base', base: 'main' })
    expect(spaced.args).toEqual(['live'])
  })

  it('refuses --base without --content, before reading anything', async () => {
    const result = await runCliInProcess([
      'state',
      'diff',
      '--base',
      'main',
      '-f',
      '/nonexistent/tazuna.yaml'
    ])
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --base needs --content (or --content=base)\n'
    })
  })

  it('does not know --content on other commands', () => {
    expect(() => parseCommandLine(['state', 'list', '--content'])).toThrow(
      'unknown flag: --content'
    )
  })
})
