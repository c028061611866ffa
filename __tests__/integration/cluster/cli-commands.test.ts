// The CLI's cluster commands end to end: a real tazuna.yaml with kustomize manifests (real
// kustomize), the real API server, Tazuna's text output and exit codes. Also proves that a
// configuration problem means zero connections to the API server.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'

/** `tazuna-action <command> -f <file>`, as the cluster admin unless `env` says otherwise. */
function cli(
  command: readonly string[],
  file: string,
  env: Record<string, string | undefined> = { KUBECONFIG: adminKubeconfig() }
): Promise<CliResult> {
  return runCliInProcess([...command, '-f', file], {
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
    ...env
  })
}

/** Writes a tazuna.yaml with one kustomize manifest whose ConfigMaps carry `data`. */
function writeProject(
  dir: string,
  manifest: string,
  ns: string,
  configMaps: Record<string, Record<string, string>>
): string {
  const base = path.join(dir, 'base')
  mkdirSync(base, { recursive: true })
  const docs = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    ...Object.entries(configMaps).map(([name, data]) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns },
      data
    }))
  ]
  writeFileSync(
    path.join(base, 'objects.yaml'),
    docs.map((d) => JSON.stringify(d)).join('\n---\n') + '\n'
  )
  writeFileSync(path.join(base, 'kustomization.yaml'), 'resources:\n  - objects.yaml\n')
  const file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    [
      'spec:',
      '  manifests:',
      `    - name: ${manifest}`,
      '      type: kustomize',
      '      path: ./base',
      ''
    ].join('\n')
  )
  return file
}

let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

describe('apply, state diff and state list on a kustomize project', () => {
  it('syncs, then diff shows no changes, list shows the State, a change shows as modified', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-sync-'))
    const [m, ns] = [uniqueName('cli'), uniqueName('ns')]
    const file = writeProject(dir, m, ns, { web: { v: '1' } })

    const applied = await cli(['apply', '--sync'], file)
    expect(applied).toMatchObject({ code: 0, stdout: '' })
    expect(applied.stderr).toContain(
      `synced resource manifest=${m} diff=added resource=/v1/ConfigMap/${ns}/web`
    )

    expect(await cli(['state', 'diff'], file)).toEqual({
      code: 0,
      stdout: 'No changes detected.\n',
      stderr: ''
    })

    const listed = await cli(['state', 'list'], file)
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`^Manifest: ${m}\\n  Last synced: \\S+Z\\n`))
    expect(listed.stdout).toContain(`  /v1/ConfigMap/${ns}/web`)

    writeProject(dir, m, ns, { web: { v: '2' } })
    const diff = await cli(['state', 'diff'], file)
    expect(diff.code).toBe(0)
    expect(diff.stdout).toMatch(
      new RegExp(
        `^Manifest: ${m}\\n  STATUS +RESOURCE +HASH\\n  modified +/v1/ConfigMap/${ns}/web +[0-9a-f]{64}\\n\\n$`
      )
    )
  })

  it('refuses --prune and --atomic without --sync', async () => {
    const file = writeProject(mkdtempSync(path.join(os.tmpdir(), 'cli-flags-')), 'm', 'ns', {})
    expect(await cli(['apply', '--prune'], file)).toMatchObject({
      code: 1,
      stderr: 'error: --prune requires --sync\n'
    })
    expect(await cli(['apply', '--atomic'], file)).toMatchObject({
      code: 1,
      stderr: 'error: --atomic requires --sync\n'
    })
  })

  it('prunes with TAZUNA_STATE_SYNC_DELETE=true in sync mode', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-prune-'))
    const [m, ns] = [uniqueName('cli'), uniqueName('ns')]
    const file = writeProject(dir, m, ns, { a: {}, b: {} })
    expect((await cli(['apply', '--sync'], file)).code).toBe(0)
    writeProject(dir, m, ns, { a: {} })
    const env = {
      KUBECONFIG: adminKubeconfig(),
      TAZUNA_STATE_SYNC_DELETE: 'TRUE'
    }
    expect((await cli(['apply', '--sync'], file, env)).code).toBe(0)
    expect(
      await admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' })
    ).toBeUndefined()
  })

  it('fails with the layer error and exit code 1 when an object is refused', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-fail-'))
    const m = uniqueName('cli')
    const file = writeProject(dir, m, uniqueName('ns'), { ok: {} })
    writeFileSync(
      path.join(dir, 'base', 'objects.yaml'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x', namespace: 'missing-ns-cli' }
      }) + '\n'
    )
    const out = await cli(['apply', '--sync'], file)
    expect(out.code).toBe(1)
    expect(out.stderr).toContain(
      `error: layer 0 apply failed: manifest "${m}": failed to apply resource /v1/ConfigMap/missing-ns-cli/x: ` +
        'apply v1 ConfigMap missing-ns-cli/x: HTTP 404 NotFound: namespaces "missing-ns-cli" not found\n'
    )
  })

  it('fails the context guard before applying anything', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-guard-'))
    const m = uniqueName('cli')
    const file = writeProject(dir, m, uniqueName('ns'), {})
    writeFileSync(
      file,
      `spec:\n  context_matches: ["kind-.*"]\n  manifests:\n    - name: ${m}\n      type: kustomize\n      path: ./base\n`
    )
    const out = await cli(['apply', '--sync'], file)
    expect(out.code).toBe(1)
    expect(out.stderr).toMatch(
      /error: current context "[^"]+" does not match any of context_matches patterns \["kind-\.\*"\]\n$/
    )
    expect((await admin.store.read(m)).resourceVersion).toBeUndefined()
  })
})

describe('apply without cluster access', () => {
  // The session opens while `git rev-parse` runs (engine.connect, docs/ARCHITECTURE.md#connecting-ahead);
  // its failure is still reported once, by apply, as the run's error.
  it('reports the kubeconfig problem with its guidance and exits 1', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-no-access-'))
    const file = writeProject(dir, uniqueName('noaccess'), uniqueName('ns'), {})
    const missing = path.join(dir, 'no-such-kubeconfig')
    const out = await cli(['apply', '--sync'], file, { KUBECONFIG: missing })
    expect(out.code).toBe(1)
    expect(out.stderr).toBe(
      `error: KUBECONFIG names no existing file (${missing}). Set up cluster access before ` +
        'this step (for example azure/k8s-set-context, `aws eks update-kubeconfig`, ' +
        'google-github-actions/get-gke-credentials) or point KUBECONFIG at a kubeconfig file.\n'
    )
  })
})

describe('a configuration problem', () => {
  it('means zero connections to the API server', async () => {
    let connections = 0
    // Answers in plain text, so a TLS client fails at once (not retried).
    const server = net.createServer((socket) => {
      connections++
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as net.AddressInfo).port
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-zero-'))
      const kubeconfig = path.join(dir, 'kubeconfig')
      writeFileSync(
        kubeconfig,
        JSON.stringify({
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
        }),
        { mode: 0o600 }
      )
      const env = { KUBECONFIG: kubeconfig }
      const bad = writeProject(dir, 'Bad_Name', 'ns', {})
      const out = await cli(['apply', '--sync'], bad, env)
      expect(out.code).toBe(1)
      expect(out.stderr).toContain(`error: check failed for tazuna.yaml at ${bad}`)
      expect(out.stderr).toContain('name "Bad_Name" contains invalid characters')
      expect(connections).toBe(0)

      // The counter works: a command that does reach the cluster connects.
      const good = writeProject(dir, 'good', 'ns', {})
      const reached = await cli(['state', 'list'], good, env)
      expect(reached.stderr).toMatch(
        /^error: read state of manifest "good" .*: request to https:\/\/127\.0\.0\.1:\d+ failed \(ERR_SSL_WRONG_VERSION_NUMBER\)\n$/
      )
      expect(connections).toBeGreaterThan(0)
    } finally {
      server.close()
    }
  })
})

describe('registration in the command table', () => {
  it('runs apply through runCli with its own flags', async () => {
    const file = writeProject(mkdtempSync(path.join(os.tmpdir(), 'cli-table-')), 'm', 'ns', {})
    const result = await runCliInProcess(['apply', '--atomic', '-f', file])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe('error: --atomic requires --sync\n')
  })
})
