// `state export` and `state diff --state-file` on the real API server: the Diff against a
// snapshot is the Diff against the cluster's State, with Tazuna's text, except the Secret entries
// (a snapshot holds no Secret hash), and it is computed with no kubeconfig and no connection.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig, uniqueName } from '../../support/cluster.js'
import { serializeSnapshot } from '../../../src/state/snapshot.js'

const admin = () => ({ KUBECONFIG: adminKubeconfig() })

function cli(
  command: readonly string[],
  file: string,
  env: Record<string, string | undefined>
): Promise<CliResult> {
  return runCliInProcess([...command, '-f', file], {
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
    ...env
  })
}

/** An environment with no kubeconfig anywhere: no KUBECONFIG, a HOME without ~/.kube. */
function noKubeconfig(): Record<string, string> {
  return { HOME: mkdtempSync(path.join(os.tmpdir(), 'snapshot-home-')) }
}

/** tazuna.yaml with one kustomize manifest: ConfigMaps with `data`, one Secret `db`. */
function writeProject(
  dir: string,
  manifest: string,
  ns: string,
  objects: { configMaps: Record<string, Record<string, string>>; password: string }
): string {
  const base = path.join(dir, 'base')
  mkdirSync(base, { recursive: true })
  const docs = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: ns },
      stringData: { password: objects.password }
    },
    ...Object.entries(objects.configMaps).map(([name, data]) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns },
      data
    }))
  ]
  writeFileSync(path.join(base, 'objects.yaml'), docs.map((d) => JSON.stringify(d)).join('\n---\n'))
  writeFileSync(path.join(base, 'kustomization.yaml'), 'resources:\n  - objects.yaml\n')
  const file = path.join(dir, 'tazuna.yaml')
  const spec = ['spec:', '  manifests:', `    - name: ${manifest}`, '      type: kustomize']
  writeFileSync(file, [...spec, '      path: ./base', ''].join('\n'))
  return file
}

/** A project applied with State sync, and its snapshot exported to a file. */
async function appliedAndExported(prefix: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`))
  const [m, ns] = [uniqueName('snap'), uniqueName('ns')]
  const configMaps = { keep: { v: '1' }, change: { v: '1' }, drop: { v: '1' } }
  const file = writeProject(dir, m, ns, { configMaps, password: 'password' })
  expect((await cli(['apply', '--sync'], file, admin())).code).toBe(0)
  const snapshot = path.join(dir, 'snapshot.json')
  const exported = await cli(['state', 'export', '--file', snapshot], file, admin())
  expect(exported).toMatchObject({ code: 0, stdout: '' })
  expect(exported.stderr).toContain(`wrote State snapshot file=${snapshot} manifests=1`)
  return { dir, m, ns, file, snapshot }
}

const notCompared = (m: string, ns: string) =>
  '# Not compared without cluster access (a State snapshot holds no Secret hashes):\n' +
  `#   ${m}: /v1/Secret/${ns}/db\n`

describe('state export', () => {
  it('holds the State as recorded but neither the Secret value nor its hash', async () => {
    const { m, ns, file, snapshot } = await appliedAndExported('snapshot-export')
    const listed = (await cli(['state', 'list'], file, admin())).stdout
    const secretHash = new RegExp(`/v1/Secret/${ns}/db +([0-9a-f]{64})`).exec(listed)?.[1]
    const configMapHash = new RegExp(`/v1/ConfigMap/${ns}/keep +([0-9a-f]{64})`).exec(listed)?.[1]
    expect(secretHash).toBeDefined()
    const text = readFileSync(snapshot, 'utf8')
    expect(text).not.toContain(secretHash)
    expect(text).not.toContain('password')
    expect(text).toContain(configMapHash)
    const doc = JSON.parse(text) as { manifests: Record<string, { secrets: string[] }> }
    expect(doc.manifests[m]?.secrets).toEqual([`${m}//v1/Secret/${ns}/db`])
    // Without --file, the same document on stdout (its time may differ by a second).
    const printed = await cli(['state', 'export'], file, admin())
    const strip = (t: string) => t.replace(/"(createdAt|digest)": "[^"]*"/g, '')
    expect(strip(printed.stdout)).toBe(strip(text))
  })
})

describe('state diff --state-file', () => {
  it('equals state diff against the cluster, the unchanged Secret listed as not compared', async () => {
    const { dir, m, ns, file, snapshot } = await appliedAndExported('snapshot-diff')
    const changed = { keep: { v: '1' }, change: { v: '2' }, added: { v: '1' } }
    writeProject(dir, m, ns, { configMaps: changed, password: 'password' })
    const against = await cli(['state', 'diff'], file, admin())
    expect(against.stdout).toMatch(/added .*\n.*modified .*\n.*removed /)
    const offline = await cli(['state', 'diff', '--state-file', snapshot], file, noKubeconfig())
    expect(offline).toEqual({ code: 0, stdout: against.stdout + notCompared(m, ns), stderr: '' })
  })

  it('equals state diff except the changed Secret, which is listed as not compared', async () => {
    const { dir, m, ns, file, snapshot } = await appliedAndExported('snapshot-secret')
    const configMaps = { keep: { v: '1' }, change: { v: '2' }, drop: { v: '1' } }
    writeProject(dir, m, ns, { configMaps, password: 'hunter2' })
    const against = await cli(['state', 'diff'], file, admin())
    const secretRow = new RegExp(`^  modified +/v1/Secret/${ns}/db +[0-9a-f]{64}\\n`, 'm')
    expect(against.stdout).toMatch(secretRow)
    const offline = await cli(['state', 'diff', '--state-file', snapshot], file, noKubeconfig())
    expect(offline).toEqual({
      code: 0,
      stdout: against.stdout.replace(secretRow, '') + notCompared(m, ns),
      stderr: ''
    })
  })

  it('makes no connection to the cluster a kubeconfig names', async () => {
    const { file, snapshot, dir } = await appliedAndExported('snapshot-zero')
    let connections = 0
    const server = net.createServer((socket) => {
      connections++
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as net.AddressInfo).port
      const kubeconfig = path.join(dir, 'kubeconfig')
      writeFileSync(kubeconfig, countingKubeconfig(port), { mode: 0o600 })
      const env = { KUBECONFIG: kubeconfig }
      const offline = await cli(['state', 'diff', '--state-file', snapshot], file, env)
      expect(offline.code).toBe(0)
      expect(connections).toBe(0)
      // The counter works: the same command against the cluster connects.
      expect((await cli(['state', 'diff'], file, env)).code).toBe(1)
      expect(connections).toBeGreaterThan(0)
    } finally {
      server.close()
    }
  })

  it('refuses a snapshot changed after it was written, and prints no Diff', async () => {
    const { file, snapshot } = await appliedAndExported('snapshot-corrupt')
    const text = readFileSync(snapshot, 'utf8')
    writeFileSync(snapshot, text.replace(/("lastSyncedAt": ")[^"]*/, '$12000-01-01T00:00:00Z'))
    const offline = await cli(['state', 'diff', '--state-file', snapshot], file, noKubeconfig())
    expect(offline).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: State snapshot ${snapshot}: its digest does not match its content (the file was changed or cut short)\n`
    })
  })

  it('refuses the snapshot of another environment, and prints no Diff', async () => {
    const { file, snapshot } = await appliedAndExported('snapshot-env')
    const offline = await cli(
      ['state', 'diff', '--state-file', snapshot, '-e', 'staging'],
      file,
      noKubeconfig()
    )
    expect(offline).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: State snapshot ${snapshot}: it belongs to config "tazuna.yaml", environment "", not to config "tazuna.yaml", environment "staging" of this run\n`
    })
  })
})

describe('state diff --state-file on a helmfile manifest without kubeVersion', () => {
  it('fails naming the manifest: Helm capabilities are not in a snapshot', async () => {
    const configPath = '__tests__/fixtures/build-helmfile-local/tazuna.yaml'
    const snapshot = path.join(mkdtempSync(path.join(os.tmpdir(), 'snapshot-helm-')), 's.json')
    const written = serializeSnapshot({
      config: { path: configPath, environment: '' },
      commit: '',
      createdAt: '2026-01-02T03:04:05Z',
      writtenBy: 'test',
      version: '0.0.0',
      manifests: new Map()
    })
    writeFileSync(snapshot, written)
    const env = { ...noKubeconfig(), APP_TIER: 'web' }
    const offline = await cli(['state', 'diff', '--state-file', snapshot], configPath, env)
    expect(offline.code).toBe(1)
    expect(offline.stdout).toBe('')
    expect(offline.stderr).toMatch(/^error: .*manifest "?apps"?/)
    expect(offline.stderr).toContain(
      `a helmfile manifest without helmfile.kubeVersion (Helm capabilities of the server) needs the cluster; a Diff against State snapshot ${snapshot} has no access to it`
    )
  })
})

function countingKubeconfig(port: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'c',
        cluster: { server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true }
      }
    ],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx'
  })
}
