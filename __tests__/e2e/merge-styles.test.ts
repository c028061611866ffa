/**
 * GitHub's three merge buttons each lead the merge run to its pull request
 * (README.md#gated-deploys): the history is made with real git — a merge commit, one squash
 * commit, or each commit rebased onto a main that moved on meanwhile — and the emulator answers
 * commits/{sha}/pulls from the pull request's merge as GitHub documents it. The pushed commit is
 * never the reviewed head, yet renders the same Diff, so each merge applies the Diff reviewed on
 * its pull request under `reviewed-diff: require`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GitHubEmulator } from '../github-emulator/server.js'
import { writeConfig, writeFixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext, git, mergeBranch, type MergeStyle } from '../support/git-repo.js'
import { buildFreshDist, gatedJobs, gatedTokens } from './harness.js'

let emulator: GitHubEmulator
let jobs: ReturnType<typeof gatedJobs>

beforeAll(async () => {
  const dist = buildFreshDist()
  emulator = await GitHubEmulator.start({ tokens: gatedTokens })
  jobs = gatedJobs(dist, emulator.url)
}, 300_000)
afterAll(async () => emulator?.close())

const numbers: Record<MergeStyle, number> = { merge: 31, squash: 32, rebase: 33 }
const pullsOf = (sha: string): unknown[] =>
  emulator.pullsOfCommit('acme', 'deploy', sha).map((p) => p.number)

describe('merge styles', () => {
  it.each([
    ['a merge commit', 'merge'],
    ['a squash merge', 'squash'],
    ['a rebase merge', 'rebase']
  ] as const)('%s finds its pull request and applies the Diff reviewed on it', async (_, style) => {
    const number = numbers[style]
    const repo = writeFixtureRepo()
    commitAll(repo.dir, 'initial')
    git(repo.dir, 'checkout', '-q', '-b', `pull-${number}`)
    writeConfig(repo, 'first')
    const h1 = commitNext(repo.dir, 'Greet first')
    writeConfig(repo, 'second')
    const h2 = commitNext(repo.dir, 'Greet second')
    const pull = { owner: 'acme', repo: 'deploy', number, headCommits: [h1, h2] }
    emulator.registerPull(pull)
    expect((await jobs.diffJob(repo.dir, number, h2)).status).toBe(0)

    git(repo.dir, 'checkout', '-q', 'main')
    writeFileSync(join(repo.dir, 'README.md'), 'main moved on\n')
    commitNext(repo.dir, 'An unrelated change on main')
    const onMain = mergeBranch(repo.dir, `pull-${number}`, style, `Merge #${number}`)
    emulator.registerPull({ ...pull, merge: { style, commits: onMain } })
    const pushed = onMain.at(-1)!
    expect(onMain).toHaveLength(style === 'rebase' ? 2 : 1)
    expect([h1, h2]).not.toContain(pushed)
    for (const sha of [...onMain, h1, h2]) expect(pullsOf(sha)).toEqual([number])

    const run = await jobs.mergeJob(repo.dir, pushed, 'require')
    if (run.status !== 0) throw new Error(`merge job exited ${run.status}:\n${run.stdout}`)
    expect(run.summary).toContain(`Applies the Diff reviewed on #${number}`)
    const comment = emulator.comments.find((c) => c.issue === number)!
    expect(comment.body).toContain('### ✅ Applied, reviewed Diff')
    expect(comment.body).toContain(`Commit \`${pushed.slice(0, 12)}\``)
  })

  it('lists an open pull request for its head commits, and none for a commit on main alone', () => {
    emulator.registerPull({ owner: 'acme', repo: 'deploy', number: 34, headCommits: ['a1', 'b2'] })
    expect(pullsOf('b2')).toEqual([34])
    expect(pullsOf('c3')).toEqual([])
  })
})
