/**
 * A merge run that fails in layer 2 of 3 reports it on the merged pull request
 * (README.md#gated-deploys): the API server really refuses layer 2's Deployment (negative
 * replicas), so layer 1 applied and recorded its State, layer 2 recorded none and layer 3 never
 * ran. The pull request's comment says so from its first line, and its "Applied" section names
 * the layer, the manifest, the object and the server's message.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { GitHubEmulator } from '../github-emulator/server.js'
import { commitAll, commitNext, git, mergeBranch } from '../support/git-repo.js'
import { buildFreshDist, gatedJobs, gatedTokens, kubeconfigs } from './harness.js'

let emulator: GitHubEmulator
let jobs: ReturnType<typeof gatedJobs>

beforeAll(async () => {
  const dist = buildFreshDist()
  emulator = await GitHubEmulator.start({ tokens: gatedTokens })
  jobs = gatedJobs(dist, emulator.url)
}, 300_000)
afterAll(async () => emulator?.close())

/** Three manifests in three layers; `app`, in layer 2, holds a Deployment the server refuses. */
function writeLayers(dir: string, id: string): Record<'namespace' | 'app' | 'web', string> {
  const names = { namespace: `${id}-namespace`, app: `${id}-app`, web: `${id}-web` }
  const file = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const kustomization = (name: string, namespaced: boolean) =>
    file(
      `manifests/${name}/kustomization.yaml`,
      `resources: [${name}.yaml]\n${namespaced ? `namespace: ${id}\n` : ''}`
    )
  file(
    'tazuna.yaml',
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      `    - {name: ${names.namespace}, type: kustomize, path: manifests/namespace}`,
      `    - {name: ${names.app}, type: kustomize, path: manifests/app, dependsOn: [${names.namespace}]}`,
      `    - {name: ${names.web}, type: kustomize, path: manifests/web, dependsOn: [${names.app}]}`,
      ''
    ].join('\n')
  )
  kustomization('namespace', false)
  file(
    'manifests/namespace/namespace.yaml',
    `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${id}}\n`
  )
  kustomization('app', true)
  file(
    'manifests/app/app.yaml',
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: app}',
      'spec:',
      '  replicas: -1',
      '  selector: {matchLabels: {app: app}}',
      '  template:',
      '    metadata: {labels: {app: app}}',
      '    spec: {containers: [{name: app, image: registry.example/app:1.0}]}',
      ''
    ].join('\n')
  )
  kustomization('web', true)
  file(
    'manifests/web/web.yaml',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {GREETING: hello}\n'
  )
  return names
}

/** Whether State ConfigMap `tazuna-state-<manifest>` exists. */
async function hasState(manifest: string): Promise<boolean> {
  const kc = new KubeConfig()
  kc.loadFromFile(kubeconfigs.admin())
  const core = kc.makeApiClient(CoreV1Api)
  try {
    await core.readNamespacedConfigMap({ name: `tazuna-state-${manifest}`, namespace: 'tazuna' })
    return true
  } catch (error) {
    if ((error as { code?: number }).code === 404) return false
    throw error
  }
}

describe('a merge run that fails in layer 2 of 3', () => {
  it('reports the failing layer, manifest and object on the pull request, and the layers that applied', async () => {
    const id = `e2e-${randomBytes(4).toString('hex')}`
    const dir = mkdtempSync(join(tmpdir(), `tazuna-${id}-`))
    writeFileSync(join(dir, 'README.md'), '# acme/deploy\n')
    commitAll(dir, 'Start the deploy repository')
    git(dir, 'checkout', '-q', '-b', 'pull-41')
    const names = writeLayers(dir, id)
    const head = commitNext(dir, 'Deploy three layers')
    const pull = { owner: 'acme', repo: 'deploy', number: 41, headCommits: [head] }
    emulator.registerPull(pull)
    expect((await jobs.diffJob(dir, 41, head)).status).toBe(0)
    const [merge] = mergeBranch(dir, 'pull-41', 'merge', 'Merge pull request #41')
    emulator.registerPull({ ...pull, merge: { style: 'merge', commits: [merge!] } })

    const run = await jobs.mergeJob(dir, merge!, 'warn')

    expect(run.status).toBe(1)
    const body = emulator.comments.find((c) => c.issue === 41)!.body
    const visible = body.split('\n').filter((l) => l.trim() !== '' && !/^<!--.*-->$/.test(l))
    expect(visible[0]).toBe(`### ❌ Applied: failed in layer 2 (\`${names.app}\`), reviewed Diff`)
    expect(body).toContain(`| \`${names.namespace}\` | ✅ applied |`)
    expect(body).toContain(`| \`${names.app}\` | ❌ failed |`)
    expect(body).toContain(`| \`${names.web}\` | ⏸️ not run |`)
    expect(body).toContain(
      `#### Failure in layer 2\n\n\`\`\`text\nmanifest "${names.app}": failed to apply resource ` +
        `apps/v1/Deployment/${id}/app: apply apps/v1 Deployment ${id}/app: HTTP 422 Invalid: ` +
        'Deployment.apps "app" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n'
    )
    expect(body).toContain('Applies the Diff reviewed on #41')
    expect(run.summary).toContain('**Failed in layer 2.** 1 of 3 manifests applied in 3 layers')
    expect(await hasState(names.namespace)).toBe(true)
    expect(await hasState(names.app)).toBe(false)
    expect(await hasState(names.web)).toBe(false)
  })
})
