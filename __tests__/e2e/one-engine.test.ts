/**
 * The command line and the action drive one engine: on one repository and one cluster,
 * `tazuna-action check`, `state diff` and `apply --sync` (dist/cli.js) and the action's check,
 * diff and apply modes (`node dist/index.js`, as the runner starts it) must report the same
 * things, and each must see the State the other one wrote.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
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
      PATH: `${process.env.TAZUNA_TEST_TOOLS_DIR ?? ''}:${dirname(process.execPath)}:/usr/bin:/bin`,
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
