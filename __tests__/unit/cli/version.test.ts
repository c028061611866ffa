// `version` and `-v/--version`. The expected line's shape is Tazuna's versionTemplate in
// pepabo/tazuna cmd/version.go: `tazuna %s (commit %s, built %s, %s/%s)\n` with GOOS/GOARCH,
// and its defaults `none` / `unknown` for a build that was not stamped; we print our name.
import { describe, expect, it } from '@jest/globals'
import { parseBuildStamp, versionLine } from '../../../src/cli/version.js'
import { runCliInProcess as cli } from '../../support/cli.js'

describe('versionLine', () => {
  it.each([
    ['linux', 'x64', 'linux/amd64'],
    ['linux', 'arm64', 'linux/arm64'],
    ['darwin', 'arm64', 'darwin/arm64'],
    ['win32', 'x64', 'windows/amd64'],
    ['win32', 'ia32', 'windows/386']
  ])('names %s/%s as Go does: %s', (platform, arch, goPlatform) => {
    const line = versionLine({
      version: '1.2.3',
      commit: 'abcdef0',
      date: '2026-05-18T00:00:00Z',
      platform,
      arch
    })
    expect(line).toBe(
      `tazuna-action 1.2.3 (commit abcdef0, built 2026-05-18T00:00:00Z, ${goPlatform})\n`
    )
  })
})

describe('parseBuildStamp', () => {
  it.each([
    [
      'a stamp',
      '{"commit":"885664d","date":"2026-12-01T21:20:00Z"}\n',
      '885664d',
      '2026-12-01T21:20:00Z'
    ],
    ['no file (running src/)', undefined, 'none', 'unknown'],
    ['an unstamped build', '{"commit":"none","date":"unknown"}', 'none', 'unknown'],
    ['malformed JSON', '{', 'none', 'unknown'],
    ['empty fields', '{"commit":"","date":""}', 'none', 'unknown']
  ])('reads %s', (_, text, commit, date) => {
    expect(parseBuildStamp(text)).toEqual({ commit, date })
  })
})

describe('the version commands', () => {
  // Run from src/, where there is no dist/build-info.json: Tazuna's defaults.
  const expected = new RegExp(
    String.raw`^tazuna-action \d+\.\d+\.\d+ \(commit none, built unknown, [a-z0-9]+/[a-z0-9]+\)\n$`
  )

  it.each(['version', '--version', '-v', '-f x.yaml --version'])(
    '`%s` prints the version line on stdout and exits 0',
    async (line) => {
      const run = await cli(line.split(' '))
      expect(run).toEqual({ code: 0, stdout: expect.stringMatching(expected), stderr: '' })
    }
  )

  it('accepts --version only without a command, as cobra does on the root command', async () => {
    expect(await cli(['check', '--version'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unknown flag: --version\n'
    })
  })

  it('refuses arguments to `version`', async () => {
    const run = await cli(['version', 'extra'])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe('error: unknown command "extra" for "tazuna-action version"\n')
  })
})
