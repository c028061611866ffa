/**
 * `wait: true` as GitHub runs the action (`node dist/index.js`, docs/health.md#reporting), on the
 * test cluster's controllers and kwok: a merge whose Deployments become Ready says "Applied and
 * healthy" first on its pull request, with outputs healthy/unhealthy; a merge whose `web` Pods
 * cannot pull their image says which object is unhealthy and why, and fails the step (that the
 * next layer is never sent is shown by __tests__/integration/health/wait.test.ts). Without
 * `wait`, the section says health was not checked.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GitHubEmulator } from '../github-emulator/server.js'
import { writeFixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext } from '../support/git-repo.js'
import {
  buildFreshDist,
  gatedJobs,
  gatedTokens,
  kubeconfigs,
  pushPayload,
  runAction
} from './harness.js'

let emulator: GitHubEmulator
let dist: string
let jobs: ReturnType<typeof gatedJobs>

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({ tokens: gatedTokens })
  jobs = gatedJobs(dist, emulator.url)
}, 300_000)
afterAll(async () => emulator?.close())

const ourComment = (issue: number) =>
  emulator.comments.filter((c) => c.issue === issue && c.user.login === 'github-actions[bot]')

function mergeJob(dir: string, sha: string, inputs: Record<string, string>) {
  return runAction({
    dist,
    workspace: dir,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: kubeconfigs.admin(),
      'github-token': 'gh-token',
      'reviewed-diff': 'warn',
      ...inputs
    },
    eventName: 'push',
    payload: pushPayload(sha),
    sha,
    apiUrl: emulator.url
  })
}

describe('wait: true', () => {
  it('reports healthy, then an unhealthy Deployment with its cause, on the pull request', async () => {
    const repo = writeFixtureRepo()
    const c0 = commitAll(repo.dir, 'initial')
    emulator.registerPull({ owner: 'acme', repo: 'deploy', number: 51, headCommits: [c0] })
    expect((await jobs.diffJob(repo.dir, 51, c0)).status).toBe(0)
    emulator.registerPull({
      owner: 'acme',
      repo: 'deploy',
      number: 51,
      headCommits: [c0],
      merge: { style: 'merge', commits: [c0] }
    })
    const healthy = await mergeJob(repo.dir, c0, { wait: 'true' })
    if (healthy.status !== 0)
      throw new Error(`merge job exited ${healthy.status}:\n${healthy.stdout}`)
    expect(ourComment(51)[0]!.body).toMatch(
      /^### ✅ Applied and healthy in \d+ (ms|s), reviewed Diff$/m
    )
    expect(healthy.outputs).toMatchObject({ healthy: 'true', unhealthy: '0' })
    // The last layer (web and worker): both Deployments and the Service, with their times.
    expect(healthy.summary).toMatch(
      /\*\*Healthy\*\* in [\d.]+ m?s: 3 objects Current \(`Deployment [a-z0-9-]+\/(web|worker)` [\d.]+ m?s, /
    )
    const report = JSON.parse(readFileSync(healthy.outputs['report-path']!, 'utf8')) as {
      health: { healthy: boolean }[]
    }
    expect(report.health.map((h) => h.healthy)).toEqual([true, true, true])

    // web's Pods now fail to pull their image (kwok's image-pull-backoff Stage).
    const file = join(repo.dir, 'manifests/web/deployment.yaml')
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'labels: {app: web}',
        "labels: {app: web, 'tazuna.test/failure': image-pull-backoff}"
      )
    )
    const c1 = commitNext(repo.dir, 'web: an image that does not exist')
    emulator.registerPull({ owner: 'acme', repo: 'deploy', number: 52, headCommits: [c1] })
    expect((await jobs.diffJob(repo.dir, 52, c1)).status).toBe(0)
    emulator.registerPull({
      owner: 'acme',
      repo: 'deploy',
      number: 52,
      headCommits: [c1],
      merge: { style: 'merge', commits: [c1] }
    })
    const broken = await mergeJob(repo.dir, c1, { wait: 'true', 'wait-timeout': '15s' })
    expect(broken.status).toBe(1)
    expect(broken.outputs).toMatchObject({ healthy: 'false', unhealthy: '1' })
    const body = ourComment(52)[0]!.body
    expect(body).toMatch(/^### ❌ Applied, 1 of 1 objects unhealthy \(`web`\), reviewed Diff$/m)
    expect(body).toMatch(/Deployment [a-z0-9-]+\/web \(manifest [a-z0-9-]+-web\): InProgress/)
    expect(body).toMatch(
      /pod web-[a-z0-9]+-[a-z0-9]+\/web: ImagePullBackOff \(image registry\.example\/web:1\.0\)/
    )
    expect(broken.stdout).toContain('not Current within 15s: Deployment')
  })

  it('says on the pull request that health was not checked without wait', async () => {
    const repo = writeFixtureRepo()
    const c0 = commitAll(repo.dir, 'initial')
    emulator.registerPull({ owner: 'acme', repo: 'deploy', number: 53, headCommits: [c0] })
    expect((await jobs.diffJob(repo.dir, 53, c0)).status).toBe(0)
    emulator.registerPull({
      owner: 'acme',
      repo: 'deploy',
      number: 53,
      headCommits: [c0],
      merge: { style: 'merge', commits: [c0] }
    })
    const run = await mergeJob(repo.dir, c0, {})
    expect(run.status).toBe(0)
    expect(ourComment(53)[0]!.body).toContain('Health was not checked (input `wait` is false)')
    expect(run.outputs).toMatchObject({ healthy: '', unhealthy: '' })
  })
})
