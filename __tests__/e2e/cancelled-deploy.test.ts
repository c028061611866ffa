/**
 * A deploy cancelled the way GitHub's runner cancels a job (docs/reliability.md#cancellation):
 * SIGINT to the action's process, SIGTERM 7.5 s later if it is still there. Four manifests in
 * three layers go to the real test API server through a loopback proxy that holds chosen
 * requests, so that the signal lands in the middle of layer 2: while `saved`'s State write and
 * `slow`'s first object (a LimitRange, the wave before its ConfigMaps) are on their way.
 *
 * Expected, from the guarantees of docs/reliability.md: the run ends well inside the runner's
 * 7.5 s; the Lease is gone when the process has exited; `first` and `saved` (all of their objects
 * applied) recorded their new State, whole; `slow` (cut short) and `last` (layer 3, never
 * started) kept their old State, which still names their objects as the cluster holds them; the
 * summary and the pull request say where it stopped and what was and was not applied; a re-run
 * takes the lock at once and applies exactly the rest; the run after it changes nothing. The
 * command line's apply behaves the same on SIGINT; a second signal stops at once, lock released;
 * a Diff run signalled before it posts leaves the pull request's comment as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { KubeSession } from '../../src/adapters/kube/session.js'
import { lockNameFor } from '../../src/apply/lease-lock.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { adminSession, uniqueName } from '../support/cluster.js'
import { startFaultProxy, type FaultProxy, type FaultRule } from '../support/fault-proxy.js'
import { commitAll, commitNext, git, mergeBranch } from '../support/git-repo.js'
import { pathWithoutRenderers } from '../support/runner-path.js'
import {
  botToken,
  buildFreshDist,
  kubeconfigs,
  pullRequestPayload,
  pushPayload,
  startAction,
  type ActionResult,
  type StartedAction
} from './harness.js'

const id = uniqueName('cancel')
const names = {
  first: `${id}-first`,
  saved: `${id}-saved`,
  slow: `${id}-slow`,
  last: `${id}-last`
}
const lock = lockNameFor(Object.values(names), '')

let dist: string
let emulator: GitHubEmulator
let proxy: FaultProxy
let admin: KubeSession
let repo: string
let adminVia: string
let readerVia: string

const PASS: FaultRule = () => ({ kind: 'pass' })
const isSlowFirstObject = (r: { method: string; path: string }): boolean =>
  r.method === 'PATCH' && r.path.startsWith(`/api/v1/namespaces/${id}/limitranges/slow`)
const isSavedStateWrite = (r: { method: string; path: string }): boolean =>
  r.method === 'PUT' &&
  r.path === `/api/v1/namespaces/tazuna/configmaps/tazuna-state-${names.saved}`
const isLeaseRequest = (r: { path: string }): boolean =>
  r.path.startsWith('/apis/coordination.k8s.io/v1/namespaces/tazuna/leases')

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({ tokens: botToken })
  admin = await adminSession()
  proxy = await startFaultProxy({
    upstream: admin.client.server,
    certDir: join(process.env.TAZUNA_TEST_CLUSTER_DIR ?? '', 'certs')
  })
  const dir = mkdtempSync(join(tmpdir(), `tazuna-${id}-`))
  adminVia = proxy.kubeconfigVia(kubeconfigs.admin(), join(dir, 'admin.kubeconfig'))
  readerVia = proxy.kubeconfigVia(kubeconfigs.reader(), join(dir, 'reader.kubeconfig'))
  repo = join(dir, 'repo')
  mkdirSync(repo)
  writeRepository(repo, 1)
  commitAll(repo, 'Deploy four manifests in three layers')
}, 300_000)

afterAll(async () => {
  await proxy?.close()
  await admin?.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: id })
  admin?.close()
  await emulator?.close()
})

/** tazuna.yaml and its manifests at `version`: every ConfigMap's data and the LimitRange's label. */
function writeRepository(dir: string, version: number): void {
  const file = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const configMaps = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) =>
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        `metadata: {name: ${prefix}-${i}}`,
        `data: {version: "${version}"}`
      ].join('\n')
    )
  const manifest = (name: string, docs: string[]) => {
    file(`manifests/${name}/objects.yaml`, `${docs.join('\n---\n')}\n`)
    file(`manifests/${name}/kustomization.yaml`, `resources: [objects.yaml]\nnamespace: ${id}\n`)
  }
  file(
    'tazuna.yaml',
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      `    - {name: ${names.first}, type: kustomize, path: manifests/first}`,
      `    - {name: ${names.saved}, type: kustomize, path: manifests/saved, dependsOn: [${names.first}]}`,
      `    - {name: ${names.slow}, type: kustomize, path: manifests/slow, dependsOn: [${names.first}]}`,
      `    - {name: ${names.last}, type: kustomize, path: manifests/last, dependsOn: [${names.saved}, ${names.slow}]}`,
      ''
    ].join('\n')
  )
  manifest('first', [
    `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${id}}`,
    ...configMaps('first', 2)
  ])
  manifest('saved', configMaps('saved', 2))
  manifest('slow', [
    `apiVersion: v1\nkind: LimitRange\nmetadata: {name: slow, labels: {version: "${version}"}}\nspec: {limits: [{type: Container, max: {cpu: "2"}}]}`,
    ...configMaps('slow', 3)
  ])
  manifest('last', configMaps('last', 1))
}

function mergeRun(commit: string, reviewed: 'warn' | 'off'): StartedAction {
  return startAction({
    dist,
    workspace: repo,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: adminVia,
      'github-token': 'gh-token',
      'reviewed-diff': reviewed
    },
    eventName: 'push',
    payload: pushPayload(commit),
    sha: commit,
    apiUrl: emulator.url
  })
}

function diffRun(number: number, head: string): StartedAction {
  return startAction({
    dist,
    workspace: repo,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: readerVia,
      'github-token': 'gh-token',
      'content-diff': 'off'
    },
    eventName: 'pull_request',
    payload: pullRequestPayload({ number, headSha: head }),
    sha: head,
    apiUrl: emulator.url
  })
}

/** Waits until the proxy has seen, from its `from`-th request on, every request `wanted` names. */
async function whenProxySaw(
  from: number,
  ...wanted: ((r: { method: string; path: string }) => boolean)[]
): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const seen = proxy.requests.slice(from)
    if (wanted.every((w) => seen.some(w))) return
    await sleep(25)
  }
  throw new Error('the run never sent the request the test waits for')
}

/** Each manifest's State ConfigMap data, as the API server holds it. */
async function states(): Promise<Record<string, Record<string, string> | undefined>> {
  const out: Record<string, Record<string, string> | undefined> = {}
  for (const [key, manifest] of Object.entries(names)) {
    const cm = await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'tazuna',
      name: `tazuna-state-${manifest}`
    })
    out[key] = cm?.data as Record<string, string> | undefined
  }
  return out
}

/** `version` of every ConfigMap of a manifest, as the cluster holds them. */
async function versionsIn(prefix: string, count: number): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const cm = await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: id,
      name: `${prefix}-${i}`
    })
    out.push(String((cm?.data as Record<string, string> | undefined)?.version))
  }
  return out
}

/** The State entries of a manifest, without `_metadata` (its sync time differs per run). */
const entriesOf = (data: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(data ?? {}).filter(([key]) => key !== '_metadata'))

const visibleLines = (body: string): string[] =>
  body.split('\n').filter((l) => l.trim() !== '' && !/^<!--.*-->$/.test(l))

let before: Awaited<ReturnType<typeof states>>
let cancelled: ActionResult
let sinceSignalMs: number

describe('a merge run cancelled (SIGINT) in the middle of layer 2 of 3', () => {
  it('first: version 1 is applied cleanly', async () => {
    const head = git(repo, 'rev-parse', 'HEAD').trim()
    const run = await mergeRun(head, 'off').done
    expect(run.status).toBe(0)
    before = await states()
    expect(Object.values(before).every((d) => d !== undefined)).toBe(true)
  })

  it('ends within the runner’s 7.5 s, the Lease gone when it has exited', async () => {
    git(repo, 'checkout', '-q', '-b', 'pull-52')
    writeRepository(repo, 2)
    const head = commitNext(repo, 'Version 2 of everything')
    const pull = { owner: 'acme', repo: 'deploy', number: 52, headCommits: [head] }
    emulator.registerPull(pull)
    expect((await diffRun(52, head).done).status).toBe(0)
    const [merge] = mergeBranch(repo, 'pull-52', 'merge', 'Merge pull request #52')
    emulator.registerPull({ ...pull, merge: { style: 'merge', commits: [merge!] } })

    proxy.setRule((r) =>
      isSlowFirstObject(r) || isSavedStateWrite(r) ? { kind: 'delay', ms: 1500 } : { kind: 'pass' }
    )
    const from = proxy.requests.length
    const run = mergeRun(merge!, 'warn')
    await whenProxySaw(from, isSlowFirstObject, isSavedStateWrite)
    const signalled = Date.now()
    run.child.kill('SIGINT')
    cancelled = await run.done
    sinceSignalMs = Date.now() - signalled
    proxy.setRule(PASS)

    expect(sinceSignalMs).toBeLessThan(7500)
    expect(cancelled.status).toBe(1)
    expect(await admin.leases.read(lock)).toBeUndefined()
    // Nothing of layer 3, and nothing of `slow` after its first object, went out.
    const sent = proxy.requests.slice(from).map((r) => `${r.method} ${r.path.replace(/\?.*/, '')}`)
    expect(sent.filter((r) => r.includes(`/configmaps/last-`))).toEqual([])
    expect(sent.filter((r) => r.includes(`/configmaps/slow-`))).toEqual([])
  })

  it('saved the State of the manifests applied whole, new and whole; the others kept theirs', async () => {
    const after = await states()
    expect(entriesOf(after.first)).not.toEqual(entriesOf(before.first))
    expect(entriesOf(after.saved)).not.toEqual(entriesOf(before.saved))
    expect(after.slow).toEqual(before.slow)
    expect(after.last).toEqual(before.last)
    // Every entry names an object as the cluster holds it.
    expect(await versionsIn('first', 2)).toEqual(['2', '2'])
    expect(await versionsIn('saved', 2)).toEqual(['2', '2'])
    expect(await versionsIn('slow', 3)).toEqual(['1', '1', '1'])
    expect(await versionsIn('last', 1)).toEqual(['1'])
  })

  it('says in the summary, the log and report.json where it stopped and what was applied', () => {
    expect(cancelled.summary).toContain(
      '**Cancelled (SIGINT) in layer 2 of 3.** 2 of 4 manifests applied'
    )
    expect(cancelled.summary).toContain(`| \`${names.slow}\` | ⚠️ cancelled, State not saved |`)
    expect(cancelled.summary).toContain(`| \`${names.last}\` | ⏸️ not run |`)
    expect(cancelled.summary).toContain('A re-run of the job applies what is missing.')
    expect(cancelled.stdout).toContain('::warning::SIGINT: the run was cancelled.')
    expect(cancelled.stdout).toContain('::error::the run was cancelled (SIGINT) in layer 2 of 3')
    const report = JSON.parse(readFileSync(cancelled.outputs['report-path']!, 'utf8')) as {
      cancelled: unknown
      layers: { manifest: string; result: string }[][]
    }
    expect(report.cancelled).toEqual({ layer: 1, reason: 'SIGINT' })
    expect(report.layers.map((l) => l.map((m) => m.result))).toEqual([
      ['applied'],
      ['applied', 'cancelled'],
      ['not-run']
    ])
  })

  it('tells the merged pull request, from the first line of its comment', () => {
    const body = emulator.comments.find((c) => c.issue === 52)!.body
    expect(visibleLines(body)[0]).toBe(
      '### ⚠️ Cancelled (SIGINT) in layer 2 of 3: 2 of 4 manifests not applied, a re-run converges, reviewed Diff'
    )
    expect(body).toContain(`| \`${names.saved}\` | ✅ applied |`)
    expect(body).toContain(`Not applied: \`${names.slow}\`, \`${names.last}\`.`)
  })

  it('leaves the lock free: a re-run takes it at once and applies exactly the rest', async () => {
    const from = proxy.requests.length
    const merge = git(repo, 'rev-parse', 'HEAD').trim()
    const rerun = await mergeRun(merge, 'warn').done
    expect(rerun.status).toBe(0)
    expect(rerun.stdout).not.toContain('waiting for lock')
    const leases = proxy.requests.slice(from).filter(isLeaseRequest)
    expect(leases[0]).toMatchObject({ method: 'POST', upstreamStatus: 201 })
    expect(rerun.outputs['changed-manifests']).toBe(`${names.slow},${names.last}`)
    expect(await versionsIn('slow', 3)).toEqual(['2', '2', '2'])

    const again = await mergeRun(merge, 'off').done
    expect(again.status).toBe(0)
    expect(again.outputs['has-changes']).toBe('false')
  })
})

describe('the command line’s apply, Ctrl-C in the middle of layer 2', () => {
  it('ends with a line per manifest and exit code 130, State true and the lock released', async () => {
    writeRepository(repo, 3)
    commitNext(repo, 'Version 3 of everything')
    const before3 = await states()
    proxy.setRule((r) => (isSlowFirstObject(r) ? { kind: 'delay', ms: 1500 } : { kind: 'pass' }))
    const from = proxy.requests.length
    const child = spawn(process.execPath, [join(dist, 'cli.js'), 'apply', '--sync'], {
      cwd: repo,
      env: {
        PATH: pathWithoutRenderers(),
        HOME: dirname(repo),
        KUBECONFIG: adminVia,
        ...pick(['HELM_BIN', 'KUSTOMIZE_BIN', 'TAZUNA_ACTION_CACHE', 'TMPDIR'])
      }
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    await whenProxySaw(from, isSlowFirstObject)
    child.kill('SIGINT')
    const code = await exited
    proxy.setRule(PASS)

    expect(code).toBe(130)
    expect(stderr).toContain('Press Ctrl-C again to stop now (the lock is released first).')
    expect(stderr).toContain(`manifest "${names.first}": applied, State saved\n`)
    expect(stderr).toContain(`manifest "${names.saved}": applied, State saved\n`)
    expect(stderr).toContain(
      `manifest "${names.slow}": cancelled before all of its objects were applied, State not saved\n`
    )
    expect(stderr).toContain(`manifest "${names.last}": not run\n`)
    expect(stderr).toContain(
      'error: the run was cancelled (SIGINT) in layer 2 of 3; a re-run applies what is missing\n'
    )
    expect(await admin.leases.read(lock)).toBeUndefined()
    const after = await states()
    expect(after.slow).toEqual(before3.slow)
    expect(await versionsIn('slow', 3)).toEqual(['2', '2', '2'])
    expect(await versionsIn('saved', 2)).toEqual(['3', '3'])
  })
})

describe('a second signal', () => {
  it('SIGINT, then SIGTERM 1 s later, while a request hangs: exits at once, the lock released first', async () => {
    writeRepository(repo, 4)
    const head = commitNext(repo, 'Version 4 of everything')
    // The LimitRange's apply hangs past the grace period: only the second signal ends it.
    proxy.setRule((r) => (isSlowFirstObject(r) ? { kind: 'delay', ms: 15_000 } : { kind: 'pass' }))
    const from = proxy.requests.length
    const run = mergeRun(head, 'off')
    await whenProxySaw(from, isSlowFirstObject)
    run.child.kill('SIGINT')
    await sleep(1000)
    const terminated = Date.now()
    run.child.kill('SIGTERM')
    const result = await run.done
    const sinceTermMs = Date.now() - terminated
    proxy.setRule(PASS)

    expect(sinceTermMs).toBeLessThan(2500)
    expect(result.status).not.toBe(0)
    expect(result.stdout).toContain('stopping now (SIGTERM after SIGINT): releasing the lock')
    expect(await admin.leases.read(lock)).toBeUndefined()
  })
})

describe('a Diff run signalled before it posts', () => {
  it('creates and changes no comment', async () => {
    const comments = JSON.stringify(emulator.comments)
    writeRepository(repo, 5)
    const head = commitNext(repo, 'Version 5 of everything')
    emulator.registerPull({ owner: 'acme', repo: 'deploy', number: 53, headCommits: [head] })
    const isStateList = (r: { method: string; path: string }) =>
      r.method === 'GET' && r.path.startsWith('/api/v1/namespaces/tazuna/configmaps?')
    proxy.setRule((r) => (isStateList(r) ? { kind: 'delay', ms: 3000 } : { kind: 'pass' }))
    const from = proxy.requests.length
    const run = diffRun(53, head)
    await whenProxySaw(from, isStateList)
    run.child.kill('SIGINT')
    const result = await run.done
    proxy.setRule(PASS)

    expect(result.status).not.toBe(0)
    expect(JSON.stringify(emulator.comments)).toBe(comments)
  })
})

const pick = (keys: string[]): Record<string, string> =>
  Object.fromEntries(keys.flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])))

describe('a merge run with wait: true, cancelled while layer 1 waits for health', () => {
  it('stops waiting at once: layer 1 applied and recorded, layer 2 not started, the lock released', async () => {
    const waitId = uniqueName('cancel-wait')
    const dir = join(dirname(repo), 'wait-repo')
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
    const app = `${waitId}-app`
    const after = `${waitId}-after`
    file(
      'tazuna.yaml',
      [
        'apiVersion: tazuna.pepabo.com/v1',
        'kind: Tazuna',
        'spec:',
        '  manifests:',
        `    - {name: ${app}, type: kustomize, path: app}`,
        `    - {name: ${after}, type: kustomize, path: after, dependsOn: [${app}]}`,
        ''
      ].join('\n')
    )
    file('app/kustomization.yaml', `resources: [app.yaml]\n`)
    // Pods that never become ready (the test cluster's kwok stage, __tests__/cluster/README.md).
    file(
      'app/app.yaml',
      [
        `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${waitId}}\n---`,
        'apiVersion: apps/v1',
        'kind: Deployment',
        `metadata: {name: web, namespace: ${waitId}}`,
        'spec:',
        '  replicas: 1',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web, tazuna.test/failure: never-ready}}',
        '    spec: {containers: [{name: web, image: registry.example/web:1}]}',
        ''
      ].join('\n')
    )
    file('after/kustomization.yaml', `resources: [after.yaml]\nnamespace: ${waitId}\n`)
    file('after/after.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: after}\n')
    commitAll(dir, 'A Deployment that never becomes ready, then a ConfigMap')
    const head = git(dir, 'rev-parse', 'HEAD').trim()
    const isWatch = (r: { method: string; path: string }) =>
      r.method === 'GET' && r.path.includes('watch=')
    const from = proxy.requests.length
    const run = startAction({
      dist,
      workspace: dir,
      inputs: {
        config: 'tazuna.yaml',
        kubeconfig: adminVia,
        'github-token': 'gh-token',
        'reviewed-diff': 'off',
        wait: 'true',
        'wait-timeout': '5m'
      },
      eventName: 'push',
      payload: pushPayload(head),
      sha: head,
      apiUrl: emulator.url
    })
    try {
      await whenProxySaw(from, isWatch)
      const signalled = Date.now()
      run.child.kill('SIGINT')
      const result = await run.done
      expect(Date.now() - signalled).toBeLessThan(7500)
      expect(result.status).toBe(1)
      expect(result.summary).toContain('**Cancelled (SIGINT) in layer 1 of 2.**')
      expect(result.summary).toContain(`| \`${after}\` | ⏸️ not run |`)
      const sent = proxy.requests.slice(from).map((r) => `${r.method} ${r.path}`)
      expect(sent.filter((r) => r.includes('/configmaps/after'))).toEqual([])
      const lockOf = lockNameFor([app, after], '')
      expect(await admin.leases.read(lockOf)).toBeUndefined()
      const state = await admin.cluster.get({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'tazuna',
        name: `tazuna-state-${app}`
      })
      expect(Object.keys((state?.data ?? {}) as object).length).toBe(3)
    } finally {
      await admin.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: waitId })
    }
  })
})
