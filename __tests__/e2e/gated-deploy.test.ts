/**
 * Gated deploys end to end (README.md#gated-deploys): the pull request's Diff job records the
 * reviewed Diff in its comment, and the merge run — `node index.js` on push, the real test
 * cluster, the loopback GitHub emulator answering commits/{sha}/pulls — compares before it
 * applies and reports the apply on the pull request. The workspace is a real git repository,
 * so the stale-commit guard reads its history.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node'
import { GitHubEmulator } from '../github-emulator/server.js'
import { writeConfig, writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext } from '../support/git-repo.js'
import { buildFreshDist, pullRequestPayload, pushPayload, runAction } from './harness.js'

let dist: string
let emulator: GitHubEmulator
const admin = (): string => process.env.TAZUNA_TEST_ADMIN_KUBECONFIG!
const reader = (): string => process.env.TAZUNA_TEST_READER_KUBECONFIG!
/** commits/{sha}/pulls as GitHub answers it, set by each test. */
const pullsOf = new Map<string, Record<string, unknown>[]>()

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({
    tokens: {
      'gh-token': { login: 'github-actions[bot]', type: 'Bot', integration: true },
      'read-only-token': {
        login: 'github-actions[bot]',
        type: 'Bot',
        integration: true,
        readOnly: true
      }
    },
    pullsOfCommit: (sha) => pullsOf.get(sha) ?? []
  })
}, 300_000)
afterAll(async () => emulator?.close())

/** A merged pull request as commits/{sha}/pulls lists it. */
function merged(number: number, head: string, mergeCommit: string): void {
  pullsOf.set(mergeCommit, [
    {
      number,
      html_url: `https://github.com/acme/deploy/pull/${number}`,
      state: 'closed',
      head: { sha: head },
      merged_at: '2026-11-27T00:00:00Z',
      merge_commit_sha: mergeCommit
    }
  ])
}

function diffJob(repo: FixtureRepo, number: number, head: string) {
  return runAction({
    dist,
    workspace: repo.dir,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: reader(),
      'github-token': 'gh-token',
      'content-diff': 'off'
    },
    eventName: 'pull_request',
    payload: pullRequestPayload({ number, headSha: head }),
    sha: head,
    apiUrl: emulator.url
  })
}

function mergeJob(repo: FixtureRepo, commit: string, mode: string, token = 'gh-token') {
  return runAction({
    dist,
    workspace: repo.dir,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: admin(),
      'github-token': token,
      'reviewed-diff': mode
    },
    eventName: 'push',
    payload: pushPayload(commit),
    sha: commit,
    apiUrl: emulator.url
  })
}

/** resourceVersions of the settings ConfigMap and of the config manifest's State. */
async function versions(repo: FixtureRepo): Promise<string[]> {
  const kc = new KubeConfig()
  kc.loadFromFile(admin())
  const core = kc.makeApiClient(CoreV1Api)
  const read = (name: string, namespace: string) =>
    core.readNamespacedConfigMap({ name, namespace }).then((cm) => cm.metadata!.resourceVersion!)
  return Promise.all([
    read('settings', repo.namespace),
    read(`tazuna-state-${repo.manifests.config}`, 'tazuna')
  ])
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

    merged(12, p2, p2) // a rebase merge: the pushed commit is the pull request's last
    const second = await mergeJob(repo, p2, 'require')
    expect(second.status).toBe(0)
    expect(second.summary).toContain('Applies the Diff reviewed on #12')
    expect(ourComment(12)[0]!.body).toContain('### ✅ Applied, reviewed Diff')

    writeConfig(repo, 'pr1')
    const m1 = commitNext(repo.dir, 'Merge PR 1')
    merged(11, p1, m1) // a merge commit: the pushed commit is not the pull request's head
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
    merged(13, p3b, p3b)
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

    pullsOf.set(
      p3b,
      pullsOf.get(p3b)!.map((p) => ({ ...p, number: 14 }))
    )
    const forged = await mergeJob(repo, p3b, 'require')
    expect(forged.status).toBe(1)
    expect(forged.stdout).toContain('pull request #14 has no Diff comment of this action')
  }, 600_000)
})
