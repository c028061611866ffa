/**
 * The command line and the action drive one engine: on one repository and one cluster,
 * `tazuna-action check`, `state diff` and `apply --sync` (dist/cli.js) and the action's check,
 * diff and apply modes (`node dist/index.js`, as the runner starts it) must report the same
 * things, and each must see the State the other one wrote.
 */
import { pathWithoutRenderers } from '../support/runner-path.js'
import { beforeAll, describe, expect, it } from '@jest/globals'
import { CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { openKubeSession } from '../../src/adapters/kube/session.js'
import { lockNameFor, type LeaseWrite } from '../../src/apply/lease-lock.js'
import { runCliProcess } from '../support/cli.js'
import { adminKubeconfig as admin } from '../support/cluster.js'
import { writeConfig, writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { buildFreshDist, pullRequestPayload, pushPayload, runAction } from './harness.js'

let dist: string
beforeAll(() => {
  dist = buildFreshDist()
}, 300_000)

const sha = (n: number): string => n.toString(16).padStart(40, 'c')

/** `node dist/cli.js <args>` in the repository, against the test cluster. */
function cli(repo: FixtureRepo, ...args: string[]) {
  return runCliProcess(process.execPath, [join(dist, 'cli.js'), ...args], {
    cwd: repo.dir,
    env: {
      PATH: pathWithoutRenderers(),
      HOME: repo.dir,
      KUBECONFIG: admin(),
      ...(process.env.KUSTOMIZE_BIN ? { KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN } : {})
    }
  })
}

/** The action in `mode`, returning its outputs and report.txt (the `state diff` text). */
async function action(repo: FixtureRepo, mode: 'check' | 'diff' | 'apply', commit: number) {
  const result = await runAction({
    dist,
    workspace: repo.dir,
    inputs: { config: 'tazuna.yaml', kubeconfig: admin(), mode, 'github-token': '' },
    eventName: mode === 'apply' ? 'push' : 'pull_request',
    payload:
      mode === 'apply'
        ? pushPayload(sha(commit))
        : pullRequestPayload({ number: 7, headSha: sha(commit) }),
    sha: sha(commit),
    apiUrl: 'http://127.0.0.1:9'
  })
  if (result.status !== 0) throw new Error(`action ${mode} failed:\n${result.stdout}`)
  const reportPath = result.outputs['report-path']!
  const text = readFileSync(join(dirname(reportPath), 'report.txt'), 'utf8')
  return { ...result, text }
}

describe('the command line and the action on one repository', () => {
  it('agree on check, state diff and apply, and read each other’s State', async () => {
    const repo = writeFixtureRepo()

    const checked = await cli(repo, 'check')
    expect(checked).toMatchObject({ code: 0, stdout: 'ok\n' })
    const actionChecked = await action(repo, 'check', 1)
    expect(actionChecked.stdout).toContain('tazuna check: ok')
    expect(actionChecked.outputs['has-changes']).toBe('false')

    // Nothing recorded yet: both list every object as added, with the same text.
    const firstDiff = await cli(repo, 'state', 'diff')
    expect(firstDiff.code).toBe(0)
    expect(firstDiff.stdout).toContain('  added ')
    const actionFirstDiff = await action(repo, 'diff', 2)
    expect(actionFirstDiff.text).toBe(firstDiff.stdout)
    expect(actionFirstDiff.outputs).toMatchObject({ added: '5', modified: '0', removed: '0' })

    // The CLI applies; the action's Diff then finds nothing to do, as the CLI's does.
    const applied = await cli(repo, 'apply', '--sync')
    expect(applied.code).toBe(0)
    expect((await cli(repo, 'state', 'diff')).stdout).toBe('No changes detected.\n')
    const actionClean = await action(repo, 'diff', 3)
    expect(actionClean.text).toBe('No changes detected.\n')
    expect(actionClean.outputs['has-changes']).toBe('false')

    // A change: both report the same one modified entry; the action applies it, and the CLI
    // then sees no change left.
    writeConfig(repo, 'bonjour')
    const changed = await cli(repo, 'state', 'diff')
    expect(changed.stdout).toMatch(
      / {2}modified +\/v1\/ConfigMap\/e2e-\w+\/settings +[0-9a-f]{64}\n/
    )
    const actionChanged = await action(repo, 'diff', 4)
    expect(actionChanged.text).toBe(changed.stdout)
    expect(actionChanged.outputs).toMatchObject({
      modified: '1',
      'changed-manifests': repo.manifests.config
    })
    const actionApplied = await action(repo, 'apply', 5)
    expect(actionApplied.outputs).toMatchObject({ modified: '1', added: '0' })
    expect((await cli(repo, 'state', 'diff')).stdout).toBe('No changes detected.\n')

    // `state list` shows what the action recorded last, with the action's commit.
    const listed = await cli(repo, 'state', 'list')
    expect(listed.stdout).toContain(`Manifest: ${repo.manifests.config}\n`)
    expect(listed.stdout).toContain(`/v1/ConfigMap/${repo.namespace}/settings`)
  })
})

function api() {
  const kc = new KubeConfig()
  kc.loadFromFile(admin())
  return { leases: kc.makeApiClient(CoordinationV1Api), core: kc.makeApiClient(CoreV1Api) }
}

/** Creates a Lease as another holder would (through our Lease adapter, as a run does). */
async function plantLease(name: string, lease: LeaseWrite): Promise<void> {
  const session = await openKubeSession({ env: { KUBECONFIG: admin() } })
  try {
    expect(await session.leases.create(name, lease)).not.toBe('conflict')
  } finally {
    session.close()
  }
}

const lockOf = (repo: FixtureRepo): string => lockNameFor(Object.values(repo.manifests), '')

async function leaseHolder(name: string): Promise<string | undefined> {
  try {
    const lease = await api().leases.readNamespacedLease({ name, namespace: 'tazuna' })
    return lease.spec?.holderIdentity
  } catch {
    return undefined
  }
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe('the run lock', () => {
  it('makes the action wait for a CLI apply of the same configuration, then apply after it', async () => {
    const repo = writeFixtureRepo({ extraConfigMaps: 1500 })
    const lock = lockOf(repo)
    const cliRun = cli(repo, 'apply', '--sync')
    await waitFor('the CLI to take the lock', async () =>
      ((await leaseHolder(lock)) ?? '').startsWith('tazuna-action cli (pid ')
    )
    const actionRun = await action(repo, 'apply', 9)
    const cliResult = await cliRun
    expect(cliResult.code).toBe(0)
    expect(actionRun.stdout).toMatch(
      new RegExp(`waiting for lock ${lock}, held by tazuna-action cli \\(pid \\d+\\) on `)
    )
    expect(actionRun.stdout).toContain(`lock ${lock} taken by github-actions `)
    // The action read State only after the CLI had saved all of it: had the two interleaved,
    // the action would have found objects without State and added them again.
    expect(cliResult.stderr).toContain(
      `diff=added resource=/v1/ConfigMap/${repo.namespace}/settings`
    )
    expect(actionRun.outputs).toMatchObject({ added: '0', modified: '0' })
    expect(await leaseHolder(lock)).toBeUndefined()
  })

  it('lets the next run proceed once the Lease of a killed holder has expired', async () => {
    const repo = writeFixtureRepo()
    const lock = lockOf(repo)
    await plantLease(lock, { holder: 'killed run', durationSeconds: 60, now: Date.now() - 55_000 })
    const started = Date.now()
    const result = await cli(repo, 'apply', '--sync')
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(`waiting for lock ${lock}, held by killed run (renewed`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000)
    expect(await leaseHolder(lock)).toBeUndefined()
  })

  it('fails after lock-timeout naming the holder, and applies nothing', async () => {
    const repo = writeFixtureRepo()
    const lock = lockOf(repo)
    await plantLease(lock, {
      holder: 'a long deploy on runner-7',
      durationSeconds: 3600,
      now: Date.now()
    })
    const result = await cli(repo, 'apply', '--sync', '--lock-timeout', '3s')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      new RegExp(`error: lock ${lock} is held by a long deploy on runner-7 \\(renewed \\d+ s ago`)
    )
    expect(result.stderr).not.toContain('synced resource')
    expect(await leaseHolder(lock)).toBe('a long deploy on runner-7')
    await api().leases.deleteNamespacedLease({ name: lock, namespace: 'tazuna' })
  })
})
