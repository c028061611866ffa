/**
 * Renders every manifest at the pull request's base commit, for content diffs: a temporary
 * `git worktree` of the base (fetched first when the clone is shallow, with whatever
 * credentials the checkout left in the repository's git config), and an engine over the
 * worktree's tazuna.yaml with the head's ports. Read-only towards the cluster. The entry points
 * pass it as the before side of the content-diff step (./content-diff.ts).
 */
import path from 'node:path'
import { BASE_TREE } from '../config/confinement.js'
import type { Engine } from './engine.js'
import type { BuildFiles, CommandRunner } from '../render/ports.js'
import type { RenderedObjects } from '../report/content-diff.js'

/** The before side of a content diff, and how to redact what its render registered. */
export interface BeforeRender {
  objects: RenderedObjects
  redact: (text: string) => string
}

/** The base could not be rendered; the message says why (shown once, as a notice). */
export class BaseUnavailableError extends Error {
  override name = 'BaseUnavailableError'
}

/** What rendering the base needs: git, a temp dir, and an engine over another tazuna.yaml. */
export interface BaseRenderDeps {
  runner: CommandRunner
  makeTempDir: BuildFiles['makeTempDir']
  /**
   * An engine over the worktree's `file`; `checkout` says which checkout of the repository the
   * worktree (`base`) is a copy of (`head`), so renders the head made can be reused where the
   * files are the same.
   */
  engineFor: (
    file: string,
    checkout: { head: string; base: string }
  ) => Pick<Engine, 'loadExpanded' | 'renderObjects' | 'redact' | 'close'>
}

/**
 * Settles when the head's renders are done, with the manifests whose objects the content diffs
 * need (those with Diff entries); undefined: every manifest.
 */
export type HeadRendered = Promise<ReadonlySet<string> | undefined>

/** Where the head is: the checkout (the workspace) and tazuna.yaml as the input names it. */
export interface HeadCheckout {
  workspace: string
  config: string
}

/**
 * Renders every named manifest at `sha`. Throws BaseUnavailableError when git cannot provide
 * the commit (no repository, no history and no credentials to fetch it); a render error of
 * the base's own manifests is thrown as it is. A commit without the configuration file (the
 * pull request that adds it) renders no objects. The worktree is removed in every case.
 */
export async function renderAtCommit(
  sha: string,
  head: HeadCheckout,
  deps: BaseRenderDeps,
  headRendered: HeadRendered = Promise.resolve(undefined)
): Promise<BeforeRender> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) {
    throw new BaseUnavailableError(`the event names no base commit (got ${JSON.stringify(sha)})`)
  }
  const git = gitIn(deps.runner)
  const root = (await git(head.workspace, ['rev-parse', '--show-toplevel'])).trim()
  await ensureCommit(git, root, sha)
  const config = path.relative(root, path.resolve(head.workspace, head.config))
  // The pull request that adds tazuna.yaml: nothing of it existed before, so every object is new.
  if (!(await holdsFile(deps.runner, root, sha, config))) return NOTHING_BEFORE
  const temp = await deps.makeTempDir('tazuna-base-')
  const dir = path.join(temp.path, 'worktree')
  try {
    await git(root, ['worktree', 'add', '--detach', dir, sha])
    const engine = deps.engineFor(path.join(dir, config), { head: root, base: dir })
    try {
      const run = await engine.loadExpanded()
      // After the head's renders, so the module can hand over those of unchanged manifests.
      const needed = await headRendered
      return { objects: await engine.renderObjects(run, needed), redact: engine.redact }
    } catch (error) {
      if (error instanceof Error) error.message = namedInBaseTree(error.message, dir)
      throw error
    } finally {
      engine.close()
    }
  } finally {
    await deps.runner
      .run('git', ['worktree', 'remove', '--force', dir], { cwd: root })
      .catch(() => undefined)
    await temp.remove()
  }
}

type Git = (cwd: string, args: readonly string[]) => Promise<string>

/**
 * `message` with the temporary worktree `dir` written as the user knows the base: its files by
 * their paths in the commit, the directory itself as BASE_TREE. The worktree is gone when the
 * user reads the message, and a path under it reads as a file of the checkout.
 */
export function namedInBaseTree(message: string, dir: string): string {
  const separators = [...new Set(['/', path.sep])]
  let named = message
  for (const sep of separators) named = named.split(`${dir}${sep}`).join('')
  return named.split(dir).join(BASE_TREE)
}

const NOTHING_BEFORE: BeforeRender = { objects: new Map(), redact: (text) => text }

// Whether the commit has the file (`git cat-file -e <sha>:<path>` exits 0 only then).
async function holdsFile(
  runner: CommandRunner,
  root: string,
  sha: string,
  file: string
): Promise<boolean> {
  const gitPath = file.split(path.sep).join('/')
  const result = await runner.run('git', ['cat-file', '-e', `${sha}:${gitPath}`], { cwd: root })
  return result.exitCode === 0
}

// A shallow clone (actions/checkout's default depth 1) lacks the base commit: fetch just it.
async function ensureCommit(git: Git, root: string, sha: string): Promise<void> {
  try {
    await git(root, ['cat-file', '-e', `${sha}^{commit}`])
    return
  } catch {
    // Not in the clone: fetched below.
  }
  await git(root, ['fetch', '--no-tags', '--depth=1', 'origin', sha])
}

function gitIn(runner: CommandRunner): Git {
  return async (cwd, args) => {
    // No prompt for credentials: a clone without them must fail fast, not wait for a terminal.
    const result = await runner
      .run('git', args, { cwd, env: { GIT_TERMINAL_PROMPT: '0' } })
      .catch((error: unknown) => {
        throw new BaseUnavailableError(
          `git could not be run: ${error instanceof Error ? error.message : String(error)}`
        )
      })
    if (result.exitCode !== 0) {
      const tail = result.stderr.trim().split('\n').slice(-3).join(' ').slice(-400)
      throw new BaseUnavailableError(
        `git ${args.join(' ')} failed (exit ${result.exitCode}): ${tail}`
      )
    }
    return result.stdout
  }
}

/** The commit a local content diff compares with, and how it was chosen (for the heading). */
export interface ResolvedBase {
  sha: string
  /** `--base main`, or how the default was found (`merge-base of HEAD and origin/HEAD`). */
  describe: string
}

/**
 * The base of `state diff --content=base` in the repository holding `dir`
 * (docs/compatibility.md#content-diff-command-line): `ref` as git resolves it to a commit;
 * without one, the merge-base of HEAD and `origin/HEAD` (the remote's default branch, what a
 * pull request would compare with), else HEAD. Throws an Error naming the ref when git does
 * not know it, and one naming the directory when there is no repository or no commit.
 */
export async function resolveBaseCommit(
  ref: string | undefined,
  dir: string,
  runner: CommandRunner
): Promise<ResolvedBase> {
  const git = async (args: readonly string[]) => {
    const result = await runner.run('git', args, { cwd: dir, env: { GIT_TERMINAL_PROMPT: '0' } })
    return { ok: result.exitCode === 0, out: result.stdout.trim(), err: result.stderr.trim() }
  }
  const top = await git(['rev-parse', '--show-toplevel'])
  if (!top.ok) {
    throw new Error(
      `--content=base needs a git repository: ${dir} is not in one (${top.err.split('\n')[0] ?? ''})`
    )
  }
  if (ref !== undefined) {
    // `--end-of-options`: a ref that starts with "-" is a ref, never a git option.
    const found = await git([
      'rev-parse',
      '--verify',
      '--quiet',
      '--end-of-options',
      `${ref}^{commit}`
    ])
    if (!found.ok) {
      throw new Error(
        `--base ${JSON.stringify(ref)}: no such commit in the repository at ${top.out}`
      )
    }
    return { sha: found.out, describe: `--base ${ref}` }
  }
  const upstream = await git(['rev-parse', '--verify', '--quiet', 'refs/remotes/origin/HEAD'])
  if (upstream.ok) {
    const base = await git(['merge-base', 'HEAD', 'refs/remotes/origin/HEAD'])
    if (base.ok) return { sha: base.out, describe: 'merge-base of HEAD and origin/HEAD' }
  }
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])
  if (!head.ok) {
    throw new Error(`--content=base needs a commit to compare with: ${top.out} has no HEAD commit`)
  }
  return { sha: head.out, describe: 'HEAD' }
}
