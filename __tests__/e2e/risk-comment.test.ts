/**
 * The pull-request comment with risks at the top, end to end: `node index.js` of a fresh
 * bundle on the real test cluster and the loopback GitHub emulator. The base is applied; the
 * pull request changes the Deployment's selector (the API server refuses that) and removes a
 * PersistentVolumeClaim with prune on (its data goes). The posted comment is parsed with a real
 * CommonMark + GFM parser (micromark, as GitHub's cmark-gfm reads it) and must be well-formed
 * HTML with the risks before the first entry.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { micromark } from 'micromark'
import { gfm, gfmHtml } from 'micromark-extension-gfm'
import { GitHubEmulator } from '../github-emulator/server.js'
import { writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext } from '../support/git-repo.js'
import { balanceOf, wellFormed } from '../unit/report/well-formed.js'
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

const claim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`

/** The web manifest: its Deployment (selecting `app: <label>`), and the claim when given. */
function writeWeb(repo: FixtureRepo, label: string, withClaim: boolean): void {
  const dir = join(repo.dir, 'manifests', 'web')
  const deployment = readFileSync(join(dir, 'deployment.yaml'), 'utf8').replace(
    /\{app: web\d*\}/g,
    `{app: ${label}}`
  )
  writeFileSync(join(dir, 'deployment.yaml'), deployment)
  writeFileSync(join(dir, 'pvc.yaml'), claim)
  const resources = ['deployment.yaml', 'service.yaml', ...(withClaim ? ['pvc.yaml'] : [])]
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `  - ${r}\n`).join('')}`
  )
}

/** Tags HTML that the comment's Markdown may produce; anything else came from a raw `<`. */
const allowedTags = new Set(
  'a b blockquote br code del details em h3 h4 h5 li ol p pre strong sub summary table tbody td th thead tr ul'.split(
    ' '
  )
)

/** The HTML of GitHub-flavoured Markdown, raw HTML kept (GitHub then sanitizes it). */
const toHtml = (markdown: string): string =>
  micromark(markdown, {
    allowDangerousHtml: true,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()]
  })

const count = (text: string, pattern: RegExp): number => (text.match(pattern) ?? []).length

describe('a pull request that changes a selector and prunes a claim', () => {
  let body: string
  let html: string
  beforeAll(async () => {
    const repo = writeFixtureRepo()
    writeWeb(repo, 'web', true)
    const base = commitAll(repo.dir, 'base')
    const merge = await runAction({
      dist,
      workspace: repo.dir,
      inputs: { config: 'tazuna.yaml', kubeconfig: admin(), 'github-token': 'gh-token' },
      eventName: 'push',
      payload: pushPayload(base),
      sha: base,
      apiUrl: emulator.url
    })
    if (merge.status !== 0) throw new Error(`the base apply failed:\n${merge.stdout}`)
    writeWeb(repo, 'web2', false)
    const head = commitNext(repo.dir, 'head')
    const pr = await runAction({
      dist,
      workspace: repo.dir,
      inputs: {
        config: 'tazuna.yaml',
        kubeconfig: reader(),
        'github-token': 'gh-token',
        prune: 'true'
      },
      eventName: 'pull_request',
      payload: pullRequestPayload({ number: 31, headSha: head, baseSha: base }),
      sha: head,
      apiUrl: emulator.url
    })
    if (pr.status !== 0) throw new Error(`the pull-request run failed:\n${pr.stdout}`)
    body = emulator.comments.find((c) => c.issue === 31)!.body
    html = toHtml(body)
  }, 600_000)

  it('counts the risks on the first visible line', () => {
    expect(body.split('\n')[1]).toBe(
      '**⚠ 1 change will fail on apply, 1 deletes data.** Review these first:'
    )
  })

  it('names each risk with its object and field, before the entries', () => {
    const risks = html.indexOf('<strong>⚠ 1 change will fail on apply, 1 deletes data.</strong>')
    const selector = html.search(
      /<strong>will fail on apply<\/strong>: <code>[^<]*Deployment\/[^<]*\/web<\/code> <code>spec\.selector<\/code>/
    )
    const claimRisk = html.search(
      /<strong>deletes data<\/strong>: <code>[^<]*PersistentVolumeClaim\/[^<]*\/data<\/code>/
    )
    const firstEntry = Math.min(
      ...[
        '<b>modified</b>',
        '<b>removed</b>',
        '<strong>modified</strong>',
        '<strong>removed</strong>'
      ]
        .map((t) => html.indexOf(t))
        .filter((i) => i >= 0)
    )
    expect(risks).toBeGreaterThan(-1)
    expect(selector).toBeGreaterThan(risks)
    expect(claimRisk).toBeGreaterThan(risks)
    expect(firstEntry).toBeGreaterThan(Math.max(selector, claimRisk))
    expect(html).toMatch(
      /<b>modified<\/b> <code>apps\/v1\/Deployment\/[^<]+\/web<\/code> — ⚠ will fail on apply<\/summary>/
    )
    expect(html).toMatch(
      /<b>removed<\/b> <code>\/v1\/PersistentVolumeClaim\/[^<]+\/data<\/code> — ⚠ deletes data<\/summary>/
    )
  })

  it('is well-formed: fences and <details> close, and every tag is one the comment means', () => {
    expect(balanceOf(body)).toEqual(wellFormed)
    expect(count(html, /<details[ >]/g)).toBe(count(html, /<\/details>/g))
    expect(count(html, /<pre>/g)).toBe(count(html, /<\/pre>/g))
    const tags = [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase())
    expect(tags.filter((t) => !allowedTags.has(t))).toEqual([])
    // The diffs are code, not Markdown: their `+`/`-` lines never become lists.
    expect(html).toMatch(/<pre><code class="language-diff">--- base\n\+\+\+ head\n/)
  })

  it('keeps the hashes in the one technical block at the end', () => {
    const block = html.indexOf('<summary>Content hashes (what Tazuna records in State)</summary>')
    expect(block).toBeGreaterThan(html.indexOf('<b>removed</b>'))
    expect(count(html, /<summary>Content hashes/g)).toBe(1)
    expect(html.slice(0, block)).not.toMatch(/[0-9a-f]{12} -&gt; [0-9a-f]{12}/)
  })
})
