/**
 * One workflow for a fleet (README.md#one-workflow-for-a-fleet): the same config deployed to
 * three clusters by a matrix, two of them (eu-1, us-1) in environment `production`, one
 * (staging-1) in `staging`. Three real clusters: two bare control planes started here and the
 * run's shared cluster. us-1 already runs version 1, the others nothing, so their Diffs differ.
 *
 * Expected (input `target`): a pull request gets three comments, one per target, each with its
 * target in its marker and title and the digest of its own cluster's Diff; each merge job,
 * gated with `reviewed-diff: require`, finds its own comment and applies (without the target,
 * eu-1 and us-1 would share one comment and one of them would be refused); drift on eu-1 and
 * us-1 opens one issue each.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseMarker } from '../../src/report/marker.js'
import { request } from '../cluster/bootstrap.js'
import { startCluster, stopCluster, type Cluster } from '../cluster/launcher.js'
import { resolveToolPaths } from '../cluster/tool-paths.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { uniqueName } from '../support/cluster.js'
import { commitAll } from '../support/git-repo.js'
import {
  botToken,
  buildFreshDist,
  kubeconfigs,
  pullRequestPayload,
  pushPayload,
  runAction,
  type ActionResult
} from './harness.js'

const ns = uniqueName('fleet')
const manifest = `${ns}-app`
const PR = 21

interface Target {
  name: string
  environment: string
  kubeconfig: () => string
  server: () => { server: string; caFile: string; token: string }
}

let dist: string
let emulator: GitHubEmulator
let eu: Cluster
let us: Cluster
let repo: string
let targets: Target[]

const fromCluster = (name: string, c: () => Cluster): Target => ({
  name,
  environment: 'production',
  kubeconfig: () => c().adminKubeconfig,
  server: () => ({ server: c().server, caFile: c().caFile, token: c().admin.token })
})

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
      '  environments: {production: {}, staging: {}}',
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

function run(
  target: Target,
  event: 'push' | 'pull_request' | 'schedule',
  sha: string,
  inputs: Record<string, string> = {}
): Promise<ActionResult> {
  return runAction({
    dist,
    workspace: repo,
    inputs: {
      config: 'tazuna.yaml',
      environment: target.environment,
      target: target.name,
      kubeconfig: target.kubeconfig(),
      'github-token': 'gh-token',
      'content-diff': 'off',
      ...inputs
    },
    eventName: event,
    payload:
      event === 'push'
        ? pushPayload(sha)
        : event === 'schedule'
          ? { schedule: '0 3 * * *' }
          : pullRequestPayload({ number: PR, headSha: sha }),
    sha,
    apiUrl: emulator.url
  })
}

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({ tokens: botToken })
  const tools = resolveToolPaths()
  const bare = { kubeApiserverBin: tools.kubeApiserver, etcdBin: tools.etcd }
  ;[eu, us] = await Promise.all([startCluster(bare), startCluster(bare)])
  const shared: Target = {
    name: 'staging-1',
    environment: 'staging',
    kubeconfig: kubeconfigs.admin,
    server: () => {
      throw new Error('the shared cluster is read with kubeconfigs.admin')
    }
  }
  targets = [fromCluster('eu-1', () => eu), fromCluster('us-1', () => us), shared]
  repo = mkdtempSync(join(tmpdir(), `tazuna-${ns}-`))
}, 300_000)

afterAll(async () => {
  await Promise.all([eu, us].filter((c) => c !== undefined).map((c) => stopCluster(c)))
  await emulator?.close()
}, 60_000)

describe('a matrix over three clusters, two sharing an environment', () => {
  it('posts one comment per target and gates each merge job by its own', async () => {
    const [euT, usT] = targets as [Target, Target, Target]
    // us-1 runs version 1 already: its Diff modifies, the others' add.
    const v1 = writeRepository(1)
    const seeded = await run(usT, 'push', v1, { 'reviewed-diff': 'off' })
    expect(seeded.status).toBe(0)

    const head = writeRepository(2)
    emulator.registerPull({
      owner: 'acme',
      repo: 'deploy',
      number: PR,
      headCommits: [head],
      merge: { style: 'rebase', commits: [head] }
    })
    const diffs = await Promise.all(targets.map((t) => run(t, 'pull_request', head)))
    for (const d of diffs) expect(d.status).toBe(0)
    expect(diffs.map((d) => [d.outputs.added, d.outputs.modified])).toEqual([
      ['2', '0'],
      ['0', '1'],
      ['2', '0']
    ])
    const comments = emulator.comments.filter((c) => c.issue === PR)
    expect(comments).toHaveLength(3)
    const markers = comments.map((c) => parseMarker(c.body)!)
    expect(markers.map((m) => [m.environment, m.target]).sort()).toEqual([
      ['production', 'eu-1'],
      ['production', 'us-1'],
      ['staging', 'staging-1']
    ])
    const digestOf = (name: string) => markers.find((m) => m.target === name)!.diff!.digest
    expect(digestOf('eu-1')).not.toBe(digestOf('us-1'))
    expect(comments.find((c) => parseMarker(c.body)!.target === 'us-1')!.body).toContain(
      '(environment `production`, target `us-1`)'
    )
    for (const d of diffs) expect(d.summary).toMatch(/target `(eu-1|us-1|staging-1)`/)

    const merges = await Promise.all(
      targets.map((t) => run(t, 'push', head, { 'reviewed-diff': 'require' }))
    )
    merges.forEach((m, i) => {
      expect([targets[i]!.name, m.status, m.stdout]).toEqual([
        targets[i]!.name,
        0,
        expect.stringContaining(`target ${targets[i]!.name}`)
      ])
    })
    // Each merge job reported on its own target's comment, its Diff the reviewed one.
    const after = emulator.comments.filter((c) => c.issue === PR)
    expect(after).toHaveLength(3)
    for (const c of after) {
      expect(c.body).toContain('<!-- tazuna-action:applied -->')
      expect(c.body).toContain(', reviewed Diff')
    }
    for (const t of [euT, usT]) {
      const live = await request(t.server(), 'GET', `/api/v1/namespaces/${ns}/configmaps/settings`)
      expect(JSON.parse(live.body)).toMatchObject({ data: { version: '2' } })
    }
  })

  it('opens one drift issue per target', async () => {
    const [euT, usT] = targets as [Target, Target, Target]
    for (const t of [euT, usT]) {
      // kubectl edit: the whole object back with one field changed, by another field manager.
      const path = `/api/v1/namespaces/${ns}/configmaps/settings`
      const live = JSON.parse((await request(t.server(), 'GET', path)).body) as { data: object }
      const res = await request(t.server(), 'PUT', `${path}?fieldManager=kubectl-edit`, {
        ...live,
        data: { version: 'edited' }
      })
      expect(res.status).toBe(200)
    }
    const drifts = await Promise.all(
      [euT, usT].map((t) => run(t, 'schedule', 'c'.repeat(40), { 'drift-issue': 'true' }))
    )
    for (const d of drifts) expect(d.outputs['has-drift']).toBe('true')
    expect(emulator.issues.map((i) => i.title).sort()).toEqual([
      'Tazuna drift: tazuna.yaml (production, eu-1)',
      'Tazuna drift: tazuna.yaml (production, us-1)'
    ])
  })
})
