/**
 * The stale-commit guard with real git history and the real API server, through the command
 * line: apply at B, then at its parent A (a re-run of an old workflow) → refused naming both
 * commits; a diverged commit → refused; --allow-older-commit → applied with a warning.
 */
import { describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runCliInProcess } from '../../support/cli.js'
import { adminKubeconfig, uniqueName } from '../../support/cluster.js'
import { commitAll, commitNext, git } from '../../support/git-repo.js'

function writeRepo(dir: string, manifest: string, ns: string, value: string): void {
  const base = path.join(dir, 'base')
  mkdirSync(base, { recursive: true })
  writeFileSync(
    path.join(base, 'cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${ns}\ndata:\n  value: "${value}"\n`
  )
  writeFileSync(path.join(base, 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
  writeFileSync(
    path.join(dir, 'tazuna.yaml'),
    `spec:\n  manifests:\n    - name: ${manifest}\n      type: kustomize\n      path: ./base\n`
  )
}

const apply = (dir: string, ...flags: string[]) =>
  runCliInProcess(['apply', '--sync', '-f', path.join(dir, 'tazuna.yaml'), ...flags], {
    KUBECONFIG: adminKubeconfig(),
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN
  })

describe('the stale-commit guard on the command line', () => {
  it('refuses a re-run at an older commit and a diverged one; the override applies with a warning', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tazuna-commit-guard-'))
    const [m, ns] = [uniqueName('guard'), 'default']
    writeRepo(dir, m, ns, 'a')
    const a = commitAll(dir, 'A')
    writeRepo(dir, m, ns, 'b')
    const b = commitNext(dir, 'B')

    expect(await apply(dir)).toMatchObject({ code: 0 })

    git(dir, 'checkout', '-q', a)
    const older = await apply(dir)
    expect(older.code).toBe(1)
    expect(older.stderr).toContain(
      `error: refusing to apply commit ${a}: State of manifest "${m}" records commit ${b}, which is not an ancestor of it`
    )
    expect(older.stderr).not.toContain('synced resource')

    git(dir, 'checkout', '-q', '-b', 'side', a)
    writeRepo(dir, m, ns, 'd')
    const d = commitNext(dir, 'D')
    const diverged = await apply(dir)
    expect(diverged.code).toBe(1)
    expect(diverged.stderr).toContain(
      `refusing to apply commit ${d}: State of manifest "${m}" records commit ${b}`
    )

    const forced = await apply(dir, '--allow-older-commit')
    expect(forced.code).toBe(0)
    expect(forced.stderr).toContain(
      'allow-older-commit is set, applying anyway: refusing to apply commit'
    )
    expect(forced.stderr).toContain(`diff=modified resource=/v1/ConfigMap/${ns}/settings`)

    git(dir, 'checkout', '-q', 'main')
    const back = await apply(dir)
    expect(back.code).toBe(1)
    expect(back.stderr).toContain(`records commit ${d}, which is not an ancestor`)
  })
})
