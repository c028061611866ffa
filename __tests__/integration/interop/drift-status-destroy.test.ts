// `state drift`, `status` and `destroy` against the real Tazuna CLI (TAZUNA_BIN) on the test
// cluster: on the same synced, then edited, cluster both print byte-identical drift and status
// texts; destroy with and without the guard variable, with --force and with --tags leaves the
// same objects behind and the same State. Skipped, with the reason, when TAZUNA_BIN is not set.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import { destroyCommand } from '../../../src/cli/destroy-command.js'
import { stateDriftCommand, statusCommand } from '../../../src/cli/drift-commands.js'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { adminSession, configMap, namespace, uniqueName } from '../../support/cluster.js'
import {
  deployment,
  patchAs,
  runCommand,
  writeProject,
  type Output
} from '../../support/cli-project.js'
import { describeWithTazuna, tazunaBin, tazunaSkipReason } from './tools.js'

if (tazunaSkipReason !== '') {
  process.stderr.write(`interop: drift/status/destroy comparisons${tazunaSkipReason}\n`)
}

let admin: KubeSession | undefined
beforeAll(async () => {
  if (tazunaSkipReason === '') admin = await adminSession()
})
afterAll(() => admin?.close())

async function tazuna(
  file: string,
  args: readonly string[],
  env: Record<string, string> = {},
  input?: string
): Promise<Output> {
  const run = promisify(execFile)
  try {
    const child = run(tazunaBin ?? 'tazuna', [...args, '-f', file], {
      cwd: path.dirname(file),
      env: { ...process.env, KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG, ...env }
    })
    // A command that needs no input may exit before its input is written (EPIPE): its exit
    // and output are what the test reads.
    child.child.stdin?.on('error', () => undefined)
    child.child.stdin?.end(input ?? '')
    const { stdout, stderr } = await child
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? ''
    }
  }
}

/** A synced project with two tagged manifests in a fresh namespace. */
async function synced() {
  const session = admin!
  const dir = mkdtempSync(path.join(os.tmpdir(), 'interop-drift-'))
  const ns = uniqueName('ns')
  const [app, infra] = [uniqueName('app'), uniqueName('infra')]
  await session.cluster.apply(namespace(ns))
  const file = writeProject(dir, [
    {
      name: app,
      objects: [configMap(ns, 'settings', { level: 'info' }), deployment(ns, 'web', 1)],
      tags: ['app']
    },
    {
      name: infra,
      objects: [configMap(ns, 'infra', { k: 'v' }), configMap(ns, 'gone', { k: 'v' })],
      tags: ['infra']
    },
    { name: uniqueName('never'), objects: [] }
  ])
  expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
  const exists = async (name: string): Promise<boolean> =>
    (await session.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name })) !==
    undefined
  const remaining = async (): Promise<string[]> => {
    const names = ['settings', 'infra', 'gone']
    const present = await Promise.all(names.map(exists))
    return names.filter((_, i) => present[i])
  }
  const states = async () =>
    Promise.all([session.store.read(app), session.store.read(infra)]).then((s) =>
      s.map((x) => [...x.state.entries].sort())
    )
  return { ns, file, remaining, states }
}

describeWithTazuna(
  `state drift, status and destroy: the action's CLI and Tazuna's${tazunaSkipReason}`,
  () => {
    it('print byte-identical state drift and status after edits by another manager and a delete', async () => {
      const p = await synced()
      for (const command of [stateDriftCommand, statusCommand]) {
        const ours = await runCommand(command, p.file)
        const theirs = await tazuna(p.file, command.name.split(' '))
        expect({ code: ours.code, stdout: ours.stdout }).toEqual({
          code: theirs.code,
          stdout: theirs.stdout
        })
      }
      await patchAs(admin!, 'kubectl-edit', `/api/v1/namespaces/${p.ns}/configmaps/settings`, {
        data: { level: 'debug' }
      })
      await admin!.cluster.delete({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: p.ns,
        name: 'gone'
      })
      for (const command of [stateDriftCommand, statusCommand]) {
        const ours = await runCommand(command, p.file)
        const theirs = await tazuna(p.file, command.name.split(' '))
        expect(theirs.code).toBe(0)
        expect(ours.stdout).toBe(theirs.stdout)
        expect(ours.stdout).toMatch(/live-missing|Missing/)
      }
    })

    it.each([
      ['no guard variable, --force', { force: true }, {}, [], undefined],
      [
        'guard "true", --force',
        { force: true },
        { TAZUNA_DESTROY_EXECUTABLE: 'true' },
        [],
        undefined
      ],
      [
        'guard "yes" (not a Go bool), --force',
        { force: true },
        { TAZUNA_DESTROY_EXECUTABLE: 'yes' },
        [],
        undefined
      ],
      [
        'guard "1", --force --tags infra',
        { force: true },
        { TAZUNA_DESTROY_EXECUTABLE: '1' },
        ['infra'],
        undefined
      ],
      ['guard "true", prompt answered n', {}, { TAZUNA_DESTROY_EXECUTABLE: 'true' }, [], 'n\n'],
      ['guard "true", prompt answered y', {}, { TAZUNA_DESTROY_EXECUTABLE: 'true' }, [], 'y\n'],
      ['guard "true", prompt answered yes', {}, { TAZUNA_DESTROY_EXECUTABLE: 'true' }, [], 'yes\n'],
      ['guard "true", prompt answered empty', {}, { TAZUNA_DESTROY_EXECUTABLE: 'true' }, [], '\n']
    ] as const)(
      'destroy with %s leaves the same objects and State',
      async (_, options, env, tags, stdin) => {
        const ours = await synced()
        const theirs = await synced()
        const mine = await runCommand(destroyCommand, ours.file, {
          options: { ...options },
          env: { KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG, ...env },
          tags: [...tags],
          ...(stdin === undefined ? {} : { stdin })
        })
        const args = [
          'destroy',
          ...('force' in options ? ['--force'] : []),
          ...tags.flatMap((t) => ['--tags', t])
        ]
        const cli = await tazuna(theirs.file, args, env, stdin)
        expect(mine.code).toBe(cli.code)
        expect(mine.stdout).toBe(cli.stdout)
        expect(await ours.remaining()).toEqual(await theirs.remaining())
        expect((await ours.states()).map((s) => s.length)).toEqual(
          (await theirs.states()).map((s) => s.length)
        )
        const skipped = cli.stderr.includes('TAZUNA_DESTROY_EXECUTABLE is false, skipping destroy')
        expect(mine.stderr.includes('TAZUNA_DESTROY_EXECUTABLE is false, skipping destroy')).toBe(
          skipped
        )
      }
    )
  }
)
