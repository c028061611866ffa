import { beforeAll, describe, expect, it } from '@jest/globals'
import path from 'node:path'
import { parseCommandLine } from '../../../src/cli.js'
import { runCliInProcess as cli } from '../../support/cli.js'
import {
  describeWithGo,
  goTemplateEngineFiles,
  goTimeout,
  needsGo
} from '../go/template/go-oracle.js'

const fixtures = path.join('__tests__', 'fixtures')

describe('command line parsing', () => {
  it("applies Tazuna's defaults", () => {
    expect(parseCommandLine(['check']).flags).toEqual({
      filePath: 'tazuna.yaml',
      environment: '',
      tags: [],
      logLevel: 'info',
      allowPaths: [],
      renderLimits: {
        timeoutMs: 300_000,
        maxOutputBytes: 268_435_456,
        maxMemoryBytes: 1_073_741_824
      }
    })
  })

  it('reads --render-timeout, --max-render-bytes and --max-render-memory (docs/reliability.md#render-limits)', () => {
    const parsed = parseCommandLine([
      'build',
      '--render-timeout',
      '90s',
      '--max-render-bytes=1Mi',
      '--max-render-memory',
      '512Mi'
    ])
    expect(parsed.flags.renderLimits).toEqual({
      timeoutMs: 90_000,
      maxOutputBytes: 1_048_576,
      maxMemoryBytes: 536_870_912
    })
  })

  it('reads --offline and --no-cache on apply, build, destroy and plan only', () => {
    for (const command of ['apply', 'build', 'destroy', 'plan']) {
      expect(parseCommandLine([command, '--offline']).flags.orasPull).toEqual({
        offline: true,
        noCache: false
      })
      expect(parseCommandLine([command, '--no-cache']).flags.orasPull).toEqual({
        offline: false,
        noCache: true
      })
    }
    expect(parseCommandLine(['build']).flags.orasPull).toBeUndefined()
    expect(() => parseCommandLine(['state', 'diff', '--offline'])).toThrow(
      'unknown flag: --offline'
    )
  })

  it('refuses --offline with --no-cache in Tazuna words', () => {
    expect(() => parseCommandLine(['build', '--offline', '--no-cache'])).toThrow(
      '--no-cache and --offline cannot be specified together'
    )
  })

  it('collects --allow-path, before or after the command', () => {
    const parsed = parseCommandLine(['--allow-path', '/a', 'build', '--allow-path=../b'])
    expect(parsed.flags.allowPaths).toEqual(['/a', '../b'])
  })

  it('accepts global flags before and after the command, long and short', () => {
    const parsed = parseCommandLine([
      '-f',
      'a/tazuna.yaml',
      'check',
      '--environment=prod',
      '-l',
      'debug'
    ])
    expect([parsed.command?.name, parsed.flags]).toEqual([
      'check',
      {
        filePath: 'a/tazuna.yaml',
        environment: 'prod',
        tags: [],
        logLevel: 'debug',
        allowPaths: [],
        renderLimits: {
          timeoutMs: 300_000,
          maxOutputBytes: 268_435_456,
          maxMemoryBytes: 1_073_741_824
        }
      }
    ])
  })

  it('takes tags comma-separated or repeated', () => {
    expect(parseCommandLine(['check', '-t', 'a,b', '--tags', 'c', '-t=d']).flags.tags).toEqual([
      'a',
      'b',
      'c',
      'd'
    ])
  })
})

describe('tazuna-action check', () => {
  it('prints every problem with file and line to stderr and exits 1, without a stack trace', async () => {
    const file = path.join(fixtures, 'config-depends-on', 'tazuna.yaml')
    const result = await cli(['check', '-f', file])
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        `error: check failed for tazuna.yaml at ${path.resolve(file)}`,
        `${file}:3: manifest "a" depends on itself`,
        `${file}:7: manifest "b" dependsOn references unknown manifest "ghost"`,
        ''
      ].join('\n')
    })
  })

  it('rejects an unknown command', async () => {
    expect(await cli(['chekc'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unknown command "chekc"\n'
    })
  })

  it('rejects an unknown flag', async () => {
    expect(await cli(['check', '--fix'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unknown flag: --fix\n'
    })
  })

  it('rejects a render limit that is not a duration or a size, naming the flag', async () => {
    expect(await cli(['build', '--render-timeout', '0'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: flag --render-timeout must be longer than 0 s\n'
    })
    const result = await cli(['build', '--max-render-bytes', '1MB'])
    expect([result.code, result.stderr]).toEqual([
      1,
      'error: flag --max-render-bytes must be a size such as 268435456, 256Mi or 1Gi, got "1MB"\n'
    ])
  })

  it('rejects a flag without its value', async () => {
    const result = await cli(['check', '-f'])
    expect([result.code, result.stderr]).toEqual([
      1,
      'error: flag needs an argument: -f, --file-path <value>\n'
    ])
  })

  it.each([[['state']], [['chart']], [['state', '--help']], [['-f', 'x.yaml', 'chart', '-h']]])(
    'prints the help of a command group for %j and exits 0, as Tazuna does (docs/compatibility.md#command-groups)',
    async (argv) => {
      const result = await cli(argv)
      const group = argv.find((a) => a === 'state' || a === 'chart') ?? ''
      expect([result.code, result.stderr]).toEqual([0, ''])
      expect(result.stdout).toContain(`Usage: tazuna-action ${group} <command> [flags]\n`)
    }
  )

  it('lists the commands of a group with their summaries', async () => {
    const { stdout } = await cli(['state'])
    const listed = stdout
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim().split(' ')[0])
    expect(listed).toEqual(['diff', 'list', 'export', 'drift'])
    expect((await cli(['chart'])).stdout).toMatch(/\n {2}list {2}\S/)
  })

  it('refuses an unknown command of a group, naming the group', async () => {
    expect(await cli(['state', 'dif'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unknown command "dif" for "tazuna-action state"\n'
    })
  })

  it('refuses a flag a group does not take', async () => {
    expect(await cli(['chart', '--version'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unknown flag: --version\n'
    })
  })

  it('prints usage without a command and exits 0, as Tazuna does', async () => {
    const result = await cli([])
    expect([result.code, result.stdout.split('\n')[0]]).toEqual([
      0,
      'Usage: tazuna-action <command> [flags]'
    ])
  })

  it('prints usage with --help and exits 0', async () => {
    const result = await cli(['--help'])
    expect([result.code, result.stdout.split('\n')[0]]).toEqual([
      0,
      'Usage: tazuna-action <command> [flags]'
    ])
  })
})

describeWithGo(`tazuna-action check with templates${needsGo}`, () => {
  let wasm: string
  beforeAll(() => {
    wasm = goTemplateEngineFiles().wasm
  }, goTimeout)

  it('prints ok and exits 0 for a valid configuration', async () => {
    const file = path.join(fixtures, 'config-valid', 'tazuna.yaml')
    const result = await cli(['check', '-f', file, '-e', 'prod'], { TAZUNA_GOTEMPLATE_WASM: wasm })
    expect(result).toEqual({ code: 0, stdout: 'ok\n', stderr: '' })
  })

  it(
    'finds the engine in the build cache when run from source without an override',
    async () => {
      const file = path.join(fixtures, 'config-valid', 'tazuna.yaml')
      const result = await cli(['-e', 'stg', 'check', '--file-path', file], {
        HOME: process.env.HOME,
        PATH: process.env.PATH
      })
      expect(result).toEqual({ code: 0, stdout: 'ok\n', stderr: '' })
    },
    goTimeout
  )

  it('reports a missing engine file named by TAZUNA_GOTEMPLATE_WASM', async () => {
    const file = path.join(fixtures, 'config-valid', 'tazuna.yaml')
    // WebAssembly on purpose: on Linux the native Helm program renders templates instead
    // (docs/renderers.md#templates-in-the-native-helm-program).
    const result = await cli(['check', '-f', file, '-e', 'prod'], {
      TAZUNA_GOTEMPLATE_WASM: '/nonexistent/gotemplate.wasm.br',
      TAZUNA_RENDER_NATIVE: 'off'
    })
    expect([result.code, result.stderr]).toEqual([
      1,
      "error: cannot read the Go template engine (/nonexistent/gotemplate.wasm.br): ENOENT: no such file or directory, open '/nonexistent/gotemplate.wasm.br'\n"
    ])
  })
})
