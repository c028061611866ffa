/**
 * The local command line over the same engine as the action, with Tazuna's global flags
 * (spec §1): `-f/--file-path`, `-e/--environment`, `-t/--tags`, `-l/--log-level`. Results go
 * to stdout; errors go to stderr as `error: ...` with exit code 1 (never a stack trace).
 *
 * Commands are entries of `commands` below: a name (words, e.g. `state diff`), extra flags,
 * and `run`. To add one, write a module exporting a CliCommand (import the type from here)
 * and list it in `commands`.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { parseArgs, promisify, type ParseArgsOptionsConfig } from 'node:util'
import packageJson from '../package.json' with { type: 'json' }
import { applyCommand } from './cli/apply-command.js'
import { buildCommand } from './cli/build-command.js'
import { stateDiffCommand, stateListCommand } from './cli/state-commands.js'
import { checkConfig, checkFailedHeadline } from './config/check.js'
import { formatProblem } from './errors.js'
import {
  findGoTemplateFiles,
  goTemplateFilesFor,
  goTemplateFilesIn
} from './template/engine-files.js'
import type { TemplateEngine } from './template/engine.js'
import { createGoTemplateEngine, type GoTemplateFiles } from './template/wasm-engine.js'

/** Tazuna's global flags, parsed. */
export interface GlobalFlags {
  filePath: string
  environment: string
  /** From `-t a,b -t c`: ["a", "b", "c"]. */
  tags: string[]
  logLevel: string
}

/** What a command gets: the flags, its own options, output streams and the engine. */
export interface CommandContext {
  flags: GlobalFlags
  /** Values of the command's own `options`. */
  options: Record<string, string | boolean | (string | boolean)[] | undefined>
  /** Arguments after the command words. */
  args: string[]
  io: CliIo
  templates: TemplateEngine
  /** This program's version (the minimum-version gate compares against it). */
  version: string
}

/** One command of the table. */
export interface CliCommand {
  /** The command words, e.g. `check` or `state diff`. */
  name: string
  summary: string
  options?: ParseArgsOptionsConfig
  /** Returns the exit code; user errors are thrown as Error (printed as `error: <message>`). */
  run(context: CommandContext): Promise<number>
}

/** Where output goes and what environment the CLI sees (tests pass their own). */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  env: Readonly<Record<string, string | undefined>>
}

const globalOptions = {
  'file-path': { type: 'string', short: 'f', default: 'tazuna.yaml' },
  environment: { type: 'string', short: 'e', default: '' },
  tags: { type: 'string', short: 't', multiple: true, default: [] },
  'log-level': { type: 'string', short: 'l', default: 'info' },
  help: { type: 'boolean', short: 'h', default: false }
} satisfies ParseArgsOptionsConfig

const check: CliCommand = {
  name: 'check',
  summary: 'Validate tazuna.yaml (template, schema, includes, names, dependsOn); no cluster',
  async run({ flags, io, templates, version }) {
    const result = await checkConfig({
      file: flags.filePath,
      environment: flags.environment,
      engine: templates,
      version
    })
    if (result.problems.length > 0) {
      const lines = [checkFailedHeadline(flags.filePath), ...result.problems.map(formatProblem)]
      io.stderr(`error: ${lines.join('\n')}\n`)
      return 1
    }
    io.stdout('ok\n')
    return 0
  }
}

/** Every command, longest names first when they share words. */
export const commands: readonly CliCommand[] = [
  check,
  buildCommand,
  stateDiffCommand,
  stateListCommand,
  applyCommand
]

const nodeIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env
}

/** The local command line over the same engine as the action; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = nodeIo): Promise<number> {
  try {
    const parsed = parseCommandLine(argv)
    if (parsed.help || parsed.command === undefined) {
      io.stdout(usage())
      return parsed.help ? 0 : 1
    }
    const templates = createGoTemplateEngine(() => locateGoTemplate(io.env))
    return await parsed.command.run({ ...parsed, io, templates, version: packageJson.version })
  } catch (error) {
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

/** The command, global flags, the command's own options and its arguments. */
export interface ParsedCommandLine {
  command: CliCommand | undefined
  flags: GlobalFlags
  options: CommandContext['options']
  args: string[]
  help: boolean
}

/**
 * Splits argv into the command and its flags. Flags may come before or after the command words,
 * as with cobra's persistent flags; `-t` takes comma-separated lists and may repeat.
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  argv = argv.flatMap(splitShortAssignment)
  const loose = parseArgs({
    args: [...argv],
    options: globalOptions,
    strict: false,
    allowPositionals: true
  })
  const command = findCommand(loose.positionals)
  const words = command ? command.name.split(' ').length : 0
  if (command === undefined && loose.positionals.length > 0) {
    throw new Error(`unknown command ${JSON.stringify(loose.positionals.join(' '))}`)
  }
  const strict = parseStrict(argv, { ...globalOptions, ...command?.options })
  const {
    'file-path': filePath,
    environment,
    tags,
    'log-level': logLevel,
    help,
    ...options
  } = strict.values as Record<string, unknown> & { help: boolean }
  return {
    command,
    flags: {
      filePath: filePath as string,
      environment: environment as string,
      tags: (tags as string[]).flatMap((t) => t.split(',')).filter((t) => t !== ''),
      logLevel: logLevel as string
    },
    options: options as CommandContext['options'],
    args: strict.positionals.slice(words),
    help
  }
}

/** pflag reads `-t=a` as `-t a`; node:util parseArgs would take `=a` as the value. */
function splitShortAssignment(arg: string): string[] {
  return /^-[A-Za-z]=/.test(arg) ? [arg.slice(0, 2), arg.slice(3)] : [arg]
}

function parseStrict(argv: readonly string[], options: ParseArgsOptionsConfig) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: true })
  } catch (error) {
    const code = (error as { code?: string }).code
    const flag = /'([^']+)'/.exec((error as Error).message)?.[1]
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new Error(`unknown flag: ${flag}`, { cause: error })
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      throw new Error(`flag needs an argument: ${flag ?? (error as Error).message}`, {
        cause: error
      })
    }
    throw error
  }
}

function findCommand(positionals: readonly string[]): CliCommand | undefined {
  return [...commands]
    .sort((a, b) => b.name.length - a.name.length)
    .find((c) => c.name.split(' ').every((word, i) => positionals[i] === word))
}

function usage(): string {
  const lines = commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`)
  return [
    'Usage: tazuna-action <command> [flags]',
    '',
    'Commands:',
    ...lines,
    '',
    'Flags:',
    '  -f, --file-path string     path of tazuna.yaml (default "tazuna.yaml")',
    '  -e, --environment string   environment name',
    '  -t, --tags strings         only manifests with any of these tags (comma-separated or repeated)',
    '  -l, --log-level string     debug, info, warn or error (default "info")',
    ''
  ].join('\n')
}

/**
 * The Go template engine's files: `TAZUNA_GOTEMPLATE_WASM`, else next to the running bundle
 * (dist/), else — running from source — the build cache, built on first use.
 */
async function locateGoTemplate(env: CliIo['env']): Promise<GoTemplateFiles> {
  const override = env.TAZUNA_GOTEMPLATE_WASM
  if (override) return goTemplateFilesFor(override)
  const bundled = findGoTemplateFiles([import.meta.dirname])
  if (bundled) return bundled
  const build = path.join(import.meta.dirname, 'template', 'engine', 'build.sh')
  if (!existsSync(build)) {
    throw new Error(`the Go template engine is missing from ${import.meta.dirname}`)
  }
  const { stdout } = await promisify(execFile)('bash', [build], { env: { ...env } })
  return goTemplateFilesIn(stdout.trim())
}
