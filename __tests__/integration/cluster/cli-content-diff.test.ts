// `tazuna-action state diff --content[=base|live] [--base <ref>]` end to end: real git
// repositories (a base commit, then edits in the working tree or on a feature branch of a clone),
// real kustomize, State applied on the real API server. Expected diff lines are written by hand
// from the objects below: the reviewable form is the object with keys sorted, as YAML
// (src/report/content-form.ts), and a Secret value is `(sensitive value, fingerprint <12 hex>)`,
// keyed by the test key runCliInProcess passes (support/secret-fingerprint.ts).
import { fingerprint } from '../../support/secret-fingerprint.js'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { runCommand, writeProject } from '../../support/cli-project.js'
import {
  adminKubeconfig,
  adminSession,
  configMap,
  namespace,
  uniqueName
} from '../../support/cluster.js'
import { commitAll, commitNext, git } from '../../support/git-repo.js'

let admin: KubeSession
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

const FIRST_PASSWORD = 'first-pw-planted-7c1d'
const SECOND_PASSWORD = 'second-pw-planted-9e2f'

function secret(ns: string, password: string): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: ns },
    type: 'Opaque',
    stringData: { password, user: 'app' }
  }
}

/** `tazuna-action state diff <flags> -f <file>` as the cluster admin. */
function stateDiff(
  file: string,
  flags: readonly string[],
  options: { tty?: boolean; env?: Record<string, string> } = {}
): Promise<CliResult> {
  return runCliInProcess(
    ['state', 'diff', ...flags, '-f', file],
    {
      KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
      KUBECONFIG: adminKubeconfig(),
      ...options.env
    },
    undefined,
    options.tty ?? false
  )
}

/**
 * A repository whose base commit is applied (State records it): ConfigMaps `settings` and
 * `gone` and Secret `db` in manifest `app`; then, in the working tree, `settings` changed,
 * the password changed, `gone` removed and `added` added.
 */
async function editedRepository() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-content-'))
  const ns = uniqueName('ns')
  const app = uniqueName('app')
  await admin.cluster.apply(namespace(ns))
  const file = writeProject(dir, [
    {
      name: app,
      objects: [
        configMap(ns, 'settings', { level: 'info', mode: 'a' }),
        configMap(ns, 'gone', { k: 'v' }),
        secret(ns, FIRST_PASSWORD)
      ]
    }
  ])
  const base = commitAll(dir, 'base')
  expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
  const edit = () =>
    writeProject(dir, [
      {
        name: app,
        objects: [
          configMap(ns, 'settings', { level: 'debug', mode: 'a' }),
          configMap(ns, 'added', { k: 'v' }),
          secret(ns, SECOND_PASSWORD)
        ]
      }
    ])
  edit()
  return { dir, ns, app, file, base }
}

/** The lines of one object's diff: from its `--- ` header to the next header or note. */
function objectBlock(stdout: string, header: string): string[] {
  const lines = stdout.split('\n')
  const start = lines.indexOf(header)
  if (start < 0) throw new Error(`no line ${JSON.stringify(header)} in:\n${stdout}`)
  const rest = lines.slice(start + 2)
  const end = rest.findIndex((l) => l.startsWith('--- ') || l.startsWith('#') || l === '')
  return lines.slice(start, start + 2 + (end < 0 ? rest.length : end))
}

// Every escape sequence starts with ESC; none may reach a pipe or a NO_COLOR terminal.
const ESC = '\u001b'

describe('state diff --content', () => {
  it('prints the unchanged table, then base -> working tree diffs with Secret values masked', async () => {
    const r = await editedRepository()
    const table = await stateDiff(r.file, [])
    const content = await stateDiff(r.file, ['--content'])
    expect(table.code).toBe(0)
    expect(content).toMatchObject({ code: 0, stderr: '' })
    expect(content.stdout.startsWith(table.stdout)).toBe(true)
    expect(table.stdout).toMatch(/^Manifest: /)
    const diffs = content.stdout.slice(table.stdout.length)
    expect(diffs.split('\n')[0]).toBe(
      `# Content diffs: base ${r.base.slice(0, 12)} (HEAD) -> working tree. Where State records the base render, each diff is exactly deployed -> proposed. Secret values are shown as fingerprints only.`
    )
    const resource = (kind: string, name: string) => `${r.app}: /v1/${kind}/${r.ns}/${name}`
    expect(objectBlock(diffs, `--- base/${resource('ConfigMap', 'settings')}`)).toEqual([
      `--- base/${resource('ConfigMap', 'settings')}`,
      `+++ head/${resource('ConfigMap', 'settings')}`,
      '@@ -1,6 +1,6 @@',
      ' apiVersion: v1',
      ' data:',
      '-  level: info',
      '+  level: debug',
      '   mode: a',
      ' kind: ConfigMap',
      ' metadata:'
    ])
    expect(objectBlock(diffs, `--- /dev/null`)).toEqual([
      '--- /dev/null',
      `+++ head/${resource('ConfigMap', 'added')}`,
      '@@ -0,0 +1,7 @@',
      '+apiVersion: v1',
      '+data:',
      '+  k: v',
      '+kind: ConfigMap',
      '+metadata:',
      '+  name: added',
      `+  namespace: ${r.ns}`
    ])
    expect(objectBlock(diffs, `--- base/${resource('ConfigMap', 'gone')}`)).toEqual([
      `--- base/${resource('ConfigMap', 'gone')}`,
      '+++ /dev/null',
      '@@ -1,7 +0,0 @@',
      '-apiVersion: v1',
      '-data:',
      '-  k: v',
      '-kind: ConfigMap',
      '-metadata:',
      '-  name: gone',
      `-  namespace: ${r.ns}`
    ])
    const secretBlock = objectBlock(diffs, `--- base/${resource('Secret', 'db')}`)
    expect(secretBlock.filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      `-  password: ${fingerprint(FIRST_PASSWORD)}`,
      `+  password: ${fingerprint(SECOND_PASSWORD)}`
    ])
    expect(secretBlock).toContain(`   user: ${fingerprint('app')}`)
    for (const planted of [FIRST_PASSWORD, SECOND_PASSWORD]) {
      expect(content.stdout + content.stderr).not.toContain(planted)
    }
    expect(content.stdout).not.toContain(ESC)
  })

  it('colours diff lines on a terminal, and never with NO_COLOR or when not a terminal', async () => {
    const r = await editedRepository()
    const tty = await stateDiff(r.file, ['--content=base'], { tty: true })
    const noColor = await stateDiff(r.file, ['--content=base'], {
      tty: true,
      env: { NO_COLOR: '1' }
    })
    const piped = await stateDiff(r.file, ['--content=base'])
    expect(tty.code).toBe(0)
    expect(tty.stdout).toContain(
      `${ESC}[31m-  level: info${ESC}[0m\n${ESC}[32m+  level: debug${ESC}[0m\n`
    )
    expect(tty.stdout).toContain(`${ESC}[36m@@ -1,6 +1,6 @@${ESC}[0m`)
    // The table is Tazuna's text, uncoloured even on a terminal.
    const table = tty.stdout.slice(0, tty.stdout.indexOf(`${ESC}[33m# Content diffs`))
    expect(table).toBe((await stateDiff(r.file, [])).stdout)
    expect(noColor.stdout).not.toContain(ESC)
    expect(piped.stdout).not.toContain(ESC)
    expect(noColor.stdout).toBe(piped.stdout)
    expect(tty.stdout.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '')).toBe(piped.stdout)
  })

  it('compares with the merge-base of HEAD and origin/HEAD by default, and with --base <ref>', async () => {
    const origin = await editedRepository()
    git(origin.dir, 'checkout', '-q', '--', '.')
    git(origin.dir, 'clean', '-qfd')
    const clone = mkdtempSync(path.join(os.tmpdir(), 'cli-content-clone-'))
    git(clone, 'clone', '-q', origin.dir, '.')
    git(clone, 'checkout', '-q', '-b', 'feature')
    writeProject(clone, [
      {
        name: origin.app,
        objects: [
          configMap(origin.ns, 'settings', { level: 'warn', mode: 'a' }),
          configMap(origin.ns, 'gone', { k: 'v' }),
          secret(origin.ns, FIRST_PASSWORD)
        ]
      }
    ])
    const feature = commitNext(clone, 'feature: level warn')
    const file = path.join(clone, 'tazuna.yaml')
    const settings = `${origin.app}: /v1/ConfigMap/${origin.ns}/settings`

    const byDefault = await stateDiff(file, ['--content'])
    expect(byDefault.code).toBe(0)
    expect(byDefault.stdout).toContain(
      `# Content diffs: base ${origin.base.slice(0, 12)} (merge-base of HEAD and origin/HEAD) -> working tree.`
    )
    expect(objectBlock(byDefault.stdout, `--- base/${settings}`)).toContain('+  level: warn')

    // The feature commit itself as the base: the change is committed but not applied.
    const atFeature = await stateDiff(file, ['--content', '--base', 'feature'])
    expect(atFeature.code).toBe(0)
    expect(atFeature.stdout).toContain(`base ${feature.slice(0, 12)} (--base feature)`)
    expect(atFeature.stdout).toContain(
      `# ${settings}: the same in base and head; State differs because the base branch is not applied yet\n`
    )
    expect(atFeature.stdout).not.toContain('+  level: warn')
  })

  it('fails naming an unknown --base ref, a bad --content value and a directory outside git', async () => {
    const r = await editedRepository()
    const unknown = await stateDiff(r.file, ['--content', '--base', 'no-such-ref'])
    expect(unknown).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: --base "no-such-ref": no such commit in the repository at ${r.dir}\n`
    })
    const badValue = await stateDiff(r.file, ['--content=both'])
    expect(badValue).toMatchObject({
      code: 1,
      stderr: 'error: --content must be base or live, got "both"\n'
    })
    const spaced = await stateDiff(r.file, ['--content', 'live'])
    expect(spaced).toMatchObject({
      code: 1,
      stderr: 'error: unexpected argument "live" (write the value as --content=live)\n'
    })
    const noGit = mkdtempSync(path.join(os.tmpdir(), 'cli-content-nogit-'))
    const file = writeProject(noGit, [{ name: r.app, objects: [] }])
    const outside = await stateDiff(file, ['--content'])
    expect(outside.code).toBe(1)
    expect(outside.stderr).toMatch(
      new RegExp(`^error: --content=base needs a git repository: ${noGit} is not in one`)
    )
  })

  it('--content=live diffs the live objects with the dry run of the working tree, Secret masked', async () => {
    const r = await editedRepository()
    const live = await stateDiff(r.file, ['--content=live'])
    expect(live).toMatchObject({ code: 0, stderr: '' })
    expect(live.stdout).toContain(
      '# Content diffs: live objects (server-side dry run of the working tree render) -> working tree.'
    )
    const settings = objectBlock(live.stdout, `--- live/${r.app}: /v1/ConfigMap/${r.ns}/settings`)
    expect(settings.filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      '-  level: info',
      '+  level: debug'
    ])
    const b64 = (s: string) => Buffer.from(s).toString('base64')
    const secretLines = objectBlock(live.stdout, `--- live/${r.app}: /v1/Secret/${r.ns}/db`)
    expect(secretLines.filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      `-  password: ${fingerprint(b64(FIRST_PASSWORD))}`,
      `+  password: ${fingerprint(b64(SECOND_PASSWORD))}`
    ])
    expect(live.stdout).not.toContain(FIRST_PASSWORD)
    expect(live.stdout).not.toContain(SECOND_PASSWORD)
    expect(live.stdout).not.toContain(b64(FIRST_PASSWORD))
  })
})
