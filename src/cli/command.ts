/**
 * What a command of the command line is and gets. The table of commands and the parsing of
 * Tazuna's global flags are in src/cli.ts; each command is one module of this folder.
 */
import type { ParseArgsOptionsConfig } from 'node:util'
import type { CommitAncestry } from '../apply/commit-guard.js'
import type { BeforeRender, HeadRendered, ResolvedBase } from '../engine/base-render.js'
import type { Engine } from '../engine/engine.js'
import type { ClusterSession } from '../engine/ports.js'
import type { CommandRunner, RenderLimits } from '../render/ports.js'
import type { BuildInfo } from './version.js'

/** Tazuna's global flags, parsed. */
export interface GlobalFlags {
  filePath: string
  environment: string
  /** From `-t a,b -t c`: ["a", "b", "c"]. */
  tags: string[]
  logLevel: string
  /** `--allow-path` (repeatable): directories outside the repository tazuna.yaml may read. */
  allowPaths?: string[]
  /** `--render-timeout`, `--max-render-bytes` (docs/reliability.md#render-limits). */
  renderLimits?: RenderLimits
  /** `--offline` / `--no-cache` of apply, build, destroy and plan (type oras pulls). */
  orasPull?: { offline: boolean; noCache: boolean }
  /** `--render-all`: render even manifests their render record shows unchanged. */
  renderAll?: boolean
}

/**
 * Tazuna's ORAS pull flags, on the commands that have them (apply, build, destroy, plan);
 * src/cli.ts turns them into GlobalFlags.orasPull.
 */
export const orasPullOptions = {
  'no-cache': { type: 'boolean' },
  offline: { type: 'boolean' }
} satisfies ParseArgsOptionsConfig

/** Where output goes and what environment the CLI sees (tests pass their own). */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  env: Readonly<Record<string, string | undefined>>
  /** One line of stdin, line break included; rejects with `EOF` when input ends first. */
  readLine?(): Promise<string>
  /** Whether stdout is a terminal (colour is used only then, and never with NO_COLOR). */
  isTTY?: boolean
  /**
   * Cancels the run when it aborts (tests end the runs their test left behind): no cluster
   * request starts after it, a held run lock is released, the command fails naming the cause.
   */
  signal?: AbortSignal
  /** With `signal`: what the process finishes before it stops at once (EnginePorts.beforeExit). */
  beforeExit?: (task: () => Promise<void>) => () => void
  /**
   * This process's SIGINT and SIGTERM end the command instead of the process
   * (src/adapters/termination.ts); `apply` asks for it. Absent in tests, which pass `signal`.
   */
  stopOnSignals?: () => { signal: AbortSignal; beforeExit: NonNullable<CliIo['beforeExit']> }
}

/** A git commit of tazuna.yaml's repository to render, for `state diff --content=base`. */
export interface BaseCommit extends ResolvedBase {
  /** Renders every manifest of tazuna.yaml as it is at the commit (a temporary worktree). */
  render(headRendered: HeadRendered): Promise<BeforeRender>
}

/** What a command gets: the flags, its own options, output streams, the engine and git. */
export interface CommandContext {
  flags: GlobalFlags
  /** Values of the command's own `options`. */
  options: Record<string, string | boolean | (string | boolean)[] | undefined>
  /** Arguments after the command words. */
  args: string[]
  io: CliIo
  /** The engine over the flags' configuration (the same one the action drives). */
  engine: Engine
  /**
   * Another engine over the same flags whose cluster session is `session` (a State snapshot's,
   * src/engine/snapshot-session.ts); the caller closes it.
   */
  engineOver: (session: ClusterSession) => Engine
  /** tazuna.yaml relative to its repository root, `/`-separated: a snapshot's config path. */
  configPath: string
  /** This program's version. */
  version: string
  /** This build's version, commit, date and platform (`version`). */
  build: BuildInfo
  /** The current time in milliseconds since the epoch. */
  now: () => number
  /** `git rev-parse HEAD` in `dir`, or '' (src/adapters/git.ts). */
  gitCommitOf: (dir: string) => Promise<string>
  /** Who this process is, as the holder of the run lock (`tazuna-action cli (pid N) on HOST`). */
  lockHolder: string
  /** Ancestry of commits in the git history of `dir` (the stale-commit guard). */
  ancestryIn: (dir: string) => CommitAncestry
  /** A file's text, relative to the working directory (`apply --require-diff FILE`). */
  readText: (file: string) => Promise<string>
  /** Writes a file, relative to the working directory (`state export --file FILE`). */
  writeText: (file: string, text: string) => Promise<void>
  /**
   * Creates a file (mode 0644), relative to the working directory; false, writing nothing, when
   * it exists and `overwrite` is not set (`init`). The check and the creation are one step.
   */
  createText: (file: string, text: string, options: { overwrite: boolean }) => Promise<boolean>
  /**
   * The commit `--base <ref>` names (or the default base, see resolveBaseCommit); throws an
   * Error naming the ref when git does not know it.
   */
  baseCommit: (ref: string | undefined) => Promise<BaseCommit>
  /** Runs programs other than the renderers (`op` for `secret-to-genesissecret`). */
  runner: CommandRunner
  /**
   * This run's random key for Secret fingerprints in content diffs and plan
   * (src/report/secret-fingerprint.ts): fingerprints compare within one run's output only.
   */
  fingerprintKey: Uint8Array
}

/** One command of the table. */
export interface CliCommand {
  /** The command words, e.g. `check` or `state diff`. */
  name: string
  summary: string
  options?: ParseArgsOptionsConfig
  /**
   * Flags whose value is optional, with the value a bare `--flag` means (pflag's NoOptDefVal):
   * `--content` is `--content=base`.
   */
  bareValues?: Record<string, string>
  /** The values its positional argument takes, when fixed (completion offers them). */
  arguments?: readonly string[]
  /**
   * SIGINT and SIGTERM end the command, which reports what it did, instead of the process
   * (CliIo.stopOnSignals; docs/reliability.md#cancellation).
   */
  stopsOnSignals?: boolean
  /** Returns the exit code; user errors are thrown as Error (printed as `error: <message>`). */
  run(context: CommandContext): Promise<number>
}

/** Log lines on stderr, in the spirit of Tazuna's slog text handler. */
export function stderrLog(io: Pick<CliIo, 'stderr'>): {
  info(message: string): void
  warn(message: string): void
} {
  return {
    info: (message) => io.stderr(`level=INFO msg=${JSON.stringify(message)}\n`),
    warn: (message) => io.stderr(`level=WARN msg=${JSON.stringify(message)}\n`)
  }
}
