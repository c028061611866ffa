/**
 * Secret fingerprints confirm no guess. Weak values (`1234`, `password`, ...) are planted in a
 * Secret, applied, then changed in a pull request; every output of the real pipeline — the
 * action's comment, job summary, report files, log and outputs (`node index.js` of a fresh
 * bundle, as the runner starts it), and the command line's `state diff --content` and `plan`
 * (`node cli.js`) — is searched for anything a dictionary attack could check offline
 * (support/guess-dictionary.ts). The fingerprints must still tell equal values from changed
 * ones within one output.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { GitHubEmulator } from '../github-emulator/server.js'
import { runCliProcess, type CliResult } from '../support/cli.js'
import { writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext } from '../support/git-repo.js'
import { guessDictionary, guessesIn } from '../support/guess-dictionary.js'
import { pathWithoutRenderers } from '../support/runner-path.js'
import { fingerprintsIn } from '../support/secret-fingerprint.js'
import {
  buildFreshDist,
  pullRequestPayload,
  pushPayload,
  runAction,
  botToken,
  kubeconfigs
} from './harness.js'

let dist: string
let emulator: GitHubEmulator
const { admin, reader } = kubeconfigs

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({
    tokens: botToken
  })
}, 300_000)
afterAll(async () => emulator?.close())

const PLANTED = ['1234', 'password', 'hunter2', 'planted-secret-value-1']
const b64 = (value: string): string => Buffer.from(value, 'utf8').toString('base64')

/**
 * Secret `weak`: each planted value under `data` (base64) as d1–d4 and under `stringData` as
 * s1–s4, the list rotated by `shift`, and `d9` always `1234`. Key names are no guesses.
 */
function weakSecret(shift: number): string {
  const at = (i: number): string => PLANTED[(i + shift) % PLANTED.length]!
  const keys = (prefix: string, form: (v: string) => string) =>
    PLANTED.map((_, i) => `  ${prefix}${i + 1}: ${JSON.stringify(form(at(i)))}\n`).join('')
  return (
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: weak\ntype: Opaque\n' +
    `data:\n${keys('d', b64)}  d9: ${b64('1234')}\nstringData:\n${keys('s', (v) => v)}`
  )
}

function withSecret(repo: FixtureRepo, shift: number): void {
  writeFileSync(
    join(repo.dir, 'manifests/config/settings.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  GREETING: hello\n' +
      `---\n${weakSecret(shift)}`
  )
}

const sha = (n: number): string => n.toString(16).padStart(40, 'e')

/** `node cli.js <args>` in the repository, as the cluster admin (plan's dry run needs patch). */
function cli(repo: FixtureRepo, ...args: string[]): Promise<CliResult> {
  return runCliProcess(process.execPath, [join(dist, 'cli.js'), ...args], {
    cwd: repo.dir,
    env: {
      PATH: pathWithoutRenderers(),
      HOME: repo.dir,
      KUBECONFIG: admin(),
      ...(process.env.KUSTOMIZE_BIN ? { KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN } : {})
    }
  })
}

/** The fingerprint on the line `<sign> <key>: ...` of a diff in `text` (sign ' ' for context). */
function fingerprintAt(text: string, sign: '-' | '+' | ' ', key: string): string {
  const line = new RegExp(
    `^(?: {4})?\\${sign} {2}${key}: (\\(sensitive value, fingerprint [0-9a-f]{12}\\))$`,
    'm'
  )
  const found = line.exec(text)
  if (found === null) throw new Error(`no line "${sign}  ${key}: ..." in:\n${text}`)
  return found[1]!
}

describe('Secret fingerprints', () => {
  it('confirm no dictionary guess in any output of a content diff, and tell equal from changed', async () => {
    const repo = writeFixtureRepo()
    withSecret(repo, 0)
    const base = commitAll(repo.dir, 'base')
    const merged = await runAction({
      dist,
      workspace: repo.dir,
      inputs: { config: 'tazuna.yaml', kubeconfig: admin(), 'github-token': 'gh-token' },
      eventName: 'push',
      payload: pushPayload(base),
      sha: base,
      apiUrl: emulator.url
    })
    expect(merged.status).toBe(0)
    withSecret(repo, 1)
    commitNext(repo.dir, 'head')

    const r = await runAction({
      dist,
      workspace: repo.dir,
      inputs: { config: 'tazuna.yaml', kubeconfig: reader(), 'github-token': 'gh-token' },
      eventName: 'pull_request',
      payload: pullRequestPayload({ number: 31, headSha: sha(1), baseSha: base }),
      sha: sha(2),
      apiUrl: emulator.url
    })
    expect(r.status).toBe(0)
    const body = emulator.comments.find((c) => c.issue === 31)!.body
    const reportDir = dirname(r.outputs['report-path']!)
    const [json, text, diff] = ['report.json', 'report.txt', 'report.diff'].map((f) =>
      readFileSync(join(reportDir, f), 'utf8')
    )
    const stateDiff = await cli(repo, 'state', 'diff', '--content=base', '--base', base)
    const plan = await cli(repo, 'plan')
    expect([stateDiff.code, plan.code]).toEqual([0, 0])

    const outputs: Record<string, string> = {
      comment: body,
      summary: r.summary,
      'report.json': json!,
      'report.txt': text!,
      'report.diff': diff!,
      'action log': r.stdout + r.stderr,
      'action outputs': JSON.stringify(r.outputs),
      'state diff --content': stateDiff.stdout + stateDiff.stderr,
      plan: plan.stdout + plan.stderr
    }
    // The search has something to find: the Secret's values are shown as fingerprints (report
    // files but report.diff carry the Diff's hashes only; they are searched all the same).
    for (const name of ['comment', 'summary', 'report.diff', 'state diff --content', 'plan']) {
      expect([name, fingerprintsIn(outputs[name]!).length > 0]).toEqual([name, true])
    }
    const guesses = guessDictionary([...PLANTED, ...PLANTED.map(b64)])
    const confirmed = Object.entries(outputs).flatMap(([name, output]) =>
      guessesIn(output, guesses, PLANTED).map((c) => `${name}: ${c.guess} (${c.how})`)
    )
    expect(confirmed).toEqual([])

    // Within one output, one value has one fingerprint: d1 was 1234 and d4 is now 1234, as d9
    // (unchanged) is; a changed value reads as changed.
    for (const output of [diff!, stateDiff.stdout, plan.stdout]) {
      expect(fingerprintAt(output, '-', 'd1')).toBe(fingerprintAt(output, '+', 'd4'))
      expect(fingerprintAt(output, ' ', 'd9')).toBe(fingerprintAt(output, '-', 'd1'))
      expect(fingerprintAt(output, '-', 's2')).toBe(fingerprintAt(output, '+', 's1'))
      expect(fingerprintAt(output, '-', 'd1')).not.toBe(fingerprintAt(output, '+', 'd1'))
    }
    // The key is the run's own: the same value fingerprints differently in another run.
    expect(fingerprintAt(stateDiff.stdout, '-', 'd1')).not.toBe(fingerprintAt(diff!, '-', 'd1'))
  })
})
