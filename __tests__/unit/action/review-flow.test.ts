import { describe, expect, it } from '@jest/globals'
import { runMergeFlow } from '../../../src/action/merge-flow.js'
import {
  CommentForbiddenError,
  type AppliedPost,
  type ReviewLookup
} from '../../../src/action/ports.js'
import { renderEntriesBlock, parseEntriesBlock } from '../../../src/report/reviewed-entries.js'
import { diffDigests } from '../../../src/state/diff-digest.js'
import type { DiffEntry } from '../../../src/state/diff.js'
import { fakeEngine, RecordingRunner } from './fakes.js'

const h = (c: string) => c.repeat(64)
const key = 'v1/ConfigMap/demo/settings'
const entry = (oldHash: string, newHash: string): DiffEntry => ({
  type: 'modified',
  key,
  oldHash,
  newHash
})
const plan = { layers: [['config']], nodes: [{ name: 'config', dependsOn: [] }] }
const switches = { sync: true, prune: false, atomic: false }
const reviewedDiff = [{ manifest: 'config', entries: [entry(h('0'), h('1'))] }]

const lookup: ReviewLookup = {
  pullRequest: { owner: 'acme', repo: 'deploy', number: 11 },
  comment: { id: 7, body: '<!-- marker -->\nthe Diff' },
  source: {
    found: {
      where: '#11',
      pullRequest: 11,
      computedFor: 'p1',
      lastHead: 'p1',
      digests: diffDigests(reviewedDiff),
      entries: parseEntriesBlock(renderEntriesBlock(reviewedDiff))!
    }
  }
}

function merge(mode: 'warn' | 'require', now: DiffEntry[], post: (p: AppliedPost) => void) {
  const engine = fakeEngine({
    check: { problems: [], plan },
    gateDiff: [{ manifest: 'config', entries: now, recorded: new Map([[key, h('2')]]) }],
    apply: () => ({
      layers: [
        [
          {
            manifest: 'config',
            result: 'applied',
            counts: { added: 0, modified: 1, removed: 0, alwaysSync: 0, pruned: 0 },
            durationMs: 5
          }
        ]
      ]
    })
  })
  const runner = new RecordingRunner()
  const flow = runMergeFlow(
    { engine, runner },
    {
      config: 'tazuna.yaml',
      environment: '',
      sha: 'm1',
      switches,
      review: {
        mode,
        lookup: () => Promise.resolve(lookup),
        postApplied: (p) => {
          post(p)
          return Promise.resolve({ url: 'https://github.com/acme/deploy/pull/11#c' })
        },
        runUrl: 'https://github.com/acme/deploy/actions/runs/1'
      }
    }
  )
  return { flow, runner, engine }
}

describe('the merge flow with the review gate', () => {
  it('refuses under require, naming the pull request and the entry, and reports it on the pull request', async () => {
    const posts: AppliedPost[] = []
    const { flow, runner } = merge('require', [entry(h('2'), h('1'))], (p) => posts.push(p))
    await expect(flow).rejects.toThrow('is not the one reviewed on #11')
    await expect(flow).rejects.toThrow(
      `changed: manifest "config" ${key} (modified): reviewed 000000000000 → 111111111111, applying 222222222222 → 111111111111`
    )
    expect(posts[0]!.note.report).toBeUndefined()
    expect(posts[0]!.note.refusal).toContain('Re-run the Diff job of #11')
    expect(runner.summary).toContain('### Review')
  })

  it('applies under warn, warning which entry was not reviewed, and says so on the pull request', async () => {
    const posts: AppliedPost[] = []
    const { flow, runner } = merge('warn', [entry(h('2'), h('1'))], (p) => posts.push(p))
    await flow
    expect(runner.log.join('\n')).toContain('Applying anyway (reviewed-diff: warn)')
    expect(posts[0]!.note.verdict?.reviewed).toBe(false)
    expect(posts[0]!.note.report?.layers[0]![0]!.result).toBe('applied')
  })

  it('says the Diff reviewed on #N is applied when the Diffs match', async () => {
    const posts: AppliedPost[] = []
    const { flow, runner } = merge('require', [entry(h('0'), h('1'))], (p) => posts.push(p))
    await flow
    expect(runner.summary).toContain('Applies the Diff reviewed on #11')
    expect(posts[0]!.note.verdict?.reviewed).toBe(true)
  })

  it('warns once and succeeds without pull-requests: write', async () => {
    const { flow, runner } = merge('warn', [entry(h('0'), h('1'))], () => {
      throw new CommentForbiddenError('GitHub answered 403: Resource not accessible by integration')
    })
    await flow
    const warnings = runner.log.filter((w) => w.includes('pull-requests: write'))
    expect(warnings).toHaveLength(1)
  })
})
