// `plan` against the real Tazuna CLI (TAZUNA_BIN) on the test cluster, on the same projects:
// byte-identical text where Tazuna's client-side diff and our dry-run diff agree on what
// changes (creates; applied ConfigMaps; the `Manifest:`, `+` and `~` lines after edits), and
// the documented divergence where they do not (a Deployment's server defaults: Tazuna lists it
// as changed, we do not). The diff bodies differ by design (go-cmp text against our unified
// diff; docs/compatibility.md#plan). Skipped, with the reason, when TAZUNA_BIN is not set.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import { planCommand } from '../../../src/cli/plan-command.js'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { runCliProcess, type CliResult } from '../../support/cli.js'
import {
  adminKubeconfig,
  adminSession,
  configMap,
  namespace,
  uniqueName
} from '../../support/cluster.js'
import {
  deployment,
  runCommand,
  writeProject,
  type ProjectManifest
} from '../../support/cli-project.js'
import { describeWithTazuna, tazunaBin, tazunaSkipReason } from './tools.js'

if (tazunaSkipReason !== '') process.stderr.write(`interop: plan comparisons${tazunaSkipReason}\n`)

let admin: KubeSession | undefined
beforeAll(async () => {
  if (tazunaSkipReason === '') admin = await adminSession()
})
afterAll(() => admin?.close())

function tazunaPlan(file: string): Promise<CliResult> {
  return runCliProcess(tazunaBin ?? 'tazuna', ['plan', '-f', file], {
    cwd: path.dirname(file),
    env: { ...process.env, KUBECONFIG: adminKubeconfig() }
  })
}

/** Both plans of the project, ours and Tazuna's. */
async function plans(file: string): Promise<{ ours: CliResult; theirs: CliResult }> {
  const ours = await runCommand(planCommand, file)
  const theirs = await tazunaPlan(file)
  expect(ours.code).toBe(0)
  expect(theirs.code).toBe(0)
  return { ours, theirs }
}

const headerLines = (stdout: string): string[] =>
  stdout.split('\n').filter((line) => !line.startsWith('    '))

describeWithTazuna(`plan: the action's CLI and Tazuna's${tazunaSkipReason}`, () => {
  it('print byte-identical plans for creates, for applied ConfigMaps, and the same headers after edits', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'interop-plan-'))
    const ns = uniqueName('ns')
    const [app, infra] = [uniqueName('app'), uniqueName('infra')]
    const manifests = (level: string, extra: ProjectManifest['objects'] = []) => [
      {
        name: infra,
        objects: [configMap(ns, 'base', { k: 'v' }), configMap(ns, 'other', { k: 'v' })]
      },
      { name: app, objects: [configMap(ns, 'settings', { level }), ...extra] }
    ]
    const file = writeProject(dir, manifests('info'))

    const fresh = await plans(file)
    expect(fresh.ours.stdout).toBe(fresh.theirs.stdout)
    expect(fresh.ours.stdout).toContain(`  + ConfigMap/${ns}/settings (to be created)\n`)

    await admin!.cluster.apply(namespace(ns))
    expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
    const applied = await plans(file)
    expect(applied.ours.stdout).toBe('No changes detected.\n')
    expect(applied.theirs.stdout).toBe(applied.ours.stdout)

    writeProject(dir, manifests('debug', [configMap(ns, 'added', { k: 'v' })]))
    const edited = await plans(file)
    expect(headerLines(edited.ours.stdout)).toEqual([
      `Manifest: ${app}`,
      `  + ConfigMap/${ns}/added (to be created)`,
      `  ~ ConfigMap/${ns}/settings`,
      '',
      ''
    ])
    expect(headerLines(edited.theirs.stdout)).toEqual(headerLines(edited.ours.stdout))
  })

  it('print byte-identical creates for a Namespace, a ClusterRole, a Secret, a Deployment, layers and an unnamed manifest', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'interop-plan-kinds-'))
    const ns = uniqueName('ns')
    const [app, infra] = [uniqueName('app'), uniqueName('infra')]
    const file = writeProject(dir, [
      {
        name: infra,
        objects: [
          namespace(ns),
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: `${ns}-reader` },
            rules: []
          }
        ]
      },
      {
        name: app,
        objects: [
          deployment(ns, 'web', 1),
          configMap(ns, 'z-last', { k: 'v' }),
          configMap(ns, 'a-first', { k: 'v' }),
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'db', namespace: ns },
            stringData: { password: 'interop-plan-pw' }
          }
        ]
      },
      { name: 'unnamed', objects: [configMap(ns, 'never', { k: 'v' })] }
    ])
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace(`    - name: ${app}\n`, `    - name: ${app}\n      dependsOn: [${infra}]\n`)
        .replace('    - name: unnamed\n', '    - name: ""\n')
    )
    const { ours, theirs } = await plans(file)
    expect(ours.stdout).toBe(theirs.stdout)
    expect(ours.stdout).toContain(`  + ClusterRole/${ns}-reader (to be created)\n`)
    expect(ours.stdout).not.toContain('never')
  })

  it("diverge on an applied, unchanged Deployment: Tazuna's client-side diff lists its server defaults, ours does not", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'interop-plan-defaults-'))
    const ns = uniqueName('ns')
    const name = uniqueName('app')
    await admin!.cluster.apply(namespace(ns))
    const file = writeProject(dir, [{ name, objects: [deployment(ns, 'web', 1)] }])
    expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
    const { ours, theirs } = await plans(file)
    expect(ours.stdout).toBe('No changes detected.\n')
    expect(headerLines(theirs.stdout)).toEqual([
      `Manifest: ${name}`,
      `  ~ Deployment/${ns}/web`,
      '',
      ''
    ])
  })
})
