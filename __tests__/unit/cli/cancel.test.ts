// A command line run in process that outlives its test is cancelled and awaited before the next
// test starts (support/runs-in-flight.ts, support/end-runs-after-each.ts), and a cancelled run
// sends no further request (src/engine/cancellation.ts, src/adapters/kube/client.ts). The run is
// a real `destroy` of custom resources (a built-in kind would need no discovery) against a
// loopback HTTP server that answers discovery as an API server does, holding its first answer
// long enough for the test to end meanwhile, and records every request.
// (integration/cluster/cli-cancel.test.ts does the same with `apply --sync` on the test cluster.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../go/template/go-oracle.js'

/** How long the server holds its answer to `GET /api`: the first test ends meanwhile. */
const HOLD_MS = 2000

const seen: string[] = []
let holdApi = true
let server: http.Server
let env: Record<string, string | undefined>
let file: string

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const request = `${req.method} ${req.url?.replace(/\?.*/, '')}`
  seen.push(request)
  const json = (body: unknown): void => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  if (request === 'GET /api') {
    const reply = () => json({ kind: 'APIVersions', versions: ['v1'] })
    if (holdApi) setTimeout(reply, HOLD_MS)
    else reply()
  } else if (request === 'GET /apis') {
    const version = { groupVersion: 'example.com/v1', version: 'v1' }
    json({
      kind: 'APIGroupList',
      groups: [{ name: 'example.com', versions: [version], preferredVersion: version }]
    })
  } else if (request === 'GET /api/v1') json({ kind: 'APIResourceList', resources: [] })
  else if (request === 'GET /apis/example.com/v1') {
    json({
      kind: 'APIResourceList',
      groupVersion: 'example.com/v1',
      resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }]
    })
  } else json({ kind: 'Status', status: 'Success' })
}

beforeAll(async () => {
  server = http.createServer(answer)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-cancel-'))
  const kubeconfig = path.join(dir, 'kubeconfig')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      // client-node takes plain http only with insecure-skip-tls-verify.
      clusters: [{ name: 'loopback', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'test', user: {} }],
      contexts: [{ name: 'loopback', context: { cluster: 'loopback', user: 'test' } }],
      'current-context': 'loopback'
    }),
    { mode: 0o600 }
  )
  mkdirSync(path.join(dir, 'base'))
  const objects = ['a', 'b'].map((name) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'app' }
  }))
  writeFileSync(
    path.join(dir, 'base', 'objects.yaml'),
    objects.map((o) => JSON.stringify(o)).join('\n---\n')
  )
  writeFileSync(path.join(dir, 'base', 'kustomization.yaml'), 'resources: [objects.yaml]\n')
  file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    JSON.stringify({ spec: { manifests: [{ name: 'web', type: 'kustomize', path: './base' }] } })
  )
  env = {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    KUBECONFIG: kubeconfig,
    TAZUNA_DESTROY_EXECUTABLE: 'true',
    TAZUNA_GOTEMPLATE_WASM: goTemplateEngineFiles().wasm,
    ...renderModuleEnv()
  }
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const destroy = (): Promise<CliResult> => runCliInProcess(['destroy', '--force', '-f', file], env)

let leftBehind: Promise<CliResult>
let ended = false

describe('a command line run its test leaves in flight', () => {
  it('is still running when its test ends (waiting for discovery)', async () => {
    leftBehind = destroy()
    void leftBehind.then(() => {
      ended = true
    })
    while (!seen.includes('GET /api') && !ended) await sleep(20)
    expect(ended).toBe(false)
  })

  it('has been cancelled, and has ended before the next test starts', async () => {
    expect(ended).toBe(true)
    const result = await leftBehind
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the run was cancelled (its test ended)')
  })

  it('sent no write after its test ended', () => {
    expect(seen.filter((r) => !r.startsWith('GET '))).toEqual([])
  })

  it('deletes both objects when not cancelled (the server takes the writes)', async () => {
    holdApi = false
    seen.length = 0
    const result = await destroy()
    expect(result.code).toBe(0)
    expect(seen.filter((r) => !r.startsWith('GET ')).sort()).toEqual([
      'DELETE /apis/example.com/v1/namespaces/app/widgets/a',
      'DELETE /apis/example.com/v1/namespaces/app/widgets/b'
    ])
  })
})
