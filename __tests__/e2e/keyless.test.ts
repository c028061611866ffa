/**
 * `cluster-auth: github-oidc` end to end (README.md#keyless): a kube-apiserver of its own,
 * started with an AuthenticationConfiguration whose JWT authenticator trusts the emulated
 * GitHub issuer (github-emulator/oidc.ts: discovery and JWKS over TLS, RS256 tokens signed with
 * a key made for the run, GitHub's claims), validates `repository_owner` and `repository` with
 * CEL, and maps `sub` to the username with prefix `github:`. RBAC binds the pull-request
 * identity to a reader Role and the `main` identity to cluster-admin, as README shows.
 *
 * Expected, from Kubernetes' structured authentication (apiserver.config.k8s.io/v1) and RBAC:
 * the merge run's token (ref main) applies; the pull request's reads State and posts its Diff;
 * the same identity cannot write (403, the server's message); a token of another repository is
 * refused by claim validation (401; the rule's message in the server's log); a token that
 * expires during an apply is replaced and the apply succeeds, the audit log showing requests
 * under two tokens (their jti, mapped into the user's extra); no token value anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { request } from '../cluster/bootstrap.js'
import { clusterPaths } from '../cluster/credentials.js'
import { startCluster, stopCluster, type Cluster } from '../cluster/launcher.js'
import { resolveToolPaths } from '../cluster/tool-paths.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { OidcIssuer, type OidcJob } from '../github-emulator/oidc.js'
import { uniqueName } from '../support/cluster.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { commitAll } from '../support/git-repo.js'
import {
  botToken,
  buildFreshDist,
  pullRequestPayload,
  pushPayload,
  runAction,
  type ActionResult
} from './harness.js'

const AUDIENCE = 'tazuna-action'
const ns = uniqueName('keyless')
const manifest = `${ns}-app`
const PR_USER = 'github:repo:acme/deploy:pull_request'
const MAIN_USER = 'github:repo:acme/deploy:ref:refs/heads/main'
const JTI_KEY = 'tazuna.test/jti'
const mainJob: OidcJob = { repository: 'acme/deploy', event: 'push', ref: 'refs/heads/main' }
const prJob: OidcJob = {
  repository: 'acme/deploy',
  event: 'pull_request',
  ref: 'refs/pull/7/merge'
}

let dist: string
let issuer: OidcIssuer
let emulator: GitHubEmulator
let cluster: Cluster
let proxy: FaultProxy
let repo: string
let kubeconfig: string
let startupMs: number
const results: ActionResult[] = []
/** Tokens an exec plugin got: the action never sees them but as request headers. */
const execTokens = new Set<string>()

/** The AuthenticationConfiguration of README.md#keyless, with the emulated issuer. */
function authenticationConfig(): string {
  return JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: { url: issuer.issuer, certificateAuthority: issuer.caPem, audiences: [AUDIENCE] },
        claimValidationRules: [
          {
            expression: "claims.repository_owner == 'acme'",
            message: 'the ID token is not of an acme repository'
          },
          {
            expression: "claims.repository == 'acme/deploy'",
            message: 'the ID token is not of repository acme/deploy'
          }
        ],
        claimMappings: {
          username: { claim: 'sub', prefix: 'github:' },
          // The test's own: which token a request came with, without its value.
          extra: [{ key: JTI_KEY, valueExpression: 'claims.jti' }]
        }
      }
    ]
  })
}

const admin = (method: string, path: string, body?: object) =>
  request(
    { server: cluster.server, caFile: cluster.caFile, token: cluster.admin.token },
    method,
    path,
    body
  )

async function created(method: string, path: string, body: object): Promise<void> {
  const res = await admin(method, path, body)
  if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${res.body}`)
}

/** README's RBAC: the pull request reads State, main deploys. */
async function grantGithubIdentities(): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1'
  await created('POST', `${rbac}/namespaces/tazuna/roles`, {
    metadata: { name: 'tazuna-state-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }]
  })
  await created('POST', `${rbac}/namespaces/tazuna/rolebindings`, {
    metadata: { name: 'tazuna-pull-requests' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tazuna-state-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: PR_USER }]
  })
  await created('POST', `${rbac}/clusterrolebindings`, {
    metadata: { name: 'tazuna-deployer-main' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: MAIN_USER }]
  })
}

function writeRepository(version: number): string {
  const file = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true })
    writeFileSync(join(repo, path), text)
  }
  file(
    'tazuna.yaml',
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      `    - {name: ${manifest}, type: kustomize, path: manifests/app}`,
      ''
    ].join('\n')
  )
  file(
    'manifests/app/objects.yaml',
    [
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${ns}}`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: ${ns}}\ndata: {version: "${version}"}`
    ].join('\n---\n') + '\n'
  )
  file('manifests/app/kustomization.yaml', 'resources: [objects.yaml]\n')
  return commitAll(repo, `version ${version}`)
}

async function run(
  job: OidcJob,
  event: 'push' | 'pull_request',
  sha: string,
  inputs: Record<string, string> = {},
  via = kubeconfig
): Promise<ActionResult> {
  const result = await runAction({
    dist,
    workspace: repo,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: via,
      'cluster-auth': 'github-oidc',
      'github-token': 'gh-token',
      'content-diff': 'off',
      'reviewed-diff': 'off',
      ...inputs
    },
    eventName: event,
    payload: event === 'push' ? pushPayload(sha) : pullRequestPayload({ number: 7, headSha: sha }),
    sha,
    apiUrl: emulator.url,
    extraEnv: issuer.job(job)
  })
  results.push(result)
  if (process.env.KEYLESS_DEBUG)
    writeFileSync(`${process.env.KEYLESS_DEBUG}-${results.length}.log`, output(result))
  return result
}

interface AuditEvent {
  verb: string
  requestURI: string
  user: { username?: string; extra?: Record<string, string[]> }
  responseStatus?: { code?: number }
}

function auditEvents(): AuditEvent[] {
  return readFileSync(clusterPaths(cluster.workDir).auditLog, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
}

const output = (r: ActionResult): string => `${r.stdout}\n${r.stderr}`

/**
 * What the job log shows: the runner takes `::add-mask::` commands (core.setSecret) out of the
 * log, and masks their values in every other line.
 */
const shownLog = (r: ActionResult): string =>
  output(r)
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n')

beforeAll(async () => {
  dist = buildFreshDist()
  issuer = await OidcIssuer.start()
  emulator = await GitHubEmulator.start({ tokens: botToken })
  const tools = resolveToolPaths()
  cluster = await startCluster({
    kubeApiserverBin: tools.kubeApiserver,
    etcdBin: tools.etcd,
    authenticationConfig: authenticationConfig()
  })
  startupMs = cluster.startup.apiserverReadyMs
  await grantGithubIdentities()
  const dir = mkdtempSync(join(tmpdir(), `tazuna-${ns}-`))
  // A kubeconfig without a user: the cluster and its CA only.
  kubeconfig = join(dir, 'kubeconfig.json')
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'keyless',
          cluster: { server: cluster.server, 'certificate-authority': cluster.caFile }
        }
      ],
      contexts: [{ name: 'keyless', context: { cluster: 'keyless' } }],
      'current-context': 'keyless'
    }),
    { mode: 0o600 }
  )
  proxy = await startFaultProxy({
    upstream: cluster.server,
    certDir: join(cluster.workDir, 'certs')
  })
  repo = join(dir, 'repo')
  mkdirSync(repo)
}, 300_000)

afterAll(async () => {
  await proxy?.close()
  if (cluster) await stopCluster(cluster)
  await emulator?.close()
  await issuer?.close()
}, 60_000)

describe('cluster-auth github-oidc against a real API server', () => {
  it("applies with the merge run's token (ref main)", async () => {
    // The authentication configuration's cost at start: kube-apiserver ready after this long.
    process.stdout.write(`keyless cluster: kube-apiserver ready in ${startupMs} ms\n`)
    const sha = writeRepository(1)
    const result = await run(mainJob, 'push', sha)
    expect(output(result)).toContain(`Cluster: context "keyless" (${cluster.server})`)
    expect(result.status).toBe(0)
    const live = await admin('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)
    expect(JSON.parse(live.body)).toMatchObject({ data: { version: '1' } })
    const writes = auditEvents().filter(
      (e) =>
        e.user.username === MAIN_USER &&
        e.verb === 'patch' &&
        e.requestURI.includes(`/namespaces/${ns}/configmaps/settings`)
    )
    expect(writes.map((e) => e.responseStatus?.code)).toContain(201)
  })

  it("reads State and posts its Diff with the pull request's token", async () => {
    const sha = writeRepository(2)
    // No kubeconfig at all: inputs server and certificate-authority name the API server.
    const result = await run(
      prJob,
      'pull_request',
      sha,
      { server: cluster.server, 'certificate-authority': cluster.caFile },
      ''
    )
    expect(output(result)).toContain(
      `Cluster: context "server" (${cluster.server}) from input "server"`
    )
    expect(result.status).toBe(0)
    expect(result.outputs.modified).toBe('1')
    const comment = emulator.comments.find((c) => c.issue === 7)
    expect(comment?.body).toContain(manifest)
    const reads = auditEvents().filter(
      (e) =>
        e.user.username === PR_USER &&
        e.requestURI.startsWith('/api/v1/namespaces/tazuna/configmaps')
    )
    expect(reads.length).toBeGreaterThan(0)
    expect(
      reads.every((e) => e.responseStatus?.code === 200 || e.responseStatus?.code === 404)
    ).toBe(true)
  })

  it("refuses a write with the pull request's token: 403, the server's message", async () => {
    const sha = writeRepository(3)
    const result = await run(prJob, 'pull_request', sha, { mode: 'apply' })
    expect(result.status).not.toBe(0)
    expect(output(result)).toMatch(
      new RegExp(`User "${PR_USER}" cannot (create|patch|get) resource`)
    )
    const live = await admin('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)
    expect(JSON.parse(live.body)).toMatchObject({ data: { version: '1' } })
  })

  it("refuses another repository's token by claim validation", async () => {
    const other: OidcJob = { ...prJob, repository: 'acme/other' }
    const issuedBefore = issuer.issued.length
    const result = await run(other, 'pull_request', writeRepository(4), {
      'state-source': 'cluster'
    })
    expect(result.status).not.toBe(0)
    expect(output(result)).toContain(
      "HTTP 401 Unauthorized: Unauthorized: the API server did not accept the job's ID token " +
        `(iss "${issuer.issuer}", aud "tazuna-action", sub "repo:acme/other:pull_request")`
    )
    // Refused, renewed, refused again.
    const subs = issuer.issued.slice(issuedBefore).map((t) => t.sub)
    expect(subs.length).toBeGreaterThanOrEqual(2)
    expect(new Set(subs)).toEqual(new Set(['repo:acme/other:pull_request']))
    const log = readFileSync(clusterPaths(cluster.workDir).apiserverLog, 'utf8')
    expect(log).toContain('the ID token is not of repository acme/deploy')
  })

  it('replaces a token that expires during an apply, and the apply succeeds', async () => {
    const sha = writeRepository(5)
    const issuedBefore = issuer.issued.length
    // The ConfigMap's apply is held past the lifetime of the token it was sent with.
    let held = false
    proxy.setRule((r) => {
      if (held || r.method !== 'PATCH') return { kind: 'pass' }
      if (!r.path.startsWith(`/api/v1/namespaces/${ns}/configmaps/settings`))
        return { kind: 'pass' }
      held = true
      return { kind: 'delay', ms: 22_000 }
    })
    const via = proxy.kubeconfigVia(kubeconfig, join(dirname(kubeconfig), 'via-proxy.json'))
    const result = await run({ ...mainJob, lifetimeSeconds: 20 }, 'push', sha, {}, via)
    proxy.setRule(() => ({ kind: 'pass' }))
    expect(result.status).toBe(0)
    const live = await admin('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)
    expect(JSON.parse(live.body)).toMatchObject({ data: { version: '5' } })
    const tokens = issuer.issued.slice(issuedBefore)
    expect(tokens.length).toBeGreaterThanOrEqual(2)
    const jtis = new Set(tokens.map((t) => t.jti))
    const used = new Set(
      auditEvents()
        .filter((e) => e.user.username === MAIN_USER)
        .flatMap((e) => e.user.extra?.[JTI_KEY] ?? [])
        .filter((jti) => jtis.has(jti))
    )
    expect(used.size).toBeGreaterThanOrEqual(2)
    process.stdout.write(
      `keyless refresh: ${tokens.length} tokens, ${used.size} seen by the API server, the held ` +
        `apply answered ${proxy.requests
          .filter((r) => r.fault === 'delay')
          .map((r) => r.upstreamStatus)
          .join(', ')}\n`
    )
  })

  it('applies through an exec plugin whose credential expires in the middle of the apply', async () => {
    // The plugin a cloud's kubeconfig would call (aws eks get-token, kubelogin), made here: it
    // asks the emulated GitHub for an ID token and prints it as an ExecCredential that expires
    // 8 s later (the token itself lives 20 s), as client.authentication.k8s.io/v1 defines it.
    const dir = dirname(kubeconfig)
    const plugin = join(dir, 'exec-plugin.mjs')
    writeFileSync(
      plugin,
      [
        'const url = `${process.env.PLUGIN_REQUEST_URL}&audience=tazuna-action`',
        'const res = await fetch(url, { headers: { authorization: `Bearer ${process.env.PLUGIN_REQUEST_TOKEN}` } })',
        'const { value } = await res.json()',
        'const expirationTimestamp = new Date(Date.now() + 8000).toISOString()',
        "const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential' }",
        'process.stdout.write(JSON.stringify({ ...credential, status: { token: value, expirationTimestamp } }))',
        ''
      ].join('\n')
    )
    const job = issuer.job({ ...mainJob, lifetimeSeconds: 20 })
    const execKubeconfig = join(dir, 'exec.kubeconfig.json')
    writeFileSync(
      execKubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'keyless',
            cluster: { server: proxy.url, 'certificate-authority': cluster.caFile }
          }
        ],
        users: [
          {
            name: 'github-exec',
            user: {
              exec: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: process.execPath,
                args: [plugin],
                env: [
                  { name: 'PLUGIN_REQUEST_URL', value: job.ACTIONS_ID_TOKEN_REQUEST_URL },
                  { name: 'PLUGIN_REQUEST_TOKEN', value: job.ACTIONS_ID_TOKEN_REQUEST_TOKEN }
                ],
                interactiveMode: 'Never'
              }
            }
          }
        ],
        contexts: [{ name: 'keyless-exec', context: { cluster: 'keyless', user: 'github-exec' } }],
        'current-context': 'keyless-exec'
      }),
      { mode: 0o600 }
    )
    const sha = writeRepository(6)
    const issuedBefore = issuer.issued.length
    // The ConfigMap's apply is held 10 s: sent with a credential still good, answered after
    // it expired; the requests after it need a new one.
    let held = false
    proxy.setRule((r) => {
      if (held || r.method !== 'PATCH') return { kind: 'pass' }
      if (!r.path.startsWith(`/api/v1/namespaces/${ns}/configmaps/settings`))
        return { kind: 'pass' }
      held = true
      return { kind: 'delay', ms: 10_000 }
    })
    const result = await run(mainJob, 'push', sha, { 'cluster-auth': 'kubeconfig' }, execKubeconfig)
    proxy.setRule(() => ({ kind: 'pass' }))
    expect(result.status).toBe(0)
    const live = await admin('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)
    expect(JSON.parse(live.body)).toMatchObject({ data: { version: '6' } })
    const jtis = new Set(issuer.issued.slice(issuedBefore).map((t) => t.jti))
    for (const jti of jtis) execTokens.add(jti)
    const used = new Set(
      auditEvents()
        .filter((e) => e.user.username === MAIN_USER)
        .flatMap((e) => e.user.extra?.[JTI_KEY] ?? [])
        .filter((jti) => jtis.has(jti))
    )
    expect(jtis.size).toBeGreaterThanOrEqual(2)
    expect(used.size).toBeGreaterThanOrEqual(2)
    process.stdout.write(
      `keyless exec plugin: ${jtis.size} credentials, ${used.size} seen by the API server\n`
    )
  })

  it('never shows a token value in a log line, comment, summary, output or report', () => {
    expect(issuer.issued.length).toBeGreaterThanOrEqual(6)
    const texts: [string, string][] = []
    results.forEach((r, i) => {
      texts.push(
        [`run ${i} log`, shownLog(r)],
        [`run ${i} summary`, r.summary],
        [`run ${i} outputs`, JSON.stringify(r.outputs)]
      )
      if (existsSync(r.runnerTemp)) {
        for (const name of readdirSync(r.runnerTemp, { recursive: true }) as string[]) {
          const file = join(r.runnerTemp, name)
          if (/report\.(json|txt|diff)$/.test(name))
            texts.push([`run ${i} ${name}`, readFileSync(file, 'utf8')])
        }
      }
    })
    for (const c of emulator.comments) texts.push([`comment ${c.id}`, c.body])
    for (const issue of emulator.issues) texts.push([`issue ${issue.number}`, issue.body])
    const paths = clusterPaths(cluster.workDir)
    texts.push(['kube-apiserver log', readFileSync(paths.apiserverLog, 'utf8')])
    texts.push(['audit log', readFileSync(paths.auditLog, 'utf8')])
    expect(texts.some(([what]) => what.includes('report.json'))).toBe(true)
    const leaks = texts.flatMap(([what, text]) =>
      issuer.issued.flatMap((t) =>
        // The whole token, and its signature alone (a part printed without the rest).
        [t.value, t.value.split('.')[2]!]
          .filter((v) => text.includes(v))
          .map(() => `${what}: token ${t.jti}`)
      )
    )
    expect(leaks).toEqual([])
    // Each token was masked (core.setSecret) before anything could print it.
    const masks = new Set(
      results.flatMap((r) =>
        output(r)
          .split('\n')
          .filter((line) => line.startsWith('::add-mask::'))
          .map((line) => line.slice('::add-mask::'.length))
      )
    )
    expect(
      issuer.issued.filter((t) => !masks.has(t.value) && !execTokens.has(t.jti)).map((t) => t.jti)
    ).toEqual([])
  })
})
