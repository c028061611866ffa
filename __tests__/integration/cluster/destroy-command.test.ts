// `destroy` end to end (docs/compatibility.md#destroy, pepabo/tazuna cmd/destroy.go): the prompt
// unless --force, TAZUNA_DESTROY_EXECUTABLE parsed as Go's strconv.ParseBool, Tazuna's skip
// message, the tag filter, declaration order, and State left exactly as it was.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import { destroyCommand, parseGoBool } from '../../../src/cli/destroy-command.js'
import { adminSession, configMap, namespace, uniqueName } from '../../support/cluster.js'
import { runCommand, writeProject, type RunOptions } from '../../support/cli-project.js'

let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

const admit = (env: Record<string, string> = {}): Record<string, string | undefined> => ({
  KUBECONFIG: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG,
  ...env
})
const allowed = admit({ TAZUNA_DESTROY_EXECUTABLE: 'true' })
const prompt =
  '!!! All resources managed by Tazuna will be deleted !!!\nAre you sure you want to delete them?: [y/N] '

/** Two synced manifests `first` (tag app) and `second` (tag infra), a ConfigMap each. */
async function syncedPair() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-destroy-'))
  const ns = uniqueName('ns')
  const [first, second] = [uniqueName('first'), uniqueName('second')]
  await admin.cluster.apply(namespace(ns))
  const file = writeProject(dir, [
    { name: first, objects: [configMap(ns, 'one', { k: '1' })], tags: ['app'] },
    { name: second, objects: [configMap(ns, 'two', { k: '2' })], tags: ['infra'] }
  ])
  expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
  const exists = async (name: string): Promise<boolean> =>
    (await admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name })) !==
    undefined
  const destroy = (run: RunOptions) => runCommand(destroyCommand, file, run)
  return { first, second, exists, destroy }
}

describe('destroy', () => {
  it('skips with Tazuna message when TAZUNA_DESTROY_EXECUTABLE is unset, even with --force', async () => {
    const p = await syncedPair()
    const out = await p.destroy({ options: { force: true }, env: admit() })
    expect(out).toEqual({
      code: 0,
      stdout: '',
      stderr: 'level=ERROR msg="TAZUNA_DESTROY_EXECUTABLE is false, skipping destroy"\n'
    })
    expect(await p.exists('one')).toBe(true)
  })

  it.each(['yes', 'on', 'TrUe', ' true'])(
    'skips when TAZUNA_DESTROY_EXECUTABLE=%j, which Go does not parse as a bool',
    async (value) => {
      const p = await syncedPair()
      const out = await p.destroy({
        options: { force: true },
        env: admit({ TAZUNA_DESTROY_EXECUTABLE: value })
      })
      expect(out.stderr).toContain('TAZUNA_DESTROY_EXECUTABLE is false, skipping destroy')
      expect(await p.exists('one')).toBe(true)
    }
  )

  it('deletes every manifest in declaration order with --force and a Go true ("1"), leaving State', async () => {
    const p = await syncedPair()
    const before = await Promise.all([admin.store.read(p.first), admin.store.read(p.second)])
    const out = await p.destroy({
      options: { force: true },
      env: admit({ TAZUNA_DESTROY_EXECUTABLE: '1' })
    })
    expect(out.code).toBe(0)
    expect(out.stdout).toBe('')
    expect(out.stderr.indexOf(`manifest ${p.first}`)).toBeLessThan(
      out.stderr.indexOf(`manifest ${p.second}`)
    )
    expect([await p.exists('one'), await p.exists('two')]).toEqual([false, false])
    const after = await Promise.all([admin.store.read(p.first), admin.store.read(p.second)])
    expect(after).toEqual(before)
  })

  it('deletes only the manifests selected by --tags', async () => {
    const p = await syncedPair()
    const out = await p.destroy({ options: { force: true }, env: allowed, tags: ['infra'] })
    expect(out.code).toBe(0)
    expect(out.stderr).toContain(`skip manifest due to tags filter (manifest ${p.first})`)
    expect([await p.exists('one'), await p.exists('two')]).toEqual([true, false])
  })

  // The answers of upstream's newest pkg/prompt test (yes_no_test.go, with "empty (default no)"
  // and "word yes"): `y` and `yes` in any case are yes, an empty answer is no.
  it.each(['y\n', 'Y\n', 'yes\n', 'YES\n', ' y \n'])(
    'deletes after the answer %j',
    async (answer) => {
      const p = await syncedPair()
      const out = await p.destroy({ env: allowed, stdin: answer })
      expect(out).toMatchObject({ code: 0, stdout: prompt })
      expect(await p.exists('one')).toBe(false)
    }
  )

  it.each(['n\n', 'N\n', 'no\n', '\n', 'yy\n'])(
    'deletes nothing after the answer %j',
    async (answer) => {
      const p = await syncedPair()
      const out = await p.destroy({ env: allowed, stdin: answer })
      expect(out).toEqual({ code: 0, stdout: prompt, stderr: '' })
      expect(await p.exists('one')).toBe(true)
    }
  )

  it('fails with EOF when stdin ends before an answer', async () => {
    const p = await syncedPair()
    const out = await p.destroy({ env: allowed })
    expect(out).toEqual({ code: 1, stdout: prompt, stderr: 'error: EOF\n' })
    expect(await p.exists('one')).toBe(true)
  })

  it('asks before checking TAZUNA_DESTROY_EXECUTABLE, as Tazuna does', async () => {
    const p = await syncedPair()
    const out = await p.destroy({ env: admit(), stdin: 'y\n' })
    expect(out.stdout).toBe(prompt)
    expect(out.stderr).toContain('skipping destroy')
  })
})

describe('parseGoBool', () => {
  it.each([
    ['1', true],
    ['t', true],
    ['T', true],
    ['TRUE', true],
    ['true', true],
    ['True', true],
    ['0', false],
    ['f', false],
    ['False', false],
    ['', undefined],
    ['yes', undefined],
    ['tRUE', undefined]
  ])('reads %j as %j', (value, expected) => {
    expect(parseGoBool(value)).toBe(expected)
  })
})
