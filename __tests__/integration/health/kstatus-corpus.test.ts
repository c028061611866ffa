/**
 * The kstatus parity corpus is current: kstatus itself (src/go/kstatus-corpus, the pinned
 * sigs.k8s.io/cli-utils) run over __tests__/fixtures/kstatus prints exactly the committed
 * expected.json that __tests__/unit/health/kstatus.test.ts holds src/health/kstatus.ts equal to.
 * scripts/test.sh puts Go on PATH.
 */
import { describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../../..')

describe('the kstatus corpus', () => {
  it('is what kstatus computes today', () => {
    const run = spawnSync('bash', ['src/go/kstatus-corpus/generate.sh', '--check'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 540_000
    })
    // Go reports the modules it fetches into an empty module cache (a fresh machine): nothing else.
    const stderr = run.stderr.replace(/^go: downloading \S+ \S+\n/gm, '')
    expect({ status: run.status, stderr }).toEqual({ status: 0, stderr: '' })
    const committed = readFileSync(
      path.join(root, '__tests__/fixtures/kstatus/expected.json'),
      'utf8'
    )
    expect(run.stdout).toEqual(committed)
  }, 600_000)
})
