// `version`, `init` and `chart list` beside the real Tazuna CLI (TAZUNA_BIN): the same version
// line but for the program's name, version, commit and date (the platform is this machine's in
// both); `init` files byte-identical once each pins its own running version; `chart list`, with
// and without `--check-latest`, byte-identical on stdout for a repository whose helmfiles name
// HTTP chart repositories and an OCI registry on loopback holding newer versions
// (support/chart-list-project.ts). Skipped, with the
// reason in the suite title, when TAZUNA_BIN is not set. Without it, __tests__/unit/cli/init.test.ts
// and version.test.ts hold the same outputs to upstream's source (cmd/init.go, cmd/version.go).
// `completion` is not compared: cobra's scripts ask the program itself (its hidden `__complete`
// command), ours are generated from our command table (src/cli/completion.ts). The command
// groups (`state`, `chart`) and the program without a command: the same exit code and streams,
// Tazuna's commands among ours (the help texts are each tool's own).
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runCliInProcess, runCliProcess } from '../../support/cli.js'
import { startChartListProject, type ChartListProject } from '../../support/chart-list-project.js'
import { testTools } from '../render/harness.js'
import { describeWithTazuna, tazunaBin, tazunaSkipReason } from './tools.js'

if (tazunaSkipReason !== '') process.stderr.write(`interop: version and init${tazunaSkipReason}\n`)

const versionLine = /^(\S+) (\S+) \(commit (\S+), built (\S+), ([a-z0-9]+\/[a-z0-9]+)\)\n$/

describeWithTazuna(`version and init beside the Tazuna CLI${tazunaSkipReason}`, () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tazuna-interop-cli-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const tazuna = (args: string[]) =>
    runCliProcess(tazunaBin ?? 'tazuna', args, { cwd: dir, env: { ...process.env } })

  it.each([['version'], ['--version'], ['-v']])(
    '`%s` prints the line Tazuna prints, with our name, version and stamp',
    async (arg) => {
      const theirs = await tazuna([arg])
      const ours = await runCliInProcess([arg])
      const [, theirName, , , , theirPlatform] = versionLine.exec(theirs.stdout) ?? []
      const [, ourName, , , , ourPlatform] = versionLine.exec(ours.stdout) ?? []
      expect({ theirName, ourName, ourPlatform }).toEqual({
        theirName: 'tazuna',
        ourName: 'tazuna-action',
        ourPlatform: theirPlatform
      })
    }
  )

  it('`init` writes the file Tazuna writes, apart from the version each pins', async () => {
    const theirFile = path.join(dir, 'theirs.yaml')
    const ourFile = path.join(dir, 'ours.yaml')
    expect((await tazuna(['init', '-f', theirFile])).stdout).toBe(`created: ${theirFile}\n`)
    expect((await runCliInProcess(['init', '-f', ourFile])).stdout).toBe(`created: ${ourFile}\n`)
    const pinned = /minimumSupportedTazunaVersion: "[^"]*"/
    const [theirs, ours] = [theirFile, ourFile].map((file) =>
      readFileSync(file, 'utf8').replace(pinned, 'minimumSupportedTazunaVersion: "*"')
    )
    expect(ours).toBe(theirs)
  })

  it('`init` refuses an existing file without --force, as Tazuna does', async () => {
    const file = path.join(dir, 'existing.yaml')
    await runCliInProcess(['init', '-f', file])
    const theirs = await tazuna(['init', '-f', file])
    const ours = await runCliInProcess(['init', '-f', file])
    expect({ theirs: theirs.code, ours: ours.code }).toEqual({ theirs: 1, ours: 1 })
    expect(theirs.stderr).toContain(`${file} already exists; pass --force to overwrite`)
    expect(ours.stderr).toBe(`error: ${file} already exists; pass --force to overwrite\n`)
  })
})

describeWithTazuna(`chart list beside the Tazuna CLI${tazunaSkipReason}`, () => {
  let project: ChartListProject
  let home: string
  beforeAll(async () => {
    project = await startChartListProject(testTools().helm!)
    home = mkdtempSync(path.join(tmpdir(), 'tazuna-interop-helm-home-'))
  }, 300_000)
  afterAll(async () => {
    await project?.stop()
    if (home) rmSync(home, { recursive: true, force: true })
  })

  // Tazuna's Helm writes the repository index to its cache: a private HOME keeps it there.
  const tazuna = (args: string[]) =>
    runCliProcess(tazunaBin ?? 'tazuna', args, {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, HOME: home, ...project.env }
    })

  it.each([[[]], [['--check-latest']]])(
    '`chart list %j` prints the table Tazuna prints, byte for byte',
    async (extra) => {
      const args = ['chart', 'list', ...extra, '-f', path.relative(process.cwd(), project.config)]
      const [theirs, ours] = [await tazuna(args), await runCliInProcess(args, project.env)]
      expect({ code: ours.code, stdout: ours.stdout }).toEqual({
        code: theirs.code,
        stdout: theirs.stdout
      })
      const warned = (stderr: string) =>
        stderr
          .split('\n')
          .filter((l) => l.startsWith('warn: '))
          .map((l) => l.split(': ')[1])
      expect(warned(ours.stderr)).toEqual(warned(theirs.stderr))
    }
  )
})

describeWithTazuna(`command groups beside the Tazuna CLI${tazunaSkipReason}`, () => {
  const tazuna = (args: string[]) =>
    runCliProcess(tazunaBin ?? 'tazuna', args, { cwd: tmpdir(), env: { PATH: process.env.PATH } })
  /** The lines of a help text under `heading`, up to the next empty line, by first word. */
  const listed = (help: string, heading: string): string[] => {
    const lines = help.split('\n')
    const start = lines.indexOf(heading)
    if (start < 0) return []
    const end = lines.indexOf('', start)
    return lines.slice(start + 1, end < 0 ? undefined : end).map((l) => l.trim().split(' ')[0]!)
  }

  // The help texts differ (cobra's layout and Tazuna's command set, ours): compared are the exit
  // code, the streams, and that every command Tazuna lists is one of ours (docs/compatibility.md#command-groups).
  it.each([[['state']], [['chart']], [['state', '--help']], [['-f', 'x.yaml', 'chart']], [[]]])(
    '`%j` prints its help on stdout and exits 0 as Tazuna does, with Tazuna’s commands',
    async (argv) => {
      const [theirs, ours] = [await tazuna(argv), await runCliInProcess(argv)]
      expect({ code: ours.code, stderr: ours.stderr }).toEqual({ code: 0, stderr: '' })
      expect({ code: theirs.code, stderr: theirs.stderr }).toEqual({ code: 0, stderr: '' })
      const theirCommands = listed(theirs.stdout, 'Available Commands:').filter((c) => c !== 'help')
      // Ours names a group's commands by their last word, the program's by their first.
      const ourCommands = listed(ours.stdout, 'Commands:')
      expect(theirCommands.length).toBeGreaterThan(0)
      expect(theirCommands.filter((c) => !ourCommands.includes(c))).toEqual([])
    }
  )

  it('an unknown command of a group: Tazuna prints the help and exits 0, ours refuses it', async () => {
    const theirs = await tazuna(['state', 'dif'])
    const ours = await runCliInProcess(['state', 'dif'])
    expect({
      code: theirs.code,
      listsDiff: listed(theirs.stdout, 'Available Commands:').includes('diff')
    }).toEqual({ code: 0, listsDiff: true })
    expect(ours).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unknown command "dif" for "tazuna-action state"\n'
    })
  })
})
