/**
 * The local command line over the same engine as the action, with Tazuna's global flags
 * (docs/compatibility.md#command-line-and-kubeconfig): `-f/--file-path`, `-e/--environment`,
 * `-t/--tags`, `-l/--log-level`. Results go to stdout; errors go to stderr as `error: ...` with
 * exit code 1 (never a stack trace).
 *
 * Commands are entries of `commands` below: a name (words, e.g. `state diff`), extra flags,
 * and `run`. To add one, write a module exporting a CliCommand (src/cli/command.ts)
 * and list it in `commands`.
 */
import { readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util'
import packageJson from '../package.json' with { type: 'json' }
import { processEnginePorts } from './adapters/engine-ports.js'
import { userCacheDir } from './adapters/render/native-program.js'
import { InputError } from './errors.js'
import { parseByteSize, parseDurationSeconds } from './inputs.js'
import { repositoryRootOf } from './adapters/files/repository-root.js'
import type { TwinCheckout } from './adapters/render/reuse.js'
import { gitAncestry, gitCommitOf } from './adapters/git.js'
import { createExecRunner } from './adapters/command-runner.js'
import { createNodeFiles } from './adapters/files/node-files.js'
import { renderAtCommit, resolveBaseCommit } from './engine/base-render.js'
import { newFingerprintKey } from './adapters/fingerprint-key.js'
import { applyCommand } from './cli/apply-command.js'
import { planCommand } from './cli/plan-command.js'
import { buildCommand } from './cli/build-command.js'
import { checkCommand } from './cli/check-command.js'
import {
  stderrLog,
  type CliCommand,
  type BaseCommit,
  type CliIo,
  type CommandContext,
  type GlobalFlags
} from './cli/command.js'
import { stateDiffCommand, stateListCommand } from './cli/state-commands.js'
import { stateExportCommand } from './cli/snapshot-commands.js'
import { destroyCommand } from './cli/destroy-command.js'
import { versionCommand } from './cli/version-command.js'
import { initCommand } from './cli/init-command.js'
import { completionCommand, completionFlagsOf } from './cli/completion-command.js'
import type { CompletionTable } from './cli/completion.js'
import { parseBuildStamp, versionLine, type BuildInfo } from './cli/version.js'
import { readBuildStamp } from './adapters/build-stamp.js'
import { tagsCommand } from './cli/tags-command.js'
import { chartListCommand } from './cli/chart-list-command.js'
import { secretToGenesisSecretCommand } from './cli/secret-to-genesissecret-command.js'
import { stateDriftCommand, statusCommand } from './cli/drift-commands.js'
import { createEngine, type Engine } from './engine/engine.js'
import { stopOnSignals } from './adapters/termination.js'
import { BASE_TREE, type PathPolicy } from './config/confinement.js'
import type { EnginePorts } from './engine/ports.js'

export type { CliCommand, CliIo, CommandContext, GlobalFlags } from './cli/command.js'

const globalOptions = {
  'file-path': { type: 'string', short: 'f', default: 'tazuna.yaml' },
  environment: { type: 'string', short: 'e', default: '' },
  tags: { type: 'string', short: 't', multiple: true, default: [] },
  'allow-path': { type: 'string', multiple: true, default: [] },
  'render-timeout': { type: 'string', default: '5m' },
  'max-render-bytes': { type: 'string', default: '256Mi' },
  'max-render-memory': { type: 'string', default: '1Gi' },
  'render-all': { type: 'boolean', default: false },
  'log-level': { type: 'string', short: 'l', default: 'info' },
  help: { type: 'boolean', short: 'h', default: false }
} satisfies ParseArgsOptionsConfig

/** Flags of the program itself, without a command (cobra's root `-v/--version`). */
const rootOptions = {
  version: { type: 'boolean', short: 'v', default: false }
} satisfies ParseArgsOptionsConfig

/** Every command, longest names first when they share words. */
export const commands: readonly CliCommand[] = [
  checkCommand,
  buildCommand,
  stateDiffCommand,
  stateListCommand,
  stateExportCommand,
  stateDriftCommand,
  statusCommand,
  planCommand,
  applyCommand,
  destroyCommand,
  tagsCommand,
  chartListCommand,
  secretToGenesisSecretCommand,
  initCommand,
  versionCommand,
  completionCommand(completionTable)
]

/**
 * Words that group commands (`state diff`, `chart list`), with the line their help opens with.
 * Given alone (or with --help), a group prints its help and exits 0, as Tazuna's cobra parent
 * commands do (docs/compatibility.md#command-groups).
 */
const commandGroups: Readonly<Record<string, string>> = {
  state: "Commands over the State that tazuna.yaml's manifests record in the cluster.",
  chart: "Commands over the Helm charts of tazuna.yaml's helmfile manifests."
}

/** The command table as completion scripts see it (src/cli/completion.ts). */
function completionTable(): CompletionTable {
  return {
    program: 'tazuna-action',
    globalFlags: completionFlagsOf(globalOptions),
    rootFlags: completionFlagsOf(rootOptions),
    commands: commands.map((c) => ({
      name: c.name,
      flags: completionFlagsOf(c.options ?? {}, c.bareValues),
      ...(c.arguments ? { values: c.arguments } : {})
    }))
  }
}

const nodeIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  readLine: readStdinLine,
  isTTY: process.stdout.isTTY === true,
  stopOnSignals: () =>
    stopOnSignals({
      onFirst: (name) =>
        process.stderr.write(
          `\n${name}: cancelling. No request starts any more; the requests in flight finish, ` +
            'the manifests whose objects were all applied record their State, the lock is ' +
            'released.\nPress Ctrl-C again to stop now (the lock is released first).\n'
        ),
      onUrgent: (why) => process.stderr.write(`stopping now (${why}): releasing the lock\n`)
    })
}

/** Reads stdin up to the first line break (Tazuna's bufio ReadString('\n')). */
function readStdinLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const stop = (): void => {
      process.stdin.off('data', onData)
      process.stdin.off('end', onEnd)
      process.stdin.pause()
    }
    const onData = (chunk: string): void => {
      text += chunk
      const end = text.indexOf('\n')
      if (end < 0) return
      stop()
      resolve(text.slice(0, end + 1))
    }
    const onEnd = (): void => {
      stop()
      reject(new Error('EOF'))
    }
    process.stdin.setEncoding('utf8')
    process.stdin.on('data', onData)
    process.stdin.on('end', onEnd)
  })
}

/**
 * The local command line over the same engine as the action; returns the exit code.
 * `fingerprintKey` keys the Secret fingerprints of this run's output: a fresh random one unless
 * a test passes a known one.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = nodeIo,
  fingerprintKey: Uint8Array = newFingerprintKey()
): Promise<number> {
  try {
    const parsed = parseCommandLine(argv)
    if (!parsed.help && parsed.version) {
      io.stdout(versionLine(buildInfo()))
      return 0
    }
    if (parsed.command === undefined && parsed.group !== undefined) {
      io.stdout(groupUsage(parsed.group))
      return 0
    }
    if (parsed.help || parsed.command === undefined) {
      io.stdout(usage())
      return 0
    }
    const stop =
      parsed.command.stopsOnSignals === true && io.signal === undefined
        ? io.stopOnSignals?.()
        : undefined
    if (stop !== undefined) io = { ...io, ...stop }
    const engine = createCliEngine(parsed.flags, io)
    try {
      return await parsed.command.run({
        ...parsed,
        io,
        engine,
        engineOver: (session) =>
          createCliEngine(parsed.flags, io, { openSession: () => Promise.resolve(session) }),
        configPath: configPathOf(parsed.flags),
        version: packageJson.version,
        build: buildInfo(),
        now: () => Date.now(),
        gitCommitOf: (dir) => gitCommitOf(dir),
        lockHolder: `tazuna-action cli (pid ${process.pid}) on ${os.hostname()}`,
        ancestryIn: (dir) => gitAncestry(dir),
        readText: (file) => readFile(file, 'utf8'),
        writeText: (file, text) => writeFile(file, text),
        createText: (file, text, { overwrite }) => createTextFile(file, text, overwrite),
        baseCommit: (ref) => baseCommitOf(parsed.flags, io, ref),
        runner: createExecRunner(),
        fingerprintKey
      })
    } finally {
      engine.close()
    }
  } catch (error) {
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

/** Writes `file` unless it exists (then false) or `overwrite`; O_EXCL, so no race with a writer. */
async function createTextFile(file: string, text: string, overwrite: boolean): Promise<boolean> {
  try {
    await writeFile(file, text, { flag: overwrite ? 'w' : 'wx', mode: 0o644 })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** This build's version, its stamp (dist/build-info.json) and this machine's platform. */
function buildInfo(): BuildInfo {
  return {
    version: packageJson.version,
    ...parseBuildStamp(readBuildStamp(import.meta.dirname)),
    platform: process.platform,
    arch: process.arch
  }
}

/** The command, global flags, the command's own options and its arguments. */
export interface ParsedCommandLine {
  command: CliCommand | undefined
  flags: GlobalFlags
  options: CommandContext['options']
  args: string[]
  help: boolean
  /** `-v/--version` without a command. */
  version: boolean
  /** A group's word given without one of its commands (`state`, `chart`): its help. */
  group?: string
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
  const group = command === undefined ? groupOf(loose.positionals) : undefined
  const words = command ? command.name.split(' ').length : group === undefined ? 0 : 1
  if (command === undefined && group === undefined && loose.positionals.length > 0) {
    throw new Error(`unknown command ${JSON.stringify(loose.positionals.join(' '))}`)
  }
  argv = withBareValues(argv, command?.bareValues ?? {})
  const strict = parseStrict(argv, {
    ...globalOptions,
    ...(command === undefined ? (group === undefined ? rootOptions : {}) : command.options)
  })
  const {
    'file-path': filePath,
    environment,
    tags,
    'log-level': logLevel,
    'allow-path': allowPaths,
    'render-timeout': renderTimeout,
    'max-render-bytes': maxRenderBytes,
    'max-render-memory': maxRenderMemory,
    'render-all': renderAll,
    help,
    ...commandOptions
  } = strict.values as Record<string, unknown> & { help: boolean }
  const { version, ...rootless } = commandOptions
  const options = command === undefined ? rootless : commandOptions
  const orasPull = orasPullOf(options)
  const timeoutSeconds = parseDurationSeconds('flag --render-timeout', String(renderTimeout))
  if (timeoutSeconds <= 0) throw new InputError('flag --render-timeout must be longer than 0 s')
  return {
    command,
    flags: {
      filePath: filePath as string,
      environment: environment as string,
      tags: (tags as string[]).flatMap((t) => t.split(',')).filter((t) => t !== ''),
      logLevel: logLevel as string,
      allowPaths: allowPaths as string[],
      renderLimits: {
        timeoutMs: timeoutSeconds * 1000,
        maxOutputBytes: parseByteSize('flag --max-render-bytes', String(maxRenderBytes)),
        maxMemoryBytes: parseByteSize('flag --max-render-memory', String(maxRenderMemory))
      },
      ...(orasPull ? { orasPull } : {}),
      ...(renderAll === true ? { renderAll: true } : {})
    },
    options: options as CommandContext['options'],
    args: strict.positionals.slice(words),
    help,
    version: command === undefined && group === undefined && version === true,
    ...(group === undefined ? {} : { group })
  }
}

/**
 * The group named by the command words when none of its commands is (`state` alone); an unknown
 * command of a group is refused. Tazuna's cobra prints the group's help for that too, exiting 0,
 * which would pass a mistyped `state dif` in a script (docs/compatibility.md#command-groups).
 */
function groupOf(positionals: readonly string[]): string | undefined {
  const [word, next] = positionals
  if (word === undefined || !Object.hasOwn(commandGroups, word)) return undefined
  if (next !== undefined) {
    throw new Error(`unknown command ${JSON.stringify(next)} for "tazuna-action ${word}"`)
  }
  return word
}

/** A group's help: its line, then its commands. */
function groupUsage(group: string): string {
  const members = commands.filter((c) => c.name.startsWith(`${group} `))
  const width = Math.max(...members.map((c) => c.name.length - group.length - 1))
  return [
    commandGroups[group] ?? '',
    '',
    `Usage: tazuna-action ${group} <command> [flags]`,
    '',
    'Commands:',
    ...members.map((c) => `  ${c.name.slice(group.length + 1).padEnd(width)}  ${c.summary}`),
    '',
    'The flags of every command: tazuna-action --help',
    ''
  ].join('\n')
}

/** `--offline` / `--no-cache`, refused together with Tazuna's message. */
function orasPullOf(options: Record<string, unknown>): GlobalFlags['orasPull'] {
  const noCache = options['no-cache'] === true
  const offline = options.offline === true
  if (noCache && offline) {
    throw new InputError('--no-cache and --offline cannot be specified together')
  }
  return noCache || offline ? { noCache, offline } : undefined
}

/** `--content` alone is `--content=base` (the command's bareValues), as pflag's NoOptDefVal. */
function withBareValues(argv: readonly string[], bare: Record<string, string>): string[] {
  const end = argv.indexOf('--')
  return argv.map((arg, i) => {
    const name = arg.startsWith('--') ? arg.slice(2) : ''
    return (end < 0 || i < end) && Object.hasOwn(bare, name) ? `${arg}=${bare[name]}` : arg
  })
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
    '      --allow-path dir       a directory outside the repository tazuna.yaml may read (repeatable)',
    '      --render-timeout d     stop a render that takes longer (default 5m)',
    '      --max-render-bytes n   refuse a render whose output is longer (default 256Mi)',
    '      --max-render-memory n  stop a render whose program needs more memory (default 1Gi)',
    '      --render-all           render every manifest, even one its render record shows unchanged',
    '  -v, --version              print version, commit and build date (without a command)',
    ''
  ].join('\n')
}

/**
 * The engine over the flags' configuration, on this process's ports; `ports` replaces some
 * (tests pass their own template engine or session).
 */
export function createCliEngine(
  flags: GlobalFlags,
  io: CliIo,
  ports: Partial<EnginePorts> = {},
  twin?: TwinCheckout
): Engine {
  const settings = {
    file: flags.filePath,
    environment: flags.environment,
    tags: flags.tags,
    version: packageJson.version,
    ...(flags.orasPull ? { orasPull: flags.orasPull } : {}),
    ...(flags.renderAll ? { renderAll: true } : {})
  }
  const log = stderrLog(io)
  return createEngine(settings, {
    ...processEnginePorts({
      env: io.env,
      codeDir: import.meta.dirname,
      log,
      programCache: userCacheDir(io.env),
      confine: repositoryPolicy(flags, twin),
      ...(flags.renderLimits ? { renderLimits: flags.renderLimits } : {}),
      ...(twin ? { twin } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      ...(io.beforeExit ? { beforeExit: io.beforeExit } : {})
    }),
    ...ports
  })
}

/**
 * The base of a local content diff: resolved in the repository holding tazuna.yaml, rendered
 * from a temporary worktree by an engine of its own over the same flags.
 */
async function baseCommitOf(
  flags: GlobalFlags,
  io: CliIo,
  ref: string | undefined
): Promise<BaseCommit> {
  const runner = createExecRunner()
  const config = path.resolve(flags.filePath)
  const workspace = path.dirname(config)
  const base = await resolveBaseCommit(ref, workspace, runner)
  const files = createNodeFiles()
  return {
    ...base,
    render: (headRendered) =>
      renderAtCommit(
        base.sha,
        { workspace, config },
        {
          runner,
          makeTempDir: (prefix) => files.makeTempDir(prefix),
          engineFor: (file, twin) => createCliEngine({ ...flags, filePath: file }, io, {}, twin)
        },
        headRendered
      )
  }
}

/**
 * tazuna.yaml relative to the root of repositoryPolicy, `/`-separated: how a State snapshot
 * names its configuration, the same from any working directory (docs/state-snapshots.md).
 */
function configPathOf(flags: GlobalFlags): string {
  const { root } = repositoryPolicy(flags)
  return path.relative(root, path.resolve(flags.filePath)).split(path.sep).join('/')
}

/**
 * Reads stay in the git work tree that holds tazuna.yaml (found as git finds it: the nearest
 * directory with a `.git` entry), or its directory outside one, plus `--allow-path` dirs;
 * with `twin`, the base render's worktree, named BASE_TREE in messages.
 */
function repositoryPolicy(flags: GlobalFlags, twin?: TwinCheckout): PathPolicy {
  const configDir = path.dirname(path.resolve(flags.filePath))
  const root = repositoryRootOf(configDir) ?? configDir
  return {
    root,
    allowed: (flags.allowPaths ?? []).map((dir) => path.resolve(dir)),
    // The base's engine reads a temporary worktree: messages call it what it is to the user.
    ...(twin ? { name: BASE_TREE } : {})
  }
}
