// `tazuna-action plan` end to end on the real API server with real kustomize: a layered
// configuration (manifest `app` dependsOn `infra`), Tazuna's layout (spec 10.4: `Manifest:`
// groups, creates first then by key, `~` with the diff indented four spaces, `No changes
// detected.`). The layout is Tazuna's pkg/runner/plan.go; the diff body is ours (the live
// object against the server's dry run), written by hand from the objects below.
import { fingerprint } from '../../support/secret-fingerprint.js'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import { planCommand } from '../../../src/cli/plan-command.js'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import {
  deployment,
  runCommand,
  writeProject,
  type ProjectManifest
} from '../../support/cli-project.js'
import { adminSession, configMap, uniqueName } from '../../support/cluster.js'
import { runCliInProcess } from '../../support/cli.js'

let admin: KubeSession
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

const FIRST_PASSWORD = 'plan-first-pw-3b7e'
const SECOND_PASSWORD = 'plan-second-pw-81aa'

const b64 = (s: string): string => Buffer.from(s).toString('base64')

function secret(ns: string, password: string): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: ns },
    type: 'Opaque',
    stringData: { password }
  }
}

/** tazuna.yaml with `infra` (the Namespace, a ConfigMap) and `app` dependsOn `infra`. */
function layeredProject(dir: string, app: ProjectManifest, infra: ProjectManifest): string {
  const file = writeProject(dir, [infra, app])
  const text = readFileSync(file, 'utf8').replace(
    `    - name: ${app.name}\n`,
    `    - name: ${app.name}\n      dependsOn: [${infra.name}]\n`
  )
  writeFileSync(file, text)
  return file
}

function project(version: 'first' | 'second') {
  return (dir: string, ns: string, names: { app: string; infra: string }) =>
    layeredProject(
      dir,
      {
        name: names.app,
        objects: [
          configMap(ns, 'settings', { level: version === 'first' ? 'info' : 'debug', mode: 'a' }),
          deployment(ns, 'web', version === 'first' ? 1 : 3),
          secret(ns, version === 'first' ? FIRST_PASSWORD : SECOND_PASSWORD),
          ...(version === 'second' ? [configMap(ns, 'created', { k: 'v' })] : [])
        ]
      },
      {
        name: names.infra,
        objects: [
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
          configMap(ns, 'base', { k: 'v' })
        ]
      }
    )
}

const changed = (lines: readonly string[]): string[] =>
  lines.filter((l) => /^ {4}[-+]/.test(l)).map((l) => l.slice(4))

describe('plan', () => {
  it("prints Tazuna's layout: creates, then No changes detected after apply, then updates with diffs", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-plan-'))
    const ns = uniqueName('ns')
    const names = { app: uniqueName('app'), infra: uniqueName('infra') }
    const file = project('first')(dir, ns, names)

    const fresh = await runCommand(planCommand, file)
    expect(fresh).toMatchObject({ code: 0 })
    expect(fresh.stdout).toBe(
      [
        `Manifest: ${names.infra}`,
        `  + ConfigMap/${ns}/base (to be created)`,
        `  + Namespace/${ns} (to be created)`,
        '',
        `Manifest: ${names.app}`,
        `  + ConfigMap/${ns}/settings (to be created)`,
        `  + Deployment/${ns}/web (to be created)`,
        `  + Secret/${ns}/db (to be created)`,
        '',
        ''
      ].join('\n')
    )

    expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
    // The Deployment's server defaults (strategy, template defaults, ...) are no change: the
    // dry run has them too. Tazuna's client-side diff lists it here.
    expect(await runCommand(planCommand, file)).toEqual({
      code: 0,
      stdout: 'No changes detected.\n',
      stderr: ''
    })

    project('second')(dir, ns, names)
    const edited = await runCommand(planCommand, file)
    expect(edited.code).toBe(0)
    const lines = edited.stdout.split('\n')
    expect(lines.filter((l) => !l.startsWith('    '))).toEqual([
      `Manifest: ${names.app}`,
      `  + ConfigMap/${ns}/created (to be created)`,
      `  ~ ConfigMap/${ns}/settings`,
      `  ~ Deployment/${ns}/web`,
      `  ~ Secret/${ns}/db`,
      '',
      ''
    ])
    const block = (header: string): string[] => {
      const start = lines.indexOf(header) + 1
      const end = lines.findIndex((l, i) => i >= start && !l.startsWith('    '))
      return lines.slice(start, end)
    }
    expect(block(`  ~ ConfigMap/${ns}/settings`)).toEqual([
      '    @@ -1,6 +1,6 @@',
      '     apiVersion: v1',
      '     data:',
      '    -  level: info',
      '    +  level: debug',
      '       mode: a',
      '     kind: ConfigMap',
      '     metadata:'
    ])
    expect(changed(block(`  ~ Deployment/${ns}/web`))).toEqual(['-  replicas: 1', '+  replicas: 3'])
    expect(changed(block(`  ~ Secret/${ns}/db`))).toEqual([
      `-  password: ${fingerprint(b64(FIRST_PASSWORD))}`,
      `+  password: ${fingerprint(b64(SECOND_PASSWORD))}`
    ])
    for (const planted of [FIRST_PASSWORD, SECOND_PASSWORD]) {
      expect(edited.stdout + edited.stderr).not.toContain(planted)
      expect(edited.stdout).not.toContain(b64(planted))
    }
    // Read-only: the objects are as applied.
    const live = await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'settings'
    })
    expect(live?.data).toEqual({ level: 'info', mode: 'a' })
    expect(
      await admin.cluster.get({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: ns,
        name: 'created'
      })
    ).toBeUndefined()
  })

  it('colours on a terminal only, and never with NO_COLOR', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-plan-colour-'))
    const ns = uniqueName('ns')
    const file = project('first')(dir, ns, { app: uniqueName('app'), infra: uniqueName('infra') })
    const esc = '\u001b'
    const tty = await runCommand(planCommand, file, { tty: true })
    expect(tty.stdout).toContain(`${esc}[32m  + Namespace/${ns} (to be created)${esc}[0m\n`)
    const noColor = await runCommand(planCommand, file, {
      tty: true,
      env: { KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG, NO_COLOR: '1' }
    })
    const piped = await runCommand(planCommand, file)
    expect(noColor.stdout).not.toContain(esc)
    expect(piped.stdout).not.toContain(esc)
    expect(noColor.stdout).toBe(piped.stdout)
  })

  it('refuses a cluster whose context does not match context_matches, and an undeclared -e', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-plan-guard-'))
    const ns = uniqueName('ns')
    const file = project('first')(dir, ns, { app: uniqueName('app'), infra: uniqueName('infra') })
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('spec:\n', 'spec:\n  context_matches: [no-such-context]\n')
    )
    const refused = await runCommand(planCommand, file)
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toMatch(
      /^error: current context ".+" does not match any of context_matches patterns \["no-such-context"\]\n$/
    )
    const undeclared = await runCliInProcess(['plan', '-f', file, '-e', 'nope'], {
      KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG
    })
    expect(undeclared.code).toBe(1)
    expect(undeclared.stderr).toContain(
      'environment "nope" is not declared under spec.environments'
    )
  })
})
