import { describe, expect, it } from '@jest/globals'
import { CheckFailedError, runCheckFlow } from '../../../src/action/check-flow.js'
import { runDiffFlow, type DiffFlowOptions } from '../../../src/action/diff-flow.js'
import { runMergeFlow } from '../../../src/action/merge-flow.js'
import { renderDiffText } from '../../../src/state/text.js'
import { CommentForbiddenError } from '../../../src/action/ports.js'
import { parseMarker } from '../../../src/report/marker.js'
import { fakeEngine, recordingPoster, RecordingRunner } from './fakes.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { objectsByKey } from '../../../src/report/content-diff.js'
import { TEST_FINGERPRINT_KEY as KEY } from '../../support/secret-fingerprint.js'

const plan = {
  layers: [['ns'], ['web']],
  nodes: [
    { name: 'ns', dependsOn: [] },
    { name: 'web', dependsOn: ['ns'] }
  ]
}
const diffs = [
  { manifest: 'ns', type: 'kustomize', entries: [] },
  {
    manifest: 'web',
    type: 'kustomize',
    entries: [
      { type: 'added' as const, key: 'web/apps/v1/Deployment/demo/web', newHash: 'a'.repeat(64) }
    ]
  }
]
const pr = { owner: 'acme', repo: 'deploy', number: 7, headSha: 'head0000' }
const options: DiffFlowOptions = {
  config: 'tazuna.yaml',
  environment: '',
  sha: 'merge000',
  pullRequest: pr,
  comment: true,
  hasToken: true,
  failOnDiff: false,
  summaryUrl: 'https://github.com/acme/deploy/actions/runs/1'
}
const problems = [
  { file: 'tazuna.yaml', line: 4, message: 'manifest "web" depends on itself' },
  { file: 'tazuna.yaml', line: 9, message: 'password hunter2 is wrong' }
]

describe('the Diff flow', () => {
  it('publishes report files, summary, outputs and the sticky comment for the head commit', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster()
    await runDiffFlow(
      {
        engine: fakeEngine({ check: { problems: [], plan }, diffs }),
        runner,
        postComment: poster.post,
        fingerprintKey: KEY
      },
      options
    )
    expect(runner.outputs).toEqual({
      'has-changes': 'true',
      added: '1',
      modified: '0',
      removed: '0',
      'always-sync': '0',
      'changed-manifests': 'web',
      'report-path': '/tmp/report-1/report.json',
      'diff-path': '',
      'comment-url': 'https://github.com/o/r/pull/1#issuecomment-1'
    })
    expect(runner.reports[0]!.text).toBe(renderDiffText(diffs))
    expect(poster.posted).toHaveLength(1)
    expect(parseMarker(poster.posted[0]!.body)).toMatchObject({
      config: 'tazuna.yaml',
      sha: 'head0000'
    })
    expect(poster.posted[0]!.body).toContain(
      '[job summary](https://github.com/acme/deploy/actions/runs/1)'
    )
    expect(runner.summary).toContain('a'.repeat(64))
  })

  it('skips the comment for a fork with a notice and does not fail', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster()
    await runDiffFlow(
      { engine: fakeEngine({ diffs }), runner, postComment: poster.post, fingerprintKey: KEY },
      { ...options, pullRequest: { ...pr, forkOf: 'mallory/deploy' } }
    )
    expect(poster.posted).toEqual([])
    expect(runner.notices).toEqual([expect.stringContaining('fork mallory/deploy')])
    expect(runner.summary).toContain('Tazuna Diff')
    expect(runner.outputs['comment-url']).toBe('')
  })

  it('turns a 403 from GitHub into a notice', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster(() =>
      Promise.reject(new CommentForbiddenError('GitHub answered 403: nope'))
    )
    await runDiffFlow(
      { engine: fakeEngine({ diffs }), runner, postComment: poster.post, fingerprintKey: KEY },
      options
    )
    expect(runner.notices).toEqual([
      expect.stringMatching(/No pull-request comment: GitHub answered 403: nope.*read-only/)
    ])
  })

  it('fails on other comment errors', async () => {
    const poster = recordingPoster(() => Promise.reject(new Error('GitHub answered 502')))
    await expect(
      runDiffFlow(
        {
          engine: fakeEngine({ diffs }),
          runner: new RecordingRunner(),
          postComment: poster.post,
          fingerprintKey: KEY
        },
        options
      )
    ).rejects.toThrow('GitHub answered 502')
  })

  it('annotates check problems, shows them in the comment without secrets, then fails once without diffing', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster()
    const engine = fakeEngine({ check: { problems }, secret: 'hunter2' })
    const flow = runDiffFlow(
      { engine, runner, postComment: poster.post, fingerprintKey: KEY },
      options
    )
    await expect(flow).rejects.toThrow(CheckFailedError)
    await expect(flow).rejects.toThrow(/tazuna check found 2 problems in tazuna.yaml/)
    expect(engine.calls).toEqual(['check'])
    expect(runner.annotations.map((p) => p.line)).toEqual([4, 9])
    expect(poster.posted[0]!.body).toContain('tazuna.yaml:9: password *** is wrong')
    expect(JSON.stringify([runner, poster.posted])).not.toContain('hunter2')
  })

  it('fails on a non-empty Diff when fail-on-diff is true', async () => {
    const flow = runDiffFlow(
      {
        engine: fakeEngine({ diffs }),
        runner: new RecordingRunner(),
        postComment: recordingPoster().post,
        fingerprintKey: KEY
      },
      { ...options, failOnDiff: true }
    )
    await expect(flow).rejects.toThrow(/the Diff is not empty \(1 added\) and fail-on-diff is true/)
  })

  it.each([
    [true, [diffs[0]!]],
    [false, diffs]
  ])('does not fail with fail-on-diff %s and %j', async (failOnDiff, d) => {
    const flow = runDiffFlow(
      {
        engine: fakeEngine({ diffs: d }),
        runner: new RecordingRunner(),
        postComment: recordingPoster().post,
        fingerprintKey: KEY
      },
      { ...options, failOnDiff }
    )
    await expect(flow).resolves.toBeUndefined()
  })

  it('posts nothing when comment is false or there is no pull request', async () => {
    const poster = recordingPoster()
    const runner = new RecordingRunner()
    await runDiffFlow(
      { engine: fakeEngine({ diffs }), runner, postComment: poster.post, fingerprintKey: KEY },
      { ...options, comment: false }
    )
    const { pullRequest: _, ...push } = options
    await runDiffFlow(
      { engine: fakeEngine({ diffs }), runner, postComment: poster.post, fingerprintKey: KEY },
      push
    )
    expect(poster.posted).toEqual([])
  })
})

describe('the merge flow', () => {
  const counts = (added: number) => ({ added, modified: 0, removed: 0, alwaysSync: 0, pruned: 0 })
  const switches = { sync: true, prune: false, atomic: false }

  it('stops at check problems before applying', async () => {
    const engine = fakeEngine({ check: { problems } })
    const runner = new RecordingRunner()
    await expect(
      runMergeFlow(
        { engine, runner },
        { config: 'tazuna.yaml', environment: '', sha: 'abc', switches }
      )
    ).rejects.toThrow(CheckFailedError)
    expect(engine.calls).toEqual(['check'])
    expect(runner.summary).toContain('**Check failed** with 2 problems.')
  })

  it('applies with the event sha, groups the log per manifest and fails naming layer and object', async () => {
    const engine = fakeEngine({
      check: { problems: [], plan },
      apply: (log) => {
        log.info('[kustomize] ns')
        log.info('[kustomize] web')
        log.info('synced resource manifest=ns diff=added resource=/v1/Namespace/demo')
        log.warn('manifest "web": failed to apply resource apps/v1/Deployment/demo/web: forbidden')
        log.info('a line about nothing in particular')
        return {
          layers: [
            [{ manifest: 'ns', result: 'applied', counts: counts(1), durationMs: 20 }],
            [
              {
                manifest: 'web',
                result: 'failed',
                counts: counts(0),
                durationMs: 30,
                error:
                  'manifest "web": failed to apply resource apps/v1/Deployment/demo/web: forbidden'
              }
            ]
          ],
          failure: {
            layer: 1,
            message:
              'layer 1 apply failed: manifest "web": failed to apply resource apps/v1/Deployment/demo/web: forbidden'
          }
        }
      }
    })
    const runner = new RecordingRunner()
    const flow = runMergeFlow(
      { engine, runner },
      { config: 'tazuna.yaml', environment: '', sha: 'cafe', switches }
    )
    await expect(flow).rejects.toThrow(
      'layer 1 apply failed: manifest "web": failed to apply resource apps/v1/Deployment/demo/web'
    )
    expect(engine.calls).toEqual(['check', 'connect', 'apply cafe sync'])
    expect(runner.groups).toEqual([
      {
        title: 'layer 1 · ns: applied (1 added, 20 ms)',
        lines: [
          '[kustomize] ns',
          'synced resource manifest=ns diff=added resource=/v1/Namespace/demo'
        ]
      },
      {
        title: 'layer 2 · web: failed (30 ms)',
        lines: [
          '[kustomize] web',
          'warning: manifest "web": failed to apply resource apps/v1/Deployment/demo/web: forbidden'
        ]
      }
    ])
    expect(runner.log).toContain('a line about nothing in particular')
    expect(runner.summary).toContain('| `web` | ❌ failed |')
    expect(runner.outputs).toMatchObject({ added: '1', 'changed-manifests': 'ns' })
  })
})

describe('the check flow', () => {
  it('publishes ok with the plan and zero counts', async () => {
    const runner = new RecordingRunner()
    await runCheckFlow(
      { engine: fakeEngine({ check: { problems: [], plan } }), runner },
      { config: 'c.yaml', environment: 'prod', sha: '' }
    )
    expect(runner.summary).toContain('### Tazuna check for `c.yaml` (environment `prod`)\n\n**ok**')
    expect(runner.summary).toContain('```mermaid')
    expect(runner.outputs).toMatchObject({ 'has-changes': 'false', added: '0' })
  })
})

describe('the Diff flow with content diffs', () => {
  const head: JsonObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'demo' },
    spec: { replicas: 3, token: 'hunter2' }
  }
  const objects = new Map([['web', objectsByKey('web', [head])]])
  const base = { objects: new Map(), redact: (t: string) => t }
  const engine = () =>
    fakeEngine({ check: { problems: [], plan }, diffs, objects, secret: 'hunter2' })

  it('writes report.diff, names it in diff-path and shows the object in comment and summary', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster()
    await runDiffFlow(
      {
        engine: engine(),
        runner,
        postComment: poster.post,
        fingerprintKey: KEY,
        before: { source: 'base', baseSha: 'b'.repeat(40), render: () => Promise.resolve(base) }
      },
      options
    )
    expect(runner.outputs['diff-path']).toBe('/tmp/report-1/report.diff')
    expect(runner.reports[0]!.diff).toContain(
      '--- /dev/null\n+++ head/web: apps/v1/Deployment/demo/web\n'
    )
    expect(runner.reports[0]!.diff).toContain('+  replicas: 3\n')
    for (const text of [poster.posted[0]!.body, runner.summary, runner.reports[0]!.diff!]) {
      expect(text).not.toContain('hunter2')
    }
    expect(poster.posted[0]!.body).toContain(
      '<details open><summary><b>added</b> <code>apps/v1/Deployment/demo/web</code></summary>'
    )
    expect(runner.notices).toEqual([])
  })

  it('falls back to hashes with one notice when the base cannot be rendered', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster()
    await runDiffFlow(
      {
        engine: engine(),
        runner,
        postComment: poster.post,
        fingerprintKey: KEY,
        before: {
          source: 'base',
          render: () => Promise.reject(new Error('git fetch failed: token hunter2 refused'))
        }
      },
      options
    )
    expect(runner.notices).toEqual([
      'No content diffs: the base commit could not be rendered (git fetch failed: token *** refused). The Diff shows hashes only.'
    ])
    expect(poster.posted[0]!.body).toContain(
      'No content diffs: the base commit could not be rendered'
    )
    expect(runner.outputs['has-changes']).toBe('true')
  })

  it('renders the head and the base concurrently', async () => {
    let release: () => void = () => {}
    const baseStarted = new Promise<void>((resolve) => (release = resolve))
    const slowEngine = engine()
    const diff = slowEngine.diff
    // The head's Diff waits until the base render has started: sequential rendering would hang.
    slowEngine.diff = async (run) => {
      await baseStarted
      return diff(run)
    }
    await runDiffFlow(
      {
        engine: slowEngine,
        runner: new RecordingRunner(),
        postComment: recordingPoster().post,
        fingerprintKey: KEY,
        before: {
          source: 'base',
          render: () => {
            release()
            return Promise.resolve(base)
          }
        }
      },
      options
    )
    expect(slowEngine.calls).toEqual(['check', 'diff', 'renderObjects web'])
  })

  it('renders only the manifests with Diff entries, the head and the base', async () => {
    const asked: (ReadonlySet<string> | undefined)[] = []
    const e = engine()
    await runDiffFlow(
      {
        engine: e,
        runner: new RecordingRunner(),
        postComment: recordingPoster().post,
        fingerprintKey: KEY,
        before: {
          source: 'base',
          render: async (headRendered) => {
            asked.push(await headRendered)
            return base
          }
        }
      },
      options
    )
    // `ns` has no entries: neither side renders it.
    expect(e.calls).toEqual(['check', 'diff', 'renderObjects web'])
    expect(asked).toEqual([new Set(['web'])])
  })
})

describe('the Diff flow’s risks', () => {
  const claimRemoved = [
    {
      manifest: 'db',
      type: 'kustomize',
      entries: [
        {
          type: 'removed' as const,
          key: 'db//v1/PersistentVolumeClaim/demo/data',
          oldHash: 'b'.repeat(64)
        }
      ]
    }
  ]

  it('puts the risks first in the comment and the summary, and in report.json', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster()
    await runDiffFlow(
      {
        engine: fakeEngine({ diffs: claimRemoved }),
        runner,
        postComment: poster.post,
        fingerprintKey: KEY
      },
      { ...options, prune: true }
    )
    const body = poster.posted[0]!.body
    const afterMarker = body.slice(body.indexOf('\n') + 1)
    expect(afterMarker.split('\n')[0]).toBe('**⚠ 1 deletes data.** Review these first:')
    expect(afterMarker.indexOf('deletes data')).toBeLessThan(afterMarker.indexOf('### Tazuna Diff'))
    expect(body).toContain(
      '- **deletes data**: `db: /v1/PersistentVolumeClaim/demo/data`: removed: prune deletes it;'
    )
    expect(runner.summary.startsWith('**⚠ 1 deletes data.**')).toBe(true)
    expect(JSON.parse(runner.reports[0]!.json).risks).toEqual([
      {
        kind: 'destroys-data',
        manifest: 'db',
        key: 'db//v1/PersistentVolumeClaim/demo/data',
        path: '',
        message:
          'removed: prune deletes it; its volume is released, and deleted with it under a Delete reclaim policy',
        accepted: false
      }
    ])
    expect(runner.log).toContain('Risks: 1 deletes data')
  })

  it('fails on a risk kind fail-on-risk names, after publishing', async () => {
    const poster = recordingPoster()
    const flow = runDiffFlow(
      {
        engine: fakeEngine({ diffs: claimRemoved }),
        runner: new RecordingRunner(),
        postComment: poster.post,
        fingerprintKey: KEY
      },
      { ...options, failOnRisk: ['destroys-data'] }
    )
    await expect(flow).rejects.toThrow(/^1 deletes data \(fail-on-risk: destroys-data\)/)
    expect(poster.posted).toHaveLength(1)
  })

  it('does not fail on a risk kind fail-on-risk does not name', async () => {
    const flow = runDiffFlow(
      {
        engine: fakeEngine({ diffs: claimRemoved }),
        runner: new RecordingRunner(),
        postComment: recordingPoster().post,
        fingerprintKey: KEY
      },
      { ...options, failOnRisk: ['will-fail', 'widens-access'] }
    )
    await expect(flow).resolves.toBeUndefined()
  })

  it('lists no risks and keeps report.json’s risks empty for a harmless Diff', async () => {
    const runner = new RecordingRunner()
    const poster = recordingPoster()
    await runDiffFlow(
      { engine: fakeEngine({ diffs }), runner, postComment: poster.post, fingerprintKey: KEY },
      options
    )
    expect(poster.posted[0]!.body).not.toContain('⚠')
    expect(JSON.parse(runner.reports[0]!.json).risks).toEqual([])
  })
})
