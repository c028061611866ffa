/**
 * The review gate on the command line (README.md#gated-deploys), with real git history and the
 * real API server: `state diff --json` writes the reviewed Diff; `apply --sync --require-diff`
 * refuses when the Diff to apply differs (nothing sent, State untouched) and applies when it is
 * the same.
 */
import { describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runCliInProcess } from '../../support/cli.js'
import { adminKubeconfig, uniqueName } from '../../support/cluster.js'
import { commitAll, commitNext } from '../../support/git-repo.js'

function writeRepo(dir: string, manifest: string, value: string): void {
  const base = path.join(dir, 'base')
  mkdirSync(base, { recursive: true })
  writeFileSync(
    path.join(base, 'cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${manifest}\n  namespace: default\ndata:\n  value: "${value}"\n`
  )
  writeFileSync(path.join(base, 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
  writeFileSync(
    path.join(dir, 'tazuna.yaml'),
    `spec:\n  manifests:\n    - name: ${manifest}\n      type: kustomize\n      path: ./base\n`
  )
}

const cli = (dir: string, ...argv: string[]) =>
  runCliInProcess([...argv, '-f', path.join(dir, 'tazuna.yaml')], {
    KUBECONFIG: adminKubeconfig(),
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN
  })

describe('apply --require-diff', () => {
  it('refuses a Diff other than the reviewed one and applies the reviewed one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tazuna-require-diff-'))
    const m = uniqueName('gate')
    writeRepo(dir, m, 'a')
    commitAll(dir, 'A')
    expect(await cli(dir, 'apply', '--sync')).toMatchObject({ code: 0 })

    writeRepo(dir, m, 'b')
    commitNext(dir, 'B')
    const diff = await cli(dir, 'state', 'diff', '--json')
    expect(diff.code).toBe(0)
    const reviewed = path.join(dir, 'reviewed.json')
    writeFileSync(reviewed, diff.stdout)
    expect(JSON.parse(diff.stdout)).toMatchObject({ kind: 'tazuna-action/reviewed-diff' })

    writeRepo(dir, m, 'c') // changed after the review, not committed
    const refused = await cli(dir, 'apply', '--sync', '--require-diff', reviewed)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`refusing to apply (--require-diff ${reviewed})`)
    expect(refused.stderr).toContain(
      `changed: manifest "${m}" ${m}//v1/ConfigMap/default/${m} (modified)`
    )
    expect(refused.stderr).not.toContain('synced resource')
    const state = await cli(dir, 'state', 'diff')
    expect(state.stdout).toContain('modified')

    writeRepo(dir, m, 'b')
    const applied = await cli(dir, 'apply', '--sync', '--require-diff', reviewed)
    expect(applied.stderr).toContain(`Applies the Diff reviewed on ${reviewed}`)
    expect(applied.code).toBe(0)
    expect((await cli(dir, 'state', 'diff')).stdout).not.toContain('modified')
  })
})
