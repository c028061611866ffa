/**
 * Pull-request runs without cluster credentials (input `state-source`, default auto): a merge
 * run publishes the State snapshot on the origin's hidden ref, then pull-request runs from a
 * depth-1 clone with no kubeconfig at all (no input, no KUBECONFIG, an empty HOME) compute the
 * Diff against it and post it through the loopback GitHub emulator. The same pull request run
 * against the cluster (reader kubeconfig) gives the Diff it must equal, but for the Secret the
 * snapshot holds no hash of. A snapshot of an older commit than the pull request's base gets
 * the stale warning; one of another schema version or configuration, or whose digest does not
 * match, fails with no comment.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { digestOf } from '../../src/state/snapshot.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { adminKubeconfig } from '../support/cluster.js'
import { writeConfig, writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext, git } from '../support/git-repo.js'
import {
  buildFreshDist,
  kubeconfigs,
  pullRequestPayload,
  pushPayload,
  runAction,
  type ActionResult,
  botToken
} from './harness.js'

const ref = 'refs/tazuna-state/production'
let dist: string
let emulator: GitHubEmulator
let origin: FixtureRepo
let base: string

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({
    tokens: botToken
  })
  origin = writeFixtureRepo()
  writeWebSecret(origin, 'password')
  base = commitAll(origin.dir, 'A')
  const merged = await runAction({
    dist,
    workspace: shallowClone(origin.dir, 'main'),
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: adminKubeconfig(),
      'github-token': 'gh-token',
      'reviewed-diff': 'off',
      'state-snapshot': ref
    },
    eventName: 'push',
    payload: pushPayload(base),
    sha: base,
    apiUrl: emulator.url
  })
  if (merged.status !== 0) throw new Error(`the merge run failed:\n${merged.stdout}`)
}, 600_000)
afterAll(async () => emulator?.close())

/** `web` gets a Secret `db` whose one value is `password`. */
function writeWebSecret(repo: FixtureRepo, password: string): void {
  const dir = join(repo.dir, 'manifests', 'web')
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n' +
      '  - deployment.yaml\n  - service.yaml\n  - secret.yaml\n'
  )
  writeFileSync(
    join(dir, 'secret.yaml'),
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: ${password}\n`
  )
}

/** `git clone --depth 1 --branch <branch>` of the origin, as actions/checkout does. */
function shallowClone(from: string, branch: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'tazuna-e2e-snapdiff-')), 'ws')
  git(tmpdir(), 'clone', '-q', '--depth', '1', '--branch', branch, `file://${from}`, dir)
  return dir
}

/** A pull-request branch off `from` (default the base) with `change` made; returns its head. */
function pullRequestBranch(name: string, change: () => void, from = base): string {
  git(origin.dir, 'checkout', '-q', '-b', name, from)
  change()
  const head = commitNext(origin.dir, name)
  git(origin.dir, 'checkout', '-q', 'main')
  return head
}

/** Puts `text` on the snapshot ref as a commit of its own; returns that commit. */
function putSnapshot(text: string): string {
  const blob = gitWithInput(['hash-object', '-w', '--stdin'], text)
  const tree = gitWithInput(['mktree'], `100644 blob ${blob}\tstate-snapshot.json\n`)
  const commit = git(
    origin.dir,
    '-c',
    'user.name=interop',
    '-c',
    'user.email=interop@example.com',
    'commit-tree',
    tree,
    '-m',
    'edited snapshot'
  ).trim()
  git(origin.dir, 'update-ref', ref, commit)
  return commit
}

/** The snapshot the merge run published, edited by `edit`, its digest made to match again. */
function resealedSnapshot(published: string, edit: (doc: Record<string, unknown>) => void): string {
  const { digest: _, ...doc } = JSON.parse(published) as Record<string, unknown>
  edit(doc)
  return `${JSON.stringify({ ...doc, digest: digestOf(doc) }, null, 2)}\n`
}

function prRun(branch: string, head: string, number: number, kubeconfig?: string, baseSha = base) {
  return runAction({
    dist,
    workspace: shallowClone(origin.dir, branch),
    inputs: {
      config: 'tazuna.yaml',
      'github-token': 'gh-token',
      'state-snapshot': ref,
      ...(kubeconfig === undefined ? {} : { kubeconfig })
    },
    eventName: 'pull_request',
    payload: pullRequestPayload({ number, headSha: head, baseSha }),
    sha: head,
    apiUrl: emulator.url
  })
}

function gitWithInput(args: string[], input: string): string {
  return execFileSync('git', args, { cwd: origin.dir, encoding: 'utf8', input }).trim()
}

interface ReportEntry {
  type: string
  key: string
}
const manifestsOf = (r: ActionResult): { manifest: string; entries: ReportEntry[] }[] =>
  (
    JSON.parse(readFileSync(r.outputs['report-path']!, 'utf8')) as {
      manifests: { manifest: string; entries: ReportEntry[] }[]
    }
  ).manifests.map((m) => ({ manifest: m.manifest, entries: m.entries }))
const withoutSecrets = (ms: ReturnType<typeof manifestsOf>) =>
  ms.map((m) => ({ ...m, entries: m.entries.filter((e) => !e.key.includes('/v1/Secret/')) }))
const commentsOn = (issue: number) => emulator.comments.filter((c) => c.issue === issue)
const reportText = (r: ActionResult) =>
  readFileSync(r.outputs['report-path']!.replace(/report\.json$/, 'report.txt'), 'utf8')

describe('a pull-request run without a kubeconfig', () => {
  it('posts the Diff against the snapshot, equal to the cluster Diff, an unchanged Secret unchanged', async () => {
    const head = pullRequestBranch('greeting', () => writeConfig(origin, 'bonjour'))
    const cluster = await prRun('greeting', head, 1, kubeconfigs.reader())
    const snapshot = await prRun('greeting', head, 2)
    expect(cluster.status).toBe(0)
    expect(snapshot.stderr).toBe('')
    expect(snapshot.status).toBe(0)
    expect(snapshot.stdout).not.toMatch(/^Cluster: /m)
    expect(manifestsOf(snapshot)).toEqual(manifestsOf(cluster))
    expect(manifestsOf(snapshot).flatMap((m) => m.entries)).toHaveLength(1)
    expect(reportText(snapshot)).toBe(reportText(cluster))
    const [comment] = commentsOn(2)
    expect(comment!.body).toContain(
      `> Diff computed against the State snapshot of \`${base.slice(0, 12)}\`, `
    )
    expect(comment!.body).toContain('written by https://github.com/acme/deploy/actions/runs/4242')
    expect(comment!.body).not.toContain('Stale snapshot')
    expect(comment!.body).not.toContain('Not compared')
    expect(snapshot.summary).toContain('Diff computed against the State snapshot of')
  }, 300_000)

  it('lists a changed Secret as not compared and keeps every other entry of the cluster Diff', async () => {
    const head = pullRequestBranch('rotate', () => {
      writeConfig(origin, 'hallo')
      writeWebSecret(origin, 'hunter2')
    })
    const cluster = await prRun('rotate', head, 3, kubeconfigs.reader())
    const snapshot = await prRun('rotate', head, 4)
    expect(cluster.status).toBe(0)
    expect(snapshot.status).toBe(0)
    const secret = `${origin.manifests.web}//v1/Secret/${origin.namespace}/db`
    expect(manifestsOf(cluster).flatMap((m) => m.entries)).toContainEqual(
      expect.objectContaining({ type: 'modified', key: secret })
    )
    expect(manifestsOf(snapshot)).toEqual(withoutSecrets(manifestsOf(cluster)))
    expect(reportText(snapshot)).toContain(
      `# Not compared without cluster access (a State snapshot holds no Secret hashes):\n#   ${origin.manifests.web}: /v1/Secret/${origin.namespace}/db\n`
    )
    const [comment] = commentsOn(4)
    expect(comment!.body).toContain(
      `> - \`${origin.manifests.web}\`: \`/v1/Secret/${origin.namespace}/db\``
    )
    expect(comment!.body).not.toContain('hunter2')
  }, 300_000)

  it('warns that the snapshot is stale when the base branch moved on since it was written', async () => {
    git(origin.dir, 'checkout', '-q', 'main')
    writeConfig(origin, 'ciao')
    const movedOn = commitNext(origin.dir, 'B, not applied')
    const head = pullRequestBranch('late', () => writeConfig(origin, 'hej'), movedOn)
    const result = await prRun('late', head, 6, undefined, movedOn)
    expect(result.status).toBe(0)
    const [comment] = commentsOn(6)
    expect(comment!.body).toContain(
      `> :warning: **Stale snapshot:** the base branch is at \`${movedOn.slice(0, 12)}\`, ` +
        'not the commit the snapshot is of'
    )
    expect(comment!.body).toContain(`State snapshot of \`${base.slice(0, 12)}\``)
  }, 300_000)

  it('refuses a snapshot of another schema version or configuration, posting no comment', async () => {
    const published = git(origin.dir, 'show', `${ref}:state-snapshot.json`)
    const original = git(origin.dir, 'rev-parse', ref).trim()
    const cases: [number, string, (doc: Record<string, unknown>) => void][] = [
      [7, 'schema version 99; this program reads version 1', (doc) => (doc.schemaVersion = 99)],
      [
        8,
        'it belongs to config "tazuna.yaml", environment "staging", not to config "tazuna.yaml", environment "" of this run',
        (doc) => ((doc.config as Record<string, unknown>).environment = 'staging')
      ]
    ]
    try {
      for (const [number, problem, edit] of cases) {
        const commit = putSnapshot(resealedSnapshot(published, edit))
        const head = pullRequestBranch(`refused-${number}`, () => writeConfig(origin, `n${number}`))
        const result = await prRun(`refused-${number}`, head, number)
        expect(result.status).not.toBe(0)
        expect(result.stdout).toContain(`State snapshot on ${ref} (commit ${commit}): ${problem}`)
        expect(commentsOn(number)).toEqual([])
      }
    } finally {
      git(origin.dir, 'update-ref', ref, original)
    }
  }, 300_000)

  it('fails naming the ref and posts no comment when the snapshot does not verify', async () => {
    const text = git(origin.dir, 'show', `${ref}:state-snapshot.json`)
    const corrupt = text.replace(/"createdAt": "[^"]*"/, '"createdAt": "2000-01-01T00:00:00Z"')
    expect(corrupt).not.toBe(text)
    const commit = putSnapshot(corrupt)
    const head = pullRequestBranch('corrupt', () => writeConfig(origin, 'salut'))
    const result = await prRun('corrupt', head, 5)
    expect(result.status).not.toBe(0)
    expect(result.stdout).toContain(
      `State snapshot on ${ref} (commit ${commit}): its digest does not match its content`
    )
    expect(commentsOn(5)).toEqual([])
  }, 300_000)
})
