// Running tools: real child processes from tiny scripts, no mocks (house style).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createExecRunner } from '../../../src/adapters/command-runner.js'
import { createSecretRegistry } from '../../../src/render/secrets.js'
import { MissingToolError, runTool, stderrTail } from '../../../src/render/tools.js'
import { ToolError } from '../../../src/errors.js'

let dir: string
const originalPath = process.env.PATH
const runner = createExecRunner()
const noRedact = (t: string): string => t

function script(name: string, body: string): string {
  const file = path.join(dir, name)
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
  return file
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-tools-test-'))
  script('echo-args', 'for a in "$@"; do printf "[%s]" "$a"; done')
  script('fail', 'echo "line 1" >&2; echo "token=$1 rejected" >&2; exit 3')
})
afterAll(() => {
  process.env.PATH = originalPath
  rmSync(dir, { recursive: true, force: true })
})

describe('runTool', () => {
  it('passes arguments as an array, unquoted and unsplit', async () => {
    const out = await runTool(
      { runner, tool: 'op', command: path.join(dir, 'echo-args'), redact: noRedact },
      ['a b', "it's", '$HOME', '']
    )
    expect(out).toBe("[a b][it's][$HOME][]")
  })

  it('names a missing tool and how to install it', async () => {
    const run = runTool(
      { runner, tool: 'op', command: path.join(dir, 'no-such-op'), redact: noRedact },
      []
    )
    await expect(run).rejects.toThrow(MissingToolError)
    await expect(run).rejects.toThrow(
      /op is required but was not found at .*no-such-op: install the 1Password CLI/
    )
  })

  it('reports command, exit code and stderr tail of a failing tool, with secrets redacted', async () => {
    const secrets = createSecretRegistry()
    secrets.registerSecret('hunter2')
    const run = runTool(
      { runner, tool: 'op', command: path.join(dir, 'fail'), redact: secrets.redact },
      ['hunter2'],
      { describe: 'manifest m' }
    )
    await expect(run).rejects.toThrow(ToolError)
    await expect(run).rejects.toThrow(
      /^manifest m: command failed \(exit code 3\): .*fail \*\*\*\nline 1\ntoken=\*\*\* rejected$/
    )
  })
})

describe('stderrTail', () => {
  it('keeps the last lines and marks the cut', () => {
    const text = Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n')
    expect(stderrTail(text, 3)).toBe('[...]\nl27\nl28\nl29')
  })

  it('keeps at most 4 KB of one huge line, its end, where the cause is', () => {
    const tail = stderrTail(`${'x'.repeat(300_000)} the cause`)
    expect(tail.length).toBe('[...]\n'.length + 4096)
    expect(tail.startsWith('[...]\nxxx')).toBe(true)
    expect(tail.endsWith('x the cause')).toBe(true)
  })
})
