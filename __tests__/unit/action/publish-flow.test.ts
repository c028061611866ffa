import { describe, expect, it } from '@jest/globals'
import {
  runPublishFlow,
  type PullRequestState,
  type PublishFlowOptions
} from '../../../src/action/publish-flow.js'
import { triggeringRunOf, type TriggeringRun } from '../../../src/action/workflow-run.js'
import { CommentForbiddenError, type StickyComment } from '../../../src/action/ports.js'
import { diffReportJson } from '../../../src/report/files.js'
import { entries, report } from '../report/fixtures.js'
import { RecordingRunner } from './fakes.js'

const head = '0123456789abcdef0123456789abcdef01234567'
const run: TriggeringRun = {
  htmlUrl: 'https://github.com/acme/deploy/actions/runs/99',
  headSha: head,
  headRepository: 'contributor/deploy',
  headBranch: 'patch-1',
  pullRequests: []
}
const options: PublishFlowOptions = {
  repository: { owner: 'acme', repo: 'deploy' },
  config: 'deploy/tazuna.yaml',
  environment: 'production',
  reportPath: 'tazuna-report',
  run
}
const pull: PullRequestState = {
  number: 7,
  state: 'open',
  headSha: head,
  headRef: 'patch-1',
  headRepository: 'contributor/deploy',
  baseRepository: 'acme/deploy'
}
const reportText = (pullRequest = 7, sha = head): string =>
  diffReportJson(
    report([{ manifest: 'web', type: 'kustomize', entries: entries('web', 'added', 1) }], { sha }),
    { pullRequest }
  )

function publish(
  change: {
    text?: string
    pr?: Partial<PullRequestState>
    options?: Partial<PublishFlowOptions>
  } = {}
) {
  const runner = new RecordingRunner()
  const posted: StickyComment[] = []
  const asked: number[] = []
  const result = runPublishFlow(
    {
      runner,
      readReport: () => change.text ?? reportText(),
      getPullRequest: (number) => {
        asked.push(number)
        return Promise.resolve({ ...pull, number, ...change.pr })
      },
      postComment: (comment) => {
        posted.push(comment)
        return Promise.resolve({ action: 'created', url: 'https://github.com/c/1', id: 1 })
      }
    },
    { ...options, ...change.options }
  )
  return { result, runner, posted, asked }
}

describe('runPublishFlow', () => {
  it('posts the report on the pull request it names once GitHub confirms its head', async () => {
    const { result, runner, posted, asked } = publish()
    await expect(result).resolves.toBeUndefined()
    expect(asked).toEqual([7])
    expect(posted).toHaveLength(1)
    expect(posted[0]).toMatchObject({ owner: 'acme', repo: 'deploy', issueNumber: 7 })
    expect(posted[0]!.body).toContain('> [!CAUTION]')
    expect(runner.outputs['comment-url']).toBe('https://github.com/c/1')
  })

  it.each<[string, Parameters<typeof publish>[0], RegExp]>([
    [
      'a report of another commit',
      { text: reportText(7, 'f'.repeat(40)) },
      /is of commit f{40}, the triggering run of 0123/
    ],
    [
      'a pull request whose head moved',
      { pr: { headSha: 'e'.repeat(40) } },
      /#7's head is e{40}, not the triggering run's commit/
    ],
    [
      'a pull request from another fork',
      { pr: { headRepository: 'mallory/deploy' } },
      /head is mallory\/deploy:patch-1, not the triggering run's contributor\/deploy:patch-1/
    ],
    ['a closed pull request', { pr: { state: 'closed' } }, /pull request #7 is closed, not open/],
    [
      'another configuration',
      { options: { environment: 'staging' } },
      /environment "production"; this step publishes .* environment "staging"/
    ],
    [
      'a forged report',
      { text: '{"schema":1,"kind":"diff","evil":true}' },
      /the report tazuna-report is refused: the report has an unknown field "evil". Nothing was posted./
    ],
    [
      'a pull request the run does not list',
      { options: { run: { ...run, pullRequests: [8] } } },
      /names pull request #7, the triggering run #8/
    ]
  ])('refuses %s and posts nothing', async (_, change, message) => {
    const { result, posted } = publish(change)
    await expect(result).rejects.toThrow(message)
    expect(posted).toEqual([])
  })

  it('leaves a pull request of the repository itself to its own run', async () => {
    const { result, runner, posted } = publish({
      pr: { headRepository: 'acme/deploy' },
      options: { run: { ...run, headRepository: 'acme/deploy' } }
    })
    await expect(result).resolves.toBeUndefined()
    expect(posted).toEqual([])
    expect(runner.notices.join('\n')).toContain('#7 is not from a fork')
  })

  it('says which permission a refused comment needs', async () => {
    const runner = new RecordingRunner()
    const result = runPublishFlow(
      {
        runner,
        readReport: () => reportText(),
        getPullRequest: () => Promise.resolve(pull),
        postComment: () => Promise.reject(new CommentForbiddenError('GitHub answered 403: no'))
      },
      options
    )
    await expect(result).rejects.toThrow(/403: no: mode publish needs .*pull-requests: write/)
  })
})

describe('triggeringRunOf', () => {
  const payload = (change: Record<string, unknown> = {}, action = 'completed') => ({
    action,
    workflow_run: {
      event: 'pull_request',
      conclusion: 'failure',
      html_url: run.htmlUrl,
      head_sha: head,
      head_branch: 'patch-1',
      head_repository: { full_name: 'contributor/deploy' },
      pull_requests: [],
      ...change
    }
  })

  it('reads the head of a completed pull_request run, with no pull request listed for a fork', () => {
    expect(triggeringRunOf('workflow_run', payload())).toEqual(run)
  })

  it.each<[string, string, Record<string, unknown>, RegExp]>([
    [
      'another event',
      'pull_request_target',
      payload(),
      /runs on the workflow_run event .*not on "pull_request_target"/
    ],
    ['a requested run', 'workflow_run', payload({}, 'requested'), /is "requested", not completed/],
    ['a push run', 'workflow_run', payload({ event: 'push' }), /ran on "push", not pull_request/],
    [
      'a pull_request_target run',
      'workflow_run',
      payload({ event: 'pull_request_target' }),
      /not pull_request/
    ],
    [
      'a cancelled run',
      'workflow_run',
      payload({ conclusion: 'cancelled' }),
      /conclusion is "cancelled"/
    ],
    [
      'no head commit',
      'workflow_run',
      payload({ head_sha: 'main' }),
      /no valid workflow_run.head_sha/
    ],
    [
      'no head repository (deleted fork)',
      'workflow_run',
      payload({ head_repository: null }),
      /head_repository.full_name/
    ]
  ])('refuses %s', (_, event, body, message) => {
    expect(() => triggeringRunOf(event, body)).toThrow(message)
  })
})
