// Windows runners are refused at the start with one line (README.md#supported-runners): the
// pure rule over Node's platform names, and the action's run() on a process that reports win32,
// which fails the step with that line before it reads an input or sends a request.
import { afterEach, describe, expect, it } from '@jest/globals'
import { EOL } from 'node:os'
import { unsupportedRunnerMessage } from '../../../src/action/supported-runner.js'
import { run } from '../../../src/main.js'

describe('unsupportedRunnerMessage', () => {
  it.each(['linux', 'darwin'])('lets a %s runner run', (platform) => {
    expect(unsupportedRunnerMessage(platform)).toBeUndefined()
  })

  it('refuses Windows in one line naming the runners to use', () => {
    const message = unsupportedRunnerMessage('win32') ?? ''
    expect(message).not.toContain('\n')
    expect(message).toMatch(/^tazuna-action does not run on Windows runners: /)
    expect(message).toContain('runs-on: ubuntu-latest, ubuntu-24.04-arm or a macOS runner')
  })
})

describe('run() on a Windows runner', () => {
  const platform = Object.getOwnPropertyDescriptor(process, 'platform')
  const write = process.stdout.write.bind(process.stdout)
  afterEach(() => {
    if (platform) Object.defineProperty(process, 'platform', platform)
    process.stdout.write = write
    process.exitCode = undefined
  })

  it('fails the step with the one line and does nothing else', async () => {
    // An input that would fail the run by itself: reading it would print another error.
    const env = { INPUT_MODE: 'not-a-mode', INPUT_CONFIG: '/nonexistent/tazuna.yaml' }
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
    Object.assign(process.env, env)
    const lines: string[] = []
    process.stdout.write = (chunk: string | Uint8Array) => {
      lines.push(String(chunk))
      return true
    }
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' })
    try {
      await run()
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    }
    const message = unsupportedRunnerMessage('win32') ?? ''
    expect({ exitCode: process.exitCode, lines }).toEqual({
      exitCode: 1,
      lines: [`::error::${message}${EOL}`]
    })
  })
})
