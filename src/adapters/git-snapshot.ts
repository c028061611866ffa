/**
 * State snapshots on a hidden git ref of the repository (docs/state-snapshots.md#on-a-git-ref):
 * one commit holding one file, pushed with the checkout's credentials and fetched by any job
 * that can read the repository, forks' pull requests included. Neither the work tree, the index
 * nor any branch is touched: the commit is made from a blob and a tree written to the object
 * database, and it has no parent, so fetching it brings three objects whatever the clone's depth.
 */
import type { CommandOptions, CommandRunner } from '../render/ports.js'
import { snapshotRefProblem } from '../state/snapshot-ref.js'
import { createExecRunner } from './command-runner.js'

/** The one file of a snapshot commit. */
export const SNAPSHOT_FILE = 'state-snapshot.json'

/** Who a snapshot commit names as author and committer. */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'github-actions[bot]',
  GIT_AUTHOR_EMAIL: '41898282+github-actions[bot]@users.noreply.github.com',
  GIT_COMMITTER_NAME: 'github-actions[bot]',
  GIT_COMMITTER_EMAIL: '41898282+github-actions[bot]@users.noreply.github.com'
}

/** A snapshot found on a ref: its text and the commit that holds it. */
export interface FetchedSnapshot {
  commit: string
  text: string
}

/** Snapshots on hidden refs of `origin`. */
export interface SnapshotRefs {
  /**
   * Writes `text` as the only file of a new commit and pushes it to `ref` of origin, replacing
   * what the ref pointed to; returns the commit. Throws naming the git command that failed.
   */
  publish(ref: string, text: string, message: string): Promise<string>
  /** Fetches `ref` from origin; undefined when origin has no such ref. */
  fetch(ref: string): Promise<FetchedSnapshot | undefined>
}

/** Snapshots on hidden refs of the `origin` remote of the git repository at `dir`. */
export function gitSnapshotRefs(
  dir: string,
  runner: CommandRunner = createExecRunner()
): SnapshotRefs {
  const git = async (args: string[], opts: CommandOptions = {}) => {
    const result = await runner.run('git', args, { cwd: dir, ...opts })
    return { ...result, args }
  }
  const ok = async (args: string[], opts: CommandOptions = {}): Promise<string> => {
    const result = await git(args, opts)
    if (result.exitCode !== 0) throw gitFailure(result)
    return result.stdout.trim()
  }
  const refOk = (ref: string) => {
    const problem = snapshotRefProblem(ref)
    if (problem !== undefined) throw new Error(`snapshot ref ${JSON.stringify(ref)} ${problem}`)
  }
  return {
    async publish(ref, text, message) {
      refOk(ref)
      const blob = await ok(['hash-object', '-w', '--stdin'], { input: text })
      const tree = await ok(['mktree'], { input: `100644 blob ${blob}\t${SNAPSHOT_FILE}\n` })
      const commit = await ok(['commit-tree', tree, '-m', message], { env: IDENTITY })
      await ok(['push', '--quiet', 'origin', `+${commit}:${ref}`])
      return commit
    },
    async fetch(ref) {
      refOk(ref)
      const fetched = await git(['fetch', '--quiet', '--no-tags', 'origin', ref])
      if (fetched.exitCode !== 0) {
        if (/couldn't find remote ref/i.test(fetched.stderr)) return undefined
        throw gitFailure(fetched)
      }
      const commit = await ok(['rev-parse', 'FETCH_HEAD'])
      const shown = await git(['show', `${commit}:${SNAPSHOT_FILE}`])
      if (shown.exitCode !== 0) {
        throw new Error(`snapshot ref ${ref} (commit ${commit}) holds no ${SNAPSHOT_FILE}`)
      }
      return { commit, text: shown.stdout }
    }
  }
}

/** `git <args>` failed: the command, its exit code and the last lines of stderr. */
function gitFailure(result: { args: string[]; exitCode: number; stderr: string }): Error {
  const tail = result.stderr.trim().split('\n').slice(-6).join('\n')
  // A remote URL with credentials in it (https://user:token@host) never reaches a message.
  const safe = tail.replace(/(\w+:\/\/)[^/\s@]+@/g, '$1***@')
  return new Error(`git ${result.args[0]} failed (exit ${result.exitCode}): ${safe}`)
}
