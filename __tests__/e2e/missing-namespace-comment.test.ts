/**
 * A pull request that adds a kustomize manifest whose ConfigMap has no namespace and no
 * `kustomize.defaultNamespace` (docs/compatibility.md#objects-without-a-namespace), run from the
 * bundle as GitHub runs it against the loopback GitHub emulator: the sticky comment shows, on
 * that manifest, the error naming the manifest, the object and the fix; the other manifests'
 * Diff is still there; nothing is created in the cluster (the run has the read-only kubeconfig,
 * and the merge run that would follow refuses the object before sending it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { KubeSession } from '../../src/adapters/kube/session.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { adminSession } from '../support/cluster.js'
import { writeFixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext } from '../support/git-repo.js'
import { buildFreshDist, pullRequestPayload, runAction, botToken } from './harness.js'

let dist: string
let emulator: GitHubEmulator
let admin: KubeSession
beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({
    tokens: botToken
  })
  admin = await adminSession()
}, 300_000)
afterAll(async () => {
  admin?.close()
  await emulator?.close()
})

/** Adds manifest `name` (kustomize, no defaultNamespace) with ConfigMap `name` lacking a namespace. */
function addNamespacelessManifest(dir: string, name: string): void {
  const path = join(dir, 'manifests', 'nsless')
  mkdirSync(path, { recursive: true })
  writeFileSync(join(path, 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
  writeFileSync(
    join(path, 'cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n`
  )
  const config = join(dir, 'tazuna.yaml')
  writeFileSync(
    config,
    `${readFileSync(config, 'utf8')}    - name: ${name}\n      type: kustomize\n      path: manifests/nsless\n`
  )
}

describe('a pull request adding a namespaced object without a namespace', () => {
  it('shows the error on that manifest in the sticky comment, the other Diffs, and creates nothing', async () => {
    const repo = writeFixtureRepo()
    const base = commitAll(repo.dir, 'base')
    const nsless = `${repo.id}-nsless`
    addNamespacelessManifest(repo.dir, nsless)
    const head = commitNext(repo.dir, 'add a manifest without a namespace')

    const run = await runAction({
      dist,
      workspace: repo.dir,
      inputs: {
        config: 'tazuna.yaml',
        kubeconfig: process.env.TAZUNA_TEST_READER_KUBECONFIG!,
        'github-token': 'gh-token'
      },
      eventName: 'pull_request',
      payload: pullRequestPayload({ number: 29, headSha: head, baseSha: base }),
      sha: head,
      apiUrl: emulator.url
    })

    const comments = emulator.comments.filter((c) => c.issue === 29)
    expect({ comments: comments.length, run: comments.length === 1 ? '' : run.stdout }).toEqual({
      comments: 1,
      run: ''
    })
    const body = comments[0]!.body
    expect(body).toContain(`<code>${nsless}</code> (kustomize): failed to render, no Diff`)
    expect(body).toContain(`manifest "${nsless}": failed to build: manifests/nsless`)
    expect(body).toContain(`v1 ConfigMap ${nsless} is namespaced but has no namespace`)
    expect(body).toContain('set `kustomize.defaultNamespace: <namespace>`')
    expect(body).toContain('+ added        apps/v1/Deployment/')
    expect(body).toContain(repo.manifests.web)
    expect(run.status).toBe(1)
    expect(run.stdout).toContain(`::error::manifest "${nsless}": failed to build: `)

    const cm = (namespace: string) =>
      admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: nsless })
    expect([await cm('default'), await cm(repo.namespace)]).toEqual([undefined, undefined])
  })
})
