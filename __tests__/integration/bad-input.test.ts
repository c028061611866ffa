// The bad-input corpus (docs/reliability.md#hostile-input, cases in support/bad-input-corpus.ts)
// through `check` and `build` in-process: every case ends in exit code 1 with one `error:`
// message that names the file (and line, where the input has one), says what is wrong, and
// carries no stack trace or JavaScript internals. No case needs a cluster; the build cases run
// the kustomize renderer. Peak memory of the heavy cases: bench/bad-input-rss.ts.
import { mkdirSync, mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { badInputCases } from '../support/bad-input-corpus.js'
import { runCliInProcess } from '../support/cli.js'

const cases = badInputCases()

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

describe('the bad-input corpus', () => {
  it('has at least 60 cases with unique ids', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60)
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length)
  })

  it.each(cases.map((c) => [c.id, c] as const))('%s', async (_, c) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-bad-input-'))
    const [repo, outside] = [path.join(dir, 'repo'), path.join(dir, 'outside')]
    mkdirSync(path.join(repo, '.git'), { recursive: true })
    mkdirSync(outside)
    c.write(repo, outside)
    const result = await runCliInProcess([c.command, '-f', path.join(repo, 'tazuna.yaml')], {
      KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
      // The Go template engine is built (once, cached) by a script that needs these.
      HOME: process.env.HOME,
      PATH: process.env.PATH
    })
    const where = c.line === undefined ? escape(c.file) : `${escape(c.file)}:${c.line}:`
    expect({ code: result.code, stdout: result.stdout.slice(0, 200) }).toEqual({
      code: 1,
      stdout: ''
    })
    expect(result.stderr).toMatch(/^error: /)
    expect(result.stderr).toMatch(new RegExp(where))
    expect(result.stderr).toMatch(c.says)
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/) // no stack frames
    expect(result.stderr).not.toMatch(
      /TypeError|ReferenceError|RangeError|Maximum call stack|is not a function|Cannot read propert|undefined is not|\[object Object\]/
    )
    expect(result.stderr.length).toBeLessThan(16_384)
  })
})
