/**
 * `mode: drift` end to end, as a scheduled workflow runs it: `node index.js` of a fresh bundle
 * with the read-only kubeconfig (granted only `get` in the test namespace, so any write verb
 * would fail the run), the real test cluster and the loopback GitHub emulator. One issue is
 * created when drift appears, updated in place, left alone when unchanged and closed when the
 * drift is gone; a token without `issues: write` gets a notice, not a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { applyCommand } from '../../src/cli/apply-command.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { adminSession, configMap, namespace, uniqueName } from '../support/cluster.js'
import { deployment, patchAs, runCommand, writeProject } from '../support/cli-project.js'
import { buildFreshDist, runAction, type ActionResult, gatedTokens } from './harness.js'

let dist: string
let emulator: GitHubEmulator
let admin: Awaited<ReturnType<typeof adminSession>>

beforeAll(async () => {
  dist = buildFreshDist()
  admin = await adminSession()
  emulator = await GitHubEmulator.start({ tokens: gatedTokens })
}, 300_000)
afterAll(async () => {
  admin?.close()
  await emulator?.close()
})

const failureOf = (r: ActionResult): string => `exit ${r.status}\n${r.stdout}\n${r.stderr}`

/** Lets the read-only reader `get` ConfigMaps and Deployments in `ns` (nothing else). */
async function grantReaderGet(ns: string): Promise<void> {
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`
  const create = async (p: string, body: object): Promise<void> => {
    const res = await admin.client.request({ method: 'POST', path: p, body }, `create ${p}`)
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${res.body}`)
  }
  await create(`${rbac}/roles`, {
    metadata: { name: 'drift-reader' },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }
    ]
  })
  await create(`${rbac}/rolebindings`, {
    metadata: { name: 'drift-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'drift-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'tazuna-reader' }]
  })
}

describe('mode: drift on a schedule', () => {
  it('keeps one issue current: created, updated in place, unchanged, then closed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'e2e-drift-'))
    const [m, ns] = [uniqueName('drift'), uniqueName('ns')]
    await admin.cluster.apply(namespace(ns))
    await grantReaderGet(ns)
    const file = writeProject(dir, [
      {
        name: m,
        objects: [
          configMap(ns, 'settings', { level: 'info' }),
          configMap(ns, 'extra', { k: 'v' }),
          deployment(ns, 'web', 0)
        ]
      }
    ])
    expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
    const repository = `acme/${m}`
    const drift = (inputs: Record<string, string> = {}, repo = repository) =>
      runAction({
        dist,
        workspace: dir,
        inputs: {
          config: 'tazuna.yaml',
          kubeconfig: process.env.TAZUNA_TEST_READER_KUBECONFIG!,
          'github-token': 'gh-token',
          'drift-issue': 'true',
          ...inputs
        },
        eventName: 'schedule',
        payload: { schedule: '0 3 * * *' },
        sha: 'c'.repeat(40),
        apiUrl: emulator.url,
        repository: repo
      })
    const issues = () => emulator.issues.filter((i) => i.repo === m)

    const clean = await drift()
    expect(clean.status).toBe(0)
    expect(clean.outputs).toMatchObject({
      drifted: '0',
      missing: '0',
      'not-ready': '0',
      'hash-drifted': '1',
      'has-drift': 'false',
      'issue-url': ''
    })
    expect(clean.summary).toContain('**No drift detected.**')
    expect(clean.summary).toContain("1 object differ only by Tazuna's whole-object hash")
    expect(issues()).toHaveLength(0)

    await patchAs(admin, 'kubectl-edit', `/api/v1/namespaces/${ns}/configmaps/settings`, {
      data: { level: 'debug' }
    })
    await patchAs(admin, 'kubectl-scale', `/apis/apps/v1/namespaces/${ns}/deployments/web`, {
      spec: { replicas: 3 }
    })
    const drifted = await drift()
    expect(drifted.status).toBe(0)
    expect(drifted.outputs).toMatchObject({
      drifted: '2',
      missing: '0',
      'not-ready': '1',
      'has-drift': 'true'
    })
    expect(issues()).toHaveLength(1)
    const [issue] = issues()
    expect(drifted.outputs['issue-url']).toBe(
      `https://github.com/acme/${m}/issues/${issue!.number}`
    )
    expect(issue!.title).toBe('Tazuna drift: tazuna.yaml')
    for (const text of [issue!.body, drifted.summary]) {
      expect(text).toContain('2 objects changed outside tazuna')
      expect(text).toContain('@@ data.level (changed by another manager: kubectl-edit)')
      expect(text).toContain('- live: "debug"\n+ head: "info"')
      expect(text).toContain('@@ spec.replicas (changed by another manager: kubectl-scale)')
    }
    expect(issue!.body.split('\n', 1)[0]).toBe(
      '<!-- tazuna-action-drift:{"config":"tazuna.yaml","environment":""} -->'
    )
    const report = readFileSync(drifted.outputs['report-path']!.replace(/json$/, 'txt'), 'utf8')
    expect(report).toContain(`  live-drifted   /v1/ConfigMap/${ns}/settings `)

    await admin.cluster.delete({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'extra'
    })
    const missing = await drift()
    expect(missing.outputs).toMatchObject({ drifted: '2', missing: '1', 'has-drift': 'true' })
    expect(issues()).toHaveLength(1)
    expect(issues()[0]!.body).toContain('1 missing')
    expect(missing.stdout).toContain('Drift issue updated')

    const again = await drift()
    expect(again.stdout).toContain('Drift issue unchanged')
    expect(issues()).toHaveLength(1)

    const failing = await drift({ 'fail-on-drift': 'true' })
    expect(failing.status).toBe(1)
    expect(failing.stdout).toContain(
      '::error::drift detected (2 objects changed outside tazuna, 1 missing, 1 not ready) and fail-on-drift is true'
    )

    // A repository without the issue yet: creating it needs `issues: write`.
    const forbidden = await drift({ 'github-token': 'read-only-token' }, `acme/${m}-ro`)
    expect(forbidden.status).toBe(0)
    expect(forbidden.stdout).toMatch(/::notice::No drift issue: GitHub answered 403/)
    expect(forbidden.summary).toContain('2 objects changed outside tazuna')
    expect(emulator.issues.filter((i) => i.repo === `${m}-ro`)).toHaveLength(0)

    // A plain apply re-applies every object and takes the fields back (force).
    expect((await runCommand(applyCommand, file)).code).toBe(0)
    const resolved = await drift()
    expect(resolved.status).toBe(0)
    expect(resolved.outputs).toMatchObject({ drifted: '0', missing: '0', 'has-drift': 'false' })
    expect(issues()).toHaveLength(1)
    expect(issues()[0]).toMatchObject({ state: 'closed', state_reason: 'completed' })
    const closing = emulator.comments.filter((c) => c.repo === m)
    expect(closing).toHaveLength(1)
    expect(closing[0]!.body).toContain('The cluster matches what was deployed')
    expect(resolved.outputs['issue-url']).toBe(
      issues()[0] && `https://github.com/acme/${m}/issues/${issues()[0]!.number}`
    )

    // Drift again after closing: a new issue, never a reopened or second open one.
    await patchAs(admin, 'kubectl-edit', `/api/v1/namespaces/${ns}/configmaps/settings`, {
      data: { level: 'warn' }
    })
    await drift()
    expect(issues().filter((i) => i.state === 'open')).toHaveLength(1)
  })

  it('fails with a clear message when mode auto meets an unsupported event', async () => {
    const result = await runAction({
      dist,
      workspace: mkdtempSync(path.join(os.tmpdir(), 'e2e-drift-')),
      inputs: {},
      eventName: 'issue_comment',
      payload: {},
      sha: 'c'.repeat(40),
      apiUrl: emulator.url
    })
    expect(result.status).toBe(1)
    expect(failureOf(result)).toContain('schedule and workflow_dispatch (drift)')
  })
})
