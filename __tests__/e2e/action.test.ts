/**
 * The action end to end, as GitHub runs it: `node index.js` of a fresh bundle, runner-like
 * environment, the real test cluster (jest's integration global setup) and the loopback GitHub
 * emulator. Pull-request runs use the read-only kubeconfig, which proves the Diff never writes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseMarker } from '../../src/report/marker.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { balanceOf, wellFormed } from '../unit/report/well-formed.js'
import { writeConfig, writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext } from '../support/git-repo.js'
import {
  buildFreshDist,
  pullRequestPayload,
  pushPayload,
  root,
  runAction,
  type ActionResult,
  gatedTokens,
  kubeconfigs
} from './harness.js'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js'

let dist: string
let emulator: GitHubEmulator
const { admin, reader } = kubeconfigs

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({ tokens: gatedTokens })
}, 300_000)
afterAll(async () => emulator?.close())

const sha = (n: number): string => n.toString(16).padStart(40, 'a')

function prRun(
  repo: FixtureRepo,
  options: {
    number: number
    head: number
    headRepo?: string
    token?: string
    kubeconfig?: string
    baseSha?: string
  }
) {
  return runAction({
    dist,
    workspace: repo.dir,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: options.kubeconfig ?? reader(),
      'github-token': options.token ?? 'gh-token'
    },
    eventName: 'pull_request',
    payload: pullRequestPayload({
      number: options.number,
      headSha: sha(options.head),
      ...(options.headRepo === undefined ? {} : { headRepo: options.headRepo }),
      ...(options.baseSha === undefined ? {} : { baseSha: options.baseSha })
    }),
    sha: sha(options.head + 1000),
    apiUrl: emulator.url
  })
}

function mergeRun(repo: FixtureRepo, commit: string, kubeconfig = admin()) {
  return runAction({
    dist,
    workspace: repo.dir,
    inputs: { config: 'tazuna.yaml', kubeconfig, 'github-token': 'gh-token' },
    eventName: 'push',
    payload: pushPayload(commit),
    sha: commit,
    apiUrl: emulator.url
  })
}

const commentsOn = (issue: number) => emulator.comments.filter((c) => c.issue === issue)
const failureOf = (r: ActionResult): string => `exit ${r.status}\n${r.stdout}\n${r.stderr}`

function cluster() {
  const kc = new KubeConfig()
  kc.loadFromFile(admin())
  return { core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api) }
}

async function stateMetadata(
  manifest: string
): Promise<{ gitCommitHash: string; lastSyncedAt: string }> {
  const cm = await cluster().core.readNamespacedConfigMap({
    name: `tazuna-state-${manifest}`,
    namespace: 'tazuna'
  })
  return JSON.parse(cm.data!._metadata!) as { gitCommitHash: string; lastSyncedAt: string }
}

describe('pull-request runs', () => {
  it('create the sticky comment, and a rerun updates the same comment in place', async () => {
    const repo = writeFixtureRepo()
    const quoted = emulator.addComment({
      owner: 'acme',
      repo: 'deploy',
      issue: 1,
      body: `<!-- tazuna-action:{"tool":"tazuna-action","schema":1,"config":"tazuna.yaml","environment":"","sha":"x"} -->\nmine`,
      user: { login: 'octocat', type: 'User' }
    })
    const first = await prRun(repo, { number: 1, head: 1 })
    expect(first.status).toBe(0)
    expect(first.outputs).toMatchObject({
      'has-changes': 'true',
      added: '5',
      modified: '0',
      removed: '0',
      'changed-manifests': Object.values(repo.manifests).join(',')
    })
    const ours = commentsOn(1).filter((c) => c.id !== quoted.id)
    expect(ours).toHaveLength(1)
    expect(parseMarker(ours[0]!.body)).toMatchObject({ config: 'tazuna.yaml', sha: sha(1) })
    expect(ours[0]!.body).toContain('+ added        apps/v1/Deployment/')
    expect(first.outputs['comment-url']).toBe(
      `https://github.com/acme/deploy/pull/1#issuecomment-${ours[0]!.id}`
    )
    const reportPath = first.outputs['report-path']!
    // The renderer versions (docs/renderers.md) as the render program reports them from its
    // build information, which must be the version pinned in the render module's go.mod.
    const pinned = /sigs\.k8s\.io\/kustomize\/api (v\S+)/.exec(
      readFileSync(join(root, 'src/go/render/module/go.mod'), 'utf8')
    )![1]!
    expect(JSON.parse(readFileSync(reportPath, 'utf8'))).toMatchObject({
      kind: 'diff',
      counts: { added: 5 },
      renderers: { 'sigs.k8s.io/kustomize/api': pinned }
    })
    expect(first.stdout).toContain(`Rendering with kustomize api ${pinned}`)
    // On Linux x64/arm64 the bundle's native krusty renders (docs/renderers.md#native-kustomize),
    // unless the suite runs with TAZUNA_RENDER_NATIVE=off (the harness passes it on).
    const nativeKrusty =
      process.platform === 'linux' &&
      ['x64', 'arm64'].includes(process.arch) &&
      process.env.TAZUNA_RENDER_NATIVE !== 'off'
    expect(first.stdout).toMatch(
      new RegExp(
        `Rendering with kustomize api ${pinned} \\(${nativeKrusty ? 'native' : 'WebAssembly'},`
      )
    )
    expect(first.summary).toContain(`Rendered with kustomize api ${pinned}`)
    expect(readFileSync(join(dirname(reportPath), 'report.txt'), 'utf8')).toMatch(
      new RegExp(`^Manifest: ${repo.manifests.namespaces}\n  STATUS         RESOURCE`)
    )
    expect(first.summary).toContain('### Tazuna Diff for `tazuna.yaml`')

    const rerun = await prRun(repo, { number: 1, head: 2 })
    expect(rerun.status).toBe(0)
    const after = commentsOn(1).filter((c) => c.id !== quoted.id)
    expect(after.map((c) => c.id)).toEqual([ours[0]!.id])
    expect(parseMarker(after[0]!.body)?.sha).toBe(sha(2))
    expect(commentsOn(1).find((c) => c.id === quoted.id)!.body).toContain('mine')
  })

  it('from a fork write the job summary and a notice, and no comment', async () => {
    const repo = writeFixtureRepo()
    const before = emulator.apiRequests().length
    const r = await prRun(repo, { number: 2, head: 3, headRepo: 'mallory/deploy' })
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(
      '::notice::No pull-request comment: the pull request comes from the fork mallory/deploy'
    )
    expect(r.summary).toContain('### Tazuna Diff for `tazuna.yaml`')
    expect(commentsOn(2)).toEqual([])
    expect(emulator.apiRequests().length).toBe(before)
    expect(r.outputs['comment-url']).toBe('')
  })

  it('with a read-only token turn the 403 into a notice', async () => {
    const repo = writeFixtureRepo()
    const r = await prRun(repo, { number: 3, head: 4, token: 'read-only-token' })
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(
      /::notice::No pull-request comment: GitHub answered 403: Resource not accessible by integration/
    )
    expect(commentsOn(3)).toEqual([])
    // `::add-mask::` is how the runner learns what to mask; it never shows that line.
    expect(r.stdout.replace(/^::add-mask::.*$/gm, '')).not.toContain('read-only-token')
  })

  it('take the kubeconfig input as file content into a private file under RUNNER_TEMP', async () => {
    const repo = writeFixtureRepo()
    const r = await prRun(repo, { number: 5, head: 6, kubeconfig: readFileSync(reader(), 'utf8') })
    expect(r.status).toBe(0)
    expect(r.outputs.added).toBe('5')
    const dirs = readdirSync(r.runnerTemp).filter((d) => d.startsWith('tazuna-kubeconfig-'))
    expect(dirs).toHaveLength(1)
    expect(statSync(join(r.runnerTemp, dirs[0]!, 'kubeconfig')).mode & 0o777).toBe(0o600)
    expect(r.stdout).toContain(`from ${join(r.runnerTemp, dirs[0]!, 'kubeconfig')}`)
  })

  it('mask every secret of a kubeconfig given as content, a JSON one included', async () => {
    const repo = writeFixtureRepo()
    const planted = ['oidc-client-secret-7f3a', 'oidc-refresh-9c1d', 'exec-env-value-4b2e']
    // The test kubeconfigs are JSON; an extra, unused user carries the planted values.
    const config = JSON.parse(readFileSync(reader(), 'utf8')) as {
      users: { name: string; user: Record<string, unknown> }[]
    }
    const token = config.users[0]!.user.token as string
    config.users.push({
      name: 'planted',
      user: {
        'auth-provider': {
          name: 'oidc',
          config: { 'client-secret': planted[0], 'refresh-token': planted[1] }
        },
        exec: { command: 'x', env: [{ name: 'T', value: planted[2] }] }
      }
    })
    const r = await prRun(repo, {
      number: 6,
      head: 7,
      kubeconfig: JSON.stringify(config, null, 2)
    })
    expect(r.status).toBe(0)
    for (const secret of [token, ...planted]) expect(r.stdout).toContain(`::add-mask::${secret}\n`)
  })

  it('keep a huge Diff under the comment limit with balanced fences and details', async () => {
    const repo = writeFixtureRepo({ extraConfigMaps: 2500 })
    const r = await prRun(repo, { number: 4, head: 5 })
    expect(r.status).toBe(0)
    const [comment] = commentsOn(4)
    expect([...comment!.body].length).toBeLessThan(65_536)
    expect(balanceOf(comment!.body)).toEqual(wellFormed)
    expect(r.outputs.added).toBe('2505')
    // The long manifest lists its first entries, and says how many more the summary has.
    expect(comment!.body).toContain(`- **added** \`/v1/ConfigMap/${repo.namespace}/extra-00000\``)
    expect(comment!.body).toMatch(/- …and \d+ more entries \(the job summary has them\)/)
    expect(r.summary).toContain('/v1/ConfigMap/' + repo.namespace + '/extra-02499')
    expect(r.summary.length).toBeGreaterThan(comment!.body.length)
    expect(balanceOf(r.summary)).toEqual(wellFormed)
  })
})

describe('pull-request runs with content diffs', () => {
  it('show each object changed since the deployed base, well-formed, with no secret anywhere', async () => {
    const repo = writeFixtureRepo()
    const planted = 'planted-secret-value-e2e-93f1'
    const base = commitAll(repo.dir, 'base')
    expect((await mergeRun(repo, base)).status).toBe(0)
    writeFileSync(
      join(repo.dir, 'manifests/config/settings.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  GREETING: hola\n' +
        '  README.md: |\n    ````md\n    </details> <details>\n    ````\n---\n' +
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: ${planted}\n`
    )
    commitNext(repo.dir, 'head')
    const r = await prRun(repo, { number: 8, head: 9, baseSha: base })
    expect(r.status).toBe(0)
    const [comment] = commentsOn(8)
    const body = comment!.body
    expect(balanceOf(body)).toEqual(wellFormed)
    expect(body).toContain('#### Changes by manifest')
    expect(body).toMatch(
      /<details open><summary><b>modified<\/b> <code>\/v1\/ConfigMap\/e2e-\w+\/settings<\/code>/
    )
    expect(body).toContain('**deployed → proposed**')
    expect(body).toContain('-  GREETING: hello\n')
    expect(body).toContain('+  GREETING: hola\n')
    expect(body).toMatch(/\+ {2}password: \(sensitive value, fingerprint [0-9a-f]{12}\)/)
    const diffPath = r.outputs['diff-path']!
    expect(diffPath).toBe(join(dirname(r.outputs['report-path']!), 'report.diff'))
    const files = ['report.json', 'report.txt', 'report.diff'].map((f) =>
      readFileSync(join(dirname(diffPath), f), 'utf8')
    )
    expect(files[2]).toContain('+++ head/')
    expect(balanceOf(r.summary)).toEqual(wellFormed)
    expect(r.summary).toMatch(/Render time: head \d+\.\d s, base \d+\.\d s \(concurrently\)/)
    const everything = [body, r.summary, ...files, r.stdout, r.stderr, JSON.stringify(r.outputs)]
    for (const text of everything) expect(text).not.toContain(planted)
    expect(r.stdout).not.toContain('::notice::No content diffs')
  })

  it('without the base commit fall back to hashes with one notice, never a failed job', async () => {
    const repo = writeFixtureRepo()
    commitAll(repo.dir, 'only')
    const r = await prRun(repo, { number: 9, head: 10, baseSha: 'f'.repeat(40) })
    expect(r.status).toBe(0)
    expect(
      r.stdout.match(/::notice::No content diffs: the base commit could not be rendered/g)
    ).toHaveLength(1)
    const [comment] = commentsOn(9)
    expect(comment!.body).toContain('+ added        apps/v1/Deployment/')
    expect(balanceOf(comment!.body)).toEqual(wellFormed)
  })
})

describe('merge runs', () => {
  let proxy: TcpProxy
  beforeAll(async () => {
    proxy = await startTcpProxy(admin())
  })
  afterAll(async () => proxy?.close())

  it('apply in layers and record the event sha in State; the next Diff shows one change', async () => {
    const repo = writeFixtureRepo()
    const commit = sha(77)
    const r = await mergeRun(repo, commit)
    expect(r.status).toBe(0)
    for (const m of Object.values(repo.manifests))
      expect(r.stdout).toMatch(new RegExp(`::group::layer \\d · ${m}: applied`))
    expect(r.summary).toContain('#### Layer 3')
    expect(r.outputs).toMatchObject({ added: '5', 'has-changes': 'true' })
    const web = await cluster().apps.readNamespacedDeployment({
      name: 'web',
      namespace: repo.namespace
    })
    expect(web.spec?.replicas).toBe(2)
    for (const m of Object.values(repo.manifests))
      expect((await stateMetadata(m)).gitCommitHash).toBe(commit)

    const clean = await prRun(repo, { number: 10, head: 10 })
    expect(clean.outputs).toMatchObject({ 'has-changes': 'false', added: '0' })
    expect(commentsOn(10)[0]!.body).toContain('**No changes detected.**')

    writeConfig(repo, 'bonjour')
    const changed = await prRun(repo, { number: 10, head: 11 })
    expect(changed.outputs).toMatchObject({
      modified: '1',
      added: '0',
      'changed-manifests': repo.manifests.config
    })
    expect(commentsOn(10)).toHaveLength(1)
    expect(commentsOn(10)[0]!.body).toMatch(/! modified {5}\/v1\/ConfigMap\/e2e-\w+\/settings/)
  })

  it('that fail name the layer, the manifest and the object, after the layer finished', async () => {
    const repo = writeFixtureRepo({ brokenWorker: true })
    const r = await mergeRun(repo, sha(80))
    expect(r.status).toBe(1)
    const error = /^::error::(.*)$/m.exec(r.stdout)?.[1] ?? ''
    expect(error).toMatch(
      /^layer 2 apply failed: manifest "e2e-\w+-worker": .*example\.com\/v1\/NoSuchKind\/.*worker/
    )
    expect(r.summary).toContain(`| \`${repo.manifests.worker}\` | ❌ failed |`)
    expect(r.summary).toContain(`| \`${repo.manifests.web}\` | ✅ applied |`)
    expect((await stateMetadata(repo.manifests.web)).gitCommitHash).toBe(sha(80))
    await expect(stateMetadata(repo.manifests.worker)).rejects.toMatchObject({ code: 404 })
  })

  it('with a dependsOn cycle fail before any request to the cluster', async () => {
    const control = await mergeRun(writeFixtureRepo(), sha(90), proxy.kubeconfig)
    expect(control.status).toBe(0)
    expect(proxy.connections).toBeGreaterThan(0)

    const repo = writeFixtureRepo({ cycle: true })
    const before = proxy.connections
    const r = await mergeRun(repo, sha(91), proxy.kubeconfig)
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/::error.*circular dependency/)
    expect(proxy.connections).toBe(before)
    await expect(
      cluster().core.readNamespacedConfigMap({
        name: `tazuna-state-${repo.manifests.config}`,
        namespace: 'tazuna'
      })
    ).rejects.toMatchObject({ code: 404 })
    expect(existsSync(r.runnerTemp)).toBe(true)
    expect(failureOf(r).replace(/^::add-mask::.*$/gm, '')).not.toContain('gh-token')
  })
})
