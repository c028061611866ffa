/**
 * Gated deploys end to end (README.md#gated-deploys): the pull request's Diff job records the
 * reviewed Diff in its comment, and the merge run — `node index.js` on push, the real test
 * cluster, the loopback GitHub emulator answering commits/{sha}/pulls — compares before it
 * applies and reports the apply on the pull request. The workspace is a real git repository,
 * so the stale-commit guard reads its history.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node'
import { GitHubEmulator, type PullMerge } from '../github-emulator/server.js'
import { writeConfig, writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext } from '../support/git-repo.js'
import { parseEntriesBlock } from '../../src/report/reviewed-entries.js'
import { buildFreshDist, gatedJobs, gatedTokens, kubeconfigs } from './harness.js'

let dist: string
let emulator: GitHubEmulator
let jobs: ReturnType<typeof gatedJobs>

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({ tokens: gatedTokens })
  jobs = gatedJobs(dist, emulator.url)
}, 300_000)
afterAll(async () => emulator?.close())

/**
 * A pull request merged into main: its head commits and what its merge put on main. The
 * fixture commits everything onto main itself, so a "rebase" here is a fast-forward.
 */
function merged(number: number, head: string, merge: PullMerge): void {
  emulator.registerPull({ owner: 'acme', repo: 'deploy', number, headCommits: [head], merge })
}

const diffJob = (repo: FixtureRepo, number: number, head: string) =>
  jobs.diffJob(repo.dir, number, head)

const mergeJob = (repo: FixtureRepo, commit: string, mode: string, token = 'gh-token') =>
  jobs.mergeJob(repo.dir, commit, mode, token)

/** resourceVersions of the settings ConfigMap and of the config manifest's State. */
async function versions(repo: FixtureRepo): Promise<string[]> {
  const kc = new KubeConfig()
  kc.loadFromFile(kubeconfigs.admin())
  const core = kc.makeApiClient(CoreV1Api)
  const read = (name: string, namespace: string) =>
    core.readNamespacedConfigMap({ name, namespace }).then((cm) => cm.metadata!.resourceVersion!)
  return Promise.all([
    read('settings', repo.namespace),
    read(`tazuna-state-${repo.manifests.config}`, 'tazuna')
  ])
}

/** The reviewed hashes of the settings ConfigMap's entry, as a comment shows them (12 digits). */
function settingsEntry(body: string, repo: FixtureRepo): { old: string; new: string } {
  const entries = parseEntriesBlock(body)!.manifests[repo.manifests.config]!
  const entry = entries.find((e) => e.key.endsWith('/ConfigMap/' + repo.namespace + '/settings'))!
  return { old: (entry.oldHash ?? '').slice(0, 12), new: (entry.newHash ?? '').slice(0, 12) }
}

const ourComment = (issue: number) =>
  emulator.comments.filter((c) => c.issue === issue && c.user.login === 'github-actions[bot]')

describe('gated deploys', () => {
  it('refuse the losing side of a two-PR race under require, and apply it once its Diff is re-run', async () => {
    const repo = writeFixtureRepo()
    const settingsKey = `${repo.manifests.config}//v1/ConfigMap/${repo.namespace}/settings`
    const c0 = commitAll(repo.dir, 'initial')

    const direct = await mergeJob(repo, c0, 'require')
    expect(direct.status).toBe(1)
    expect(direct.stdout).toContain('came from no merged pull request (a direct push)')
    expect(direct.stdout).toContain('Nothing was applied; State and the cluster are unchanged.')
    const directWarn = await mergeJob(repo, c0, 'warn')
    expect(directWarn.status).toBe(0)
    expect(directWarn.stdout).toContain('No reviewed Diff was found: commit')

    writeConfig(repo, 'pr1')
    const p1 = commitNext(repo.dir, 'PR 1')
    expect((await diffJob(repo, 11, p1)).status).toBe(0)
    writeConfig(repo, 'pr2')
    const p2 = commitNext(repo.dir, 'PR 2')
    expect((await diffJob(repo, 12, p2)).status).toBe(0)

    merged(12, p2, { style: 'rebase', commits: [p2] })
    const second = await mergeJob(repo, p2, 'require')
    expect(second.status).toBe(0)
    expect(second.summary).toContain('Applies the Diff reviewed on #12')
    expect(ourComment(12)[0]!.body).toContain('### ✅ Applied, reviewed Diff')

    writeConfig(repo, 'pr1')
    const m1 = commitNext(repo.dir, 'Merge PR 1')
    merged(11, p1, { style: 'merge', commits: [m1] }) // the pushed commit is not the PR's head
    const before = await versions(repo)
    const refused = await mergeJob(repo, m1, 'require')
    expect(refused.status).toBe(1)
    expect(refused.stdout).toContain('is not the one reviewed on #11')
    expect(refused.stdout).toContain(
      `changed: manifest "${repo.manifests.config}" ${settingsKey} (modified)`
    )
    expect(refused.stdout).toContain('Re-run the Diff job of #11')
    expect(await versions(repo)).toEqual(before)
    expect(ourComment(11)[0]!.body).toContain('### ⛔ Applied: nothing')

    expect((await diffJob(repo, 11, p1)).status).toBe(0)
    // The re-run Diff job computed for the same head p1; the merge commit renders the same.
    const rerun = await mergeJob(repo, m1, 'require')
    expect(rerun.status).toBe(0)
    expect(rerun.summary).toContain('Applies the Diff reviewed on #11')
    expect(await versions(repo)).not.toEqual(before)
  }, 600_000)

  it('apply the losing side of a two-PR race under warn, naming the one entry that was not reviewed', async () => {
    const repo = writeFixtureRepo()
    const settingsKey = `${repo.manifests.config}//v1/ConfigMap/${repo.namespace}/settings`
    const c0 = commitAll(repo.dir, 'initial')
    expect((await mergeJob(repo, c0, 'off')).status).toBe(0)
    writeConfig(repo, 'pr1')
    const p1 = commitNext(repo.dir, 'PR 1')
    expect((await diffJob(repo, 21, p1)).status).toBe(0)
    writeConfig(repo, 'pr2')
    const p2 = commitNext(repo.dir, 'PR 2')
    expect((await diffJob(repo, 22, p2)).status).toBe(0)
    merged(22, p2, { style: 'rebase', commits: [p2] })
    expect((await mergeJob(repo, p2, 'warn')).summary).toContain('Applies the Diff reviewed on #22')

    writeConfig(repo, 'pr1')
    const m1 = commitNext(repo.dir, 'Merge PR 1')
    merged(21, p1, { style: 'merge', commits: [m1] })
    const before = await versions(repo)
    const race = await mergeJob(repo, m1, 'warn')

    expect(race.status).toBe(0)
    expect(await versions(repo)).not.toEqual(before)
    const reviewed = settingsEntry(ourComment(21)[0]!.body, repo)
    const applied = settingsEntry(ourComment(22)[0]!.body, repo)
    const line =
      `changed: manifest "${repo.manifests.config}" ${settingsKey} (modified): ` +
      `reviewed ${reviewed.old} → ${reviewed.new}, applying ${applied.new} → ${reviewed.new}`
    for (const text of [race.summary, ourComment(21)[0]!.body]) {
      expect(text).toContain(`\n- ${line}\n`)
      expect(text.match(/^- (added|changed|missing): /gm)).toHaveLength(1)
    }
    expect(race.stdout).toContain(line)
    expect(race.summary).toContain('is not the one reviewed on #21')
    expect(ourComment(21)[0]!.body).toContain('### ✅ Applied, Diff not reviewed')
  }, 600_000)

  it('apply under warn, naming what was not reviewed, ignore forged comments and warn once without pull-requests: write', async () => {
    const repo = writeFixtureRepo()
    const c0 = commitAll(repo.dir, 'initial')
    expect((await mergeJob(repo, c0, 'off')).status).toBe(0)

    writeConfig(repo, 'reviewed')
    const p3 = commitNext(repo.dir, 'PR 3')
    const diff = await diffJob(repo, 13, p3)
    expect(diff.status).toBe(0)
    const digest = /Diff digest `([0-9a-f]{12})`/.exec(ourComment(13)[0]!.body)?.[1]
    expect(digest).toBeDefined()
    writeConfig(repo, 'pushed later')
    const p3b = commitNext(repo.dir, 'PR 3, a commit after its last Diff')
    merged(13, p3b, { style: 'rebase', commits: [p3b] })
    emulator.addComment({
      owner: 'acme',
      repo: 'deploy',
      issue: 14,
      body: ourComment(13)[0]!.body,
      user: { login: 'mallory', type: 'User' }
    })

    const warned = await mergeJob(repo, p3b, 'warn', 'read-only-token')
    expect(warned.status).toBe(0)
    expect(warned.stdout).toContain(`the Diff on #13 was computed for ${p3.slice(0, 12)}`)
    expect(warned.stdout).toContain(`changed: manifest "${repo.manifests.config}"`)
    expect(warned.stdout).toContain('lacks `permissions: pull-requests: write`')
    expect(warned.outputs).toMatchObject({ modified: '1' })

    writeConfig(repo, 'merged from #14')
    const p4 = commitNext(repo.dir, 'PR 14')
    merged(14, p4, { style: 'rebase', commits: [p4] })
    const forged = await mergeJob(repo, p4, 'require')
    expect(forged.status).toBe(1)
    expect(forged.stdout).toContain('pull request #14 has no Diff comment of this action')
  }, 600_000)
})
