import { describe, expect, it } from '@jest/globals'
import { runDiffFlow, type DiffFlowOptions } from '../../../src/action/diff-flow.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { objectsByKey } from '../../../src/report/content-diff.js'
import { WITHHELD_HASH } from '../../../src/state/snapshot-diff.js'
import { TEST_FINGERPRINT_KEY as KEY } from '../../support/secret-fingerprint.js'
import { fakeEngine, recordingPoster, RecordingRunner } from './fakes.js'

const secret = (password: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'app' },
  stringData: { password }
})
const key = 'web//v1/Secret/app/db'
const diffs = [
  {
    manifest: 'web',
    type: 'kustomize',
    entries: [
      { type: 'modified' as const, key, oldHash: WITHHELD_HASH, newHash: 'b'.repeat(64) },
      { type: 'added' as const, key: 'web//v1/ConfigMap/app/extra', newHash: 'c'.repeat(64) }
    ]
  }
]
const snapshot = {
  ref: 'refs/tazuna-state/production',
  commit: 'a'.repeat(40),
  createdAt: '2026-01-02T03:04:05Z',
  writtenBy: 'https://github.com/acme/deploy/actions/runs/1'
}
const options: DiffFlowOptions = {
  config: 'tazuna.yaml',
  environment: '',
  sha: 'merge000',
  pullRequest: { owner: 'acme', repo: 'deploy', number: 7, headSha: 'head0000' },
  comment: true,
  hasToken: true,
  failOnDiff: false,
  snapshot: { ...snapshot, baseSha: snapshot.commit }
}

/** The flow over a Diff against a snapshot, the base rendering `basePassword`. */
async function flowWithBase(basePassword: string, opts: Partial<DiffFlowOptions> = {}) {
  const runner = new RecordingRunner()
  const poster = recordingPoster()
  const head = new Map([['web', objectsByKey('web', [secret('hunter2')])]])
  const base = new Map([['web', objectsByKey('web', [secret(basePassword)])]])
  await runDiffFlow(
    {
      engine: fakeEngine({ diffs, objects: head }),
      runner,
      postComment: poster.post,
      fingerprintKey: KEY,
      before: {
        source: 'base',
        baseSha: snapshot.commit,
        render: () => Promise.resolve({ objects: base, redact: (t) => t })
      }
    },
    { ...options, ...opts }
  )
  return { runner, body: poster.posted[0]!.body }
}

describe('the Diff flow against a State snapshot', () => {
  it('counts a Secret whose base and head renders are the same as unchanged', async () => {
    const { runner, body } = await flowWithBase('hunter2')
    expect(runner.outputs.modified).toBe('0')
    expect(runner.outputs.added).toBe('1')
    expect(runner.reports[0]!.text).not.toContain('Not compared')
    expect(body).toContain('> Diff computed against the State snapshot of `aaaaaaaaaaaa`')
    expect(body).not.toContain('/v1/Secret/app/db')
  })

  it('lists a Secret whose renders differ as not compared, in report.txt and the comment', async () => {
    const { runner, body } = await flowWithBase('password')
    expect(runner.outputs.modified).toBe('0')
    expect(runner.reports[0]!.text).toContain(
      '# Not compared without cluster access (a State snapshot holds no Secret hashes):\n#   web: /v1/Secret/app/db\n'
    )
    expect(body).toContain('> - `web`: `/v1/Secret/app/db`')
    expect(body).not.toContain('hunter2')
  })

  it('warns in the log and the comment when the snapshot is not of the base head', async () => {
    const stale = { snapshot: { ...snapshot, baseSha: 'e'.repeat(40) } }
    const { runner, body } = await flowWithBase('hunter2', stale)
    expect(runner.log).toContainEqual(
      expect.stringMatching(
        /^warning: The State snapshot on refs\/tazuna-state\/production is of commit a{40}, not of the base branch's head e{40}/
      )
    )
    expect(body).toContain('**Stale snapshot:**')
  })
})
