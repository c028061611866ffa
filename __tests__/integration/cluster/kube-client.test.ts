// Kubeconfig loading and the HTTP client against loopback servers we control and the test API
// server: guidance when there is no usable kubeconfig, retries of transient failures within a
// bounded time, no retry of permanent ones, one keep-alive connection, one TLS context for all
// connections, client certificates, no credentials in messages.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import tls from 'node:tls'
import path from 'node:path'
import { afterEach, describe, expect, it } from '@jest/globals'
import { KubeClient } from '../../../src/adapters/kube/client.js'
import { KubeCluster } from '../../../src/adapters/kube/cluster.js'
import { KubeDiscovery } from '../../../src/adapters/kube/discovery.js'
import { loadKubeConfig } from '../../../src/adapters/kube/config.js'
import { openKubeSession } from '../../../src/adapters/kube/session.js'
import { ClusterError } from '../../../src/errors.js'
import { adminKubeconfig } from '../../support/cluster.js'
import { selfSignedCertificate } from '../../support/oras-artifacts.js'

const TOKEN = 'secret-token-1234567890'

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'kube-client-'))
}

function kubeconfigFile(
  server: string,
  extra: {
    currentContext?: string
    cluster?: Record<string, unknown>
    user?: Record<string, unknown>
  } = {}
): string {
  const file = path.join(tempDir(), 'config')
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'c', cluster: extra.cluster ?? { server, 'insecure-skip-tls-verify': true } }
    ],
    users: [{ name: 'u', user: extra.user ?? { token: TOKEN } }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': extra.currentContext ?? 'ctx'
  }
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 })
  return file
}

interface FakeServer {
  url: string
  requests: { method: string; url: string; authorization: string }[]
  connections: number
  close(): Promise<void>
}

const servers: FakeServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

/** An HTTP server answering with `responses` in turn (the last one repeats). */
async function fakeServer(
  responses: { status: number; body?: unknown; headers?: Record<string, string> }[]
): Promise<FakeServer> {
  const state = { requests: [] as FakeServer['requests'], connections: 0 }
  const server = http.createServer((req, res) => {
    state.requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization ?? ''
    })
    const r = responses[Math.min(state.requests.length - 1, responses.length - 1)] ?? {
      status: 200
    }
    req.resume()
    res.writeHead(r.status, { 'Content-Type': 'application/json', ...r.headers })
    res.end(JSON.stringify(r.body ?? {}))
  })
  server.on('connection', () => state.connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const fake: FakeServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests
    },
    get connections() {
      return state.connections
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  servers.push(fake)
  return fake
}

/** Listens on loopback, to be closed after the test; the server's URL. */
async function listening(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  servers.push({
    url,
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  })
  return url
}

/**
 * An HTTP server that destroys the connection of its first `failures` requests (or leaves them
 * unanswered, `hang`), then answers 200.
 */
async function resettingServer(
  failures: number,
  mode: 'reset' | 'hang' = 'reset'
): Promise<{ url: string; requests: () => number }> {
  let requests = 0
  const server = http.createServer((req, res) => {
    requests++
    req.resume()
    if (requests <= failures) {
      if (mode === 'reset') req.socket.destroy()
      return
    }
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end('{}')
  })
  return { url: await listening(server), requests: () => requests }
}

async function clientFor(server: string, budgetMs = 5000): Promise<KubeClient> {
  const loaded = await loadKubeConfig({ env: { KUBECONFIG: kubeconfigFile(server) } })
  return new KubeClient(loaded, {
    retry: { budgetMs, initialDelayMs: 20, maxDelayMs: 100, requestTimeoutMs: 2000 }
  })
}

describe('loadKubeConfig', () => {
  it('fails with guidance when there is no kubeconfig at all', async () => {
    const home = tempDir()
    await expect(loadKubeConfig({ env: {}, homeDir: home })).rejects.toThrow(
      `no kubeconfig found: KUBECONFIG is not set and ${home}/.kube/config does not exist. Set up cluster access`
    )
  })

  it('fails when KUBECONFIG names only missing files', async () => {
    await expect(loadKubeConfig({ env: { KUBECONFIG: '/nope/a:/nope/b' } })).rejects.toThrow(
      'KUBECONFIG names no existing file (/nope/a, /nope/b).'
    )
  })

  it('fails when the current context is not set', async () => {
    const file = kubeconfigFile('https://127.0.0.1:1', { currentContext: '' })
    await expect(loadKubeConfig({ env: { KUBECONFIG: file } })).rejects.toThrow(
      `kubeconfig ${file} has no current-context`
    )
  })

  it('does not quote file content (a token) when the file is not valid YAML', async () => {
    const file = path.join(tempDir(), 'config')
    writeFileSync(file, `users: [ {token: ${TOKEN}\n  : : :`, { mode: 0o600 })
    const error = await loadKubeConfig({ env: { KUBECONFIG: file } }).then(
      () => undefined,
      (e: unknown) => e as Error
    )
    expect(error).toBeInstanceOf(ClusterError)
    expect(error?.message).toContain(`cannot read kubeconfig ${file}`)
    expect(error?.message).not.toContain(TOKEN)
  })

  it('merges several KUBECONFIG files and skips missing ones like kubectl', async () => {
    const file = kubeconfigFile('https://127.0.0.1:6443')
    const loaded = await loadKubeConfig({
      env: { KUBECONFIG: ['/nope', file].join(path.delimiter) }
    })
    expect(loaded).toMatchObject({ server: 'https://127.0.0.1:6443', context: 'ctx', source: file })
  })
})

describe('KubeClient', () => {
  it('retries 503 and 429 and then returns the answer', async () => {
    const server = await fakeServer([
      { status: 503 },
      { status: 429, headers: { 'Retry-After': '0' } },
      { status: 200, body: { ok: 1 } }
    ])
    const res = await (
      await clientFor(server.url)
    ).request({ method: 'GET', path: '/api' }, 'probe')
    expect(res.status).toBe(200)
    expect(server.requests).toHaveLength(3)
    expect(server.requests[0]?.authorization).toBe(`Bearer ${TOKEN}`)
  })

  it('does not retry a 500 without Retry-After or a timeout message', async () => {
    const server = await fakeServer([
      { status: 500, body: { kind: 'Status', message: 'field not declared in schema' } }
    ])
    const res = await (
      await clientFor(server.url)
    ).request({ method: 'PATCH', path: '/api/v1/x', body: {} }, 'probe')
    expect(res.status).toBe(500)
    expect(server.requests).toHaveLength(1)
  })

  it('retries a 500 that reports an etcd timeout', async () => {
    const server = await fakeServer([
      { status: 500, body: { message: 'etcdserver: request timed out' } },
      { status: 200 }
    ])
    expect(
      (await (await clientFor(server.url)).request({ method: 'GET', path: '/api' }, 'probe')).status
    ).toBe(200)
    expect(server.requests).toHaveLength(2)
  })

  it('gives up on a persistent 503 within the retry budget and returns it', async () => {
    const server = await fakeServer([{ status: 503 }])
    const started = Date.now()
    const res = await (
      await clientFor(server.url, 400)
    ).request({ method: 'GET', path: '/api' }, 'probe')
    expect(res.status).toBe(503)
    expect(Date.now() - started).toBeLessThan(3000)
    expect(server.requests.length).toBeGreaterThan(1)
  })

  it('reports an unreachable server after the retry budget, naming what it tried', async () => {
    const server = await fakeServer([{ status: 200 }])
    const url = server.url
    await server.close()
    const error = await (
      await clientFor(url, 300)
    )
      .request({ method: 'GET', path: '/api' }, 'read state of manifest "m"')
      .catch((e: unknown) => e as Error)
    expect(error).toBeInstanceOf(ClusterError)
    expect((error as Error).message).toMatch(
      new RegExp(
        `^read state of manifest "m": the Kubernetes API server at ${url} is unreachable \\(ECONNREFUSED\\) after \\d+ attempts in [\\d.]+ s$`
      )
    )
  })

  it('waits at least as long as Retry-After says (within the backoff cap)', async () => {
    const server = await fakeServer([
      { status: 429, headers: { 'Retry-After': '1' } },
      { status: 200 }
    ])
    const loaded = await loadKubeConfig({ env: { KUBECONFIG: kubeconfigFile(server.url) } })
    const client = new KubeClient(loaded, {
      retry: { budgetMs: 5000, initialDelayMs: 20, maxDelayMs: 2000, requestTimeoutMs: 2000 }
    })
    const started = Date.now()
    expect((await client.request({ method: 'GET', path: '/api' }, 'probe')).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    client.close()
  })

  it('retries a POST after a 429 or a 503 with Retry-After (not handled), not after a bare 503', async () => {
    const throttled = await fakeServer([
      { status: 429 },
      { status: 503, headers: { 'Retry-After': '0' } },
      { status: 201 }
    ])
    const post = { method: 'POST', path: '/api/v1/namespaces', body: {} } as const
    expect((await (await clientFor(throttled.url)).request(post, 'create')).status).toBe(201)
    expect(throttled.requests).toHaveLength(3)
    const unavailable = await fakeServer([{ status: 503 }, { status: 201 }])
    expect((await (await clientFor(unavailable.url)).request(post, 'create')).status).toBe(503)
    expect(unavailable.requests).toHaveLength(1)
  })

  it('does not repeat a POST whose connection was reset, and says why', async () => {
    const server = await resettingServer(1)
    const error = await (
      await clientFor(server.url)
    )
      .request({ method: 'POST', path: '/api/v1/x', body: {} }, 'recreate v1 Pod ns/p')
      .catch((e: unknown) => e as Error)
    expect((error as Error).message).toBe(
      `recreate v1 Pod ns/p: the Kubernetes API server at ${server.url} closed the connection ` +
        '(ECONNRESET); not retried, because the create may have taken effect before the failure'
    )
    expect(server.requests()).toBe(1)
  })

  it('repeats a server-side apply PATCH whose connection was reset', async () => {
    const server = await resettingServer(2)
    const res = await (
      await clientFor(server.url)
    ).request({ method: 'PATCH', path: '/api/v1/x', body: {} }, 'apply')
    expect(res.status).toBe(200)
    expect(server.requests()).toBe(3)
  })

  it('gives up on a server that never answers after the request timeout, saying so', async () => {
    const server = await resettingServer(Infinity, 'hang')
    const loaded = await loadKubeConfig({ env: { KUBECONFIG: kubeconfigFile(server.url) } })
    const client = new KubeClient(loaded, {
      retry: { budgetMs: 500, initialDelayMs: 20, maxDelayMs: 100, requestTimeoutMs: 300 }
    })
    const started = Date.now()
    const error = await client
      .request({ method: 'GET', path: '/api' }, 'read state of manifest "m"')
      .catch((e: unknown) => e as Error)
    expect((error as Error).message).toMatch(
      new RegExp(
        `^read state of manifest "m": the Kubernetes API server at ${server.url} did not answer ` +
          'within the request timeout of 0.3 s after [12] attempts? in [\\d.]+ s$'
      )
    )
    expect(Date.now() - started).toBeLessThan(2000)
    client.close()
  })

  it('reuses one keep-alive connection for sequential requests', async () => {
    const server = await fakeServer([{ status: 200 }])
    const client = await clientFor(server.url)
    for (let i = 0; i < 5; i++) await client.request({ method: 'GET', path: '/api' }, 'probe')
    client.close()
    expect(server.requests).toHaveLength(5)
    expect(server.connections).toBe(1)
  })

  // The values as kube-apiserver writes them: `299 - "<text>"` (apimachinery's
  // NewWarningHeader), repeated headers and comma-separated warnings, the text in UTF-8.
  it('keeps the texts of every Warning header over HTTP/1.1, once each, malformed ones dropped', async () => {
    const server = http.createServer((req, res) => {
      req.resume()
      res.setHeader('Content-Type', 'application/json')
      res.setHeader('Warning', [
        '299 - "v1 is deprecated: use v2"',
        '299 - "ça va \\"là\\"", 299 - "v1 is deprecated: use v2"',
        'not a warning'
      ])
      res.end('{}')
    })
    const client = await clientFor(await listening(server))
    const res = await client.request({ method: 'GET', path: '/api' }, 'probe')
    client.close()
    expect(res.warnings).toEqual(['v1 is deprecated: use v2', 'ça va "là"'])
  })

  // SECURITY.md: a Secret's value reaches no report. The words are structured-merge-diff's for a
  // value of the wrong type, as src/objects/secret-values.ts quotes them.
  it("gives a dry run's warnings beside the object, a Secret's without the value they quote", async () => {
    const quoted = 'data.token: expected string, got &value.valueUnstructured{Value:918273}'
    const server = await fakeServer([
      { status: 200, body: { kind: 'x' }, headers: { Warning: `299 - "${quoted}"` } }
    ])
    const client = await clientFor(server.url)
    const cluster = new KubeCluster(client, new KubeDiscovery(client))
    const object = (kind: string) => ({
      apiVersion: 'v1',
      kind,
      metadata: { name: 'n', namespace: 'ns' }
    })
    const secret = await cluster.dryRunApply(object('Secret'))
    const configMap = await cluster.dryRunApply(object('ConfigMap'))
    client.close()
    expect(secret).toEqual({
      object: { kind: 'x' },
      warnings: [
        'data.token: expected string, got a value that is not shown (the object is a Secret)'
      ]
    })
    expect(configMap.warnings).toEqual([quoted])
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v1/namespaces/ns/secrets/n?fieldManager=tazuna&force=true&fieldValidation=Strict&dryRun=All',
      '/api/v1/namespaces/ns/configmaps/n?fieldManager=tazuna&force=true&fieldValidation=Strict&dryRun=All'
    ])
  })

  // docs/risks.md#what-live-mode-adds: a refusal's warnings go with it.
  it("keeps a refused dry run's warnings on its error, a Secret's without the value they quote", async () => {
    const quoted = 'data.token: expected string, got &value.valueUnstructured{Value:918273}'
    const server = await fakeServer([
      {
        status: 422,
        body: { kind: 'Status', reason: 'Invalid', message: 'refused' },
        headers: { Warning: `299 - "${quoted}"` }
      }
    ])
    const client = await clientFor(server.url)
    const cluster = new KubeCluster(client, new KubeDiscovery(client))
    const refusal = (kind: string) =>
      cluster
        .dryRunApply({ apiVersion: 'v1', kind, metadata: { name: 'n', namespace: 'ns' } })
        .then(
          () => undefined,
          (error: unknown) => error
        )
    const secret = await refusal('Secret')
    const configMap = await refusal('ConfigMap')
    client.close()
    expect(secret).toBeInstanceOf(ClusterError)
    expect(secret).toMatchObject({
      message: 'dry-run apply v1 Secret ns/n: HTTP 422 Invalid: refused',
      warnings: [
        'data.token: expected string, got a value that is not shown (the object is a Secret)'
      ]
    })
    expect(configMap).toMatchObject({ warnings: [quoted] })
  })

  it('leaves warnings out of a response that has none', async () => {
    const server = await fakeServer([{ status: 200 }])
    const client = await clientFor(server.url)
    const res = await client.request({ method: 'GET', path: '/api' }, 'probe')
    client.close()
    expect(res).not.toHaveProperty('warnings')
  })
})

describe('KubeClient credentials', () => {
  it('reads the CA file once per session for a static token', async () => {
    const server = await fakeServer([{ status: 200 }])
    const ca = path.join(tempDir(), 'ca.crt')
    // Not used over plain HTTP, but read by client-node whenever credentials are applied.
    writeFileSync(ca, tls.rootCertificates[0] ?? '')
    const file = kubeconfigFile(server.url, {
      cluster: { server: server.url, 'certificate-authority': ca, 'insecure-skip-tls-verify': true }
    })
    const client = new KubeClient(await loadKubeConfig({ env: { KUBECONFIG: file } }))
    await client.request({ method: 'GET', path: '/api' }, 'probe')
    // Reading the file again would now fail with ENOENT.
    rmSync(ca)
    for (let i = 0; i < 3; i++) {
      expect((await client.request({ method: 'GET', path: '/api' }, 'probe')).status).toBe(200)
    }
    client.close()
    expect(server.requests.map((r) => r.authorization)).toEqual(
      Array<string>(4).fill(`Bearer ${TOKEN}`)
    )
    expect(server.connections).toBe(1)
  })

  it('asks an exec plugin again for every request, so rotated tokens are used', async () => {
    const server = await fakeServer([{ status: 200 }])
    const dir = tempDir()
    const plugin = path.join(dir, 'plugin.sh')
    // An already expired credential makes client-node run the plugin for each request.
    writeFileSync(
      plugin,
      [
        '#!/bin/sh',
        `n=$(( $(cat "${dir}/n" 2>/dev/null || echo 0) + 1 ))`,
        `echo "$n" > "${dir}/n"`,
        'printf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",' +
          '"status":{"token":"rotated-%s","expirationTimestamp":"2000-01-01T00:00:00Z"}}\' "$n"',
        ''
      ].join('\n')
    )
    chmodSync(plugin, 0o755)
    const file = kubeconfigFile(server.url, {
      user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } }
    })
    const client = new KubeClient(await loadKubeConfig({ env: { KUBECONFIG: file } }))
    for (let i = 0; i < 3; i++) await client.request({ method: 'GET', path: '/api' }, 'probe')
    client.close()
    expect(server.requests.map((r) => r.authorization)).toEqual([
      'Bearer rotated-1',
      'Bearer rotated-2',
      'Bearer rotated-3'
    ])
    expect(server.connections).toBe(1)
  })

  it("hands each token and key an exec plugin returns to onCredential once, for the log's mask", async () => {
    const server = await fakeServer([{ status: 200 }])
    const dir = tempDir()
    const plugin = path.join(dir, 'plugin.sh')
    // The key is not a real one: client-node only passes it on, and the fake server is plain HTTP.
    // Escaped for the string and again for printf, so that the JSON holds the escape of a newline.
    const key =
      '-----BEGIN PRIVATE KEY-----\\\\nbGluZS1vbmU=\\\\nbGluZS10d28=\\\\n-----END PRIVATE KEY-----\\\\n'
    writeFileSync(
      plugin,
      [
        '#!/bin/sh',
        `n=$(( $(cat "${dir}/n" 2>/dev/null || echo 0) + 1 ))`,
        `echo "$n" > "${dir}/n"`,
        // Tokens 1, 1, 2: a credential seen before is not reported again.
        '[ "$n" -ge 3 ] && t=2 || t=1',
        'printf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",' +
          `"status":{"token":"exec-token-%s","clientCertificateData":"cert","clientKeyData":"${key}",` +
          '"expirationTimestamp":"2000-01-01T00:00:00Z"}}\' "$t"',
        ''
      ].join('\n')
    )
    chmodSync(plugin, 0o755)
    const file = kubeconfigFile(server.url, {
      user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } }
    })
    const reported: string[] = []
    const loaded = await loadKubeConfig({
      env: { KUBECONFIG: file },
      onCredential: (value) => reported.push(value)
    })
    const client = new KubeClient(loaded)
    for (let i = 0; i < 3; i++) await client.request({ method: 'GET', path: '/api' }, 'probe')
    client.close()
    expect(server.requests.map((r) => r.authorization)).toEqual([
      'Bearer exec-token-1',
      'Bearer exec-token-1',
      'Bearer exec-token-2'
    ])
    expect(reported).toEqual([
      'exec-token-1',
      '-----BEGIN PRIVATE KEY-----\nbGluZS1vbmU=\nbGluZS10d28=\n-----END PRIVATE KEY-----\n',
      'bGluZS1vbmU=',
      'bGluZS10d28=',
      'exec-token-2'
    ])
  })
})

describe('KubeClient over TLS to the test API server', () => {
  // The API server speaks HTTP/2: concurrent requests are streams of one connection, so a run
  // pays one TCP and one TLS handshake (docs/benchmarks.md#round-trips), and the CA is parsed
  // into a secure context once (~2 ms of the engine's thread each time).
  it('sends concurrent requests as streams of one verified HTTP/2 connection', async () => {
    const created = { contexts: 0, connects: 0 }
    const { createSecureContext, connect } = tls
    tls.createSecureContext = (...args) => (created.contexts++, createSecureContext(...args))
    tls.connect = ((...args: Parameters<typeof connect>) => (
      created.connects++,
      connect(...args)
    )) as typeof connect
    const client = new KubeClient(await loadKubeConfig({ env: { KUBECONFIG: adminKubeconfig() } }))
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, () =>
          client.request({ method: 'GET', path: '/version' }, 'probe')
        )
      )
      expect(answers.map((a) => a.status)).toEqual(Array<number>(12).fill(200))
      expect(JSON.parse(answers[0]!.body)).toHaveProperty('gitVersion')
    } finally {
      tls.createSecureContext = createSecureContext
      tls.connect = connect
      client.close()
    }
    expect(created.connects).toBe(1)
    expect(created.contexts).toBe(1)
  })
})

describe('KubeClient.connect', () => {
  /** Counts the client's TLS connections until restore(). */
  function countTlsConnects(): { readonly count: number; restore(): void } {
    const { connect } = tls
    let count = 0
    tls.connect = ((...args: Parameters<typeof connect>) => (
      count++,
      connect(...args)
    )) as typeof connect
    return {
      get count() {
        return count
      },
      restore: () => void (tls.connect = connect)
    }
  }

  // Engine.connect opens the session while the CLI waits for git or the action for GitHub: the
  // handshakes are done before the first request, and nothing is asked of the server early.
  it('opens the verified HTTP/2 connection without a request; the first request uses it', async () => {
    const serverTls = selfSignedCertificate()
    const seen = { sessions: 0, streams: [] as string[] }
    const server = http2.createSecureServer(serverTls, (req, res) => {
      seen.streams.push(`${req.method} ${req.url}`)
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end('{}')
    })
    server.on('session', () => seen.sessions++)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
    const file = kubeconfigFile(url, {
      cluster: {
        server: url,
        'certificate-authority-data': Buffer.from(serverTls.cert).toString('base64')
      }
    })
    const tlsConnects = countTlsConnects()
    const client = new KubeClient(await loadKubeConfig({ env: { KUBECONFIG: file } }))
    try {
      await client.connect()
      expect(tlsConnects.count).toBe(1)
      expect(seen.streams).toEqual([])
      expect((await client.request({ method: 'GET', path: '/api' }, 'probe')).status).toBe(200)
      expect(tlsConnects.count).toBe(1)
      expect(seen).toEqual({ sessions: 1, streams: ['GET /api'] })
    } finally {
      tlsConnects.restore()
      client.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('opens nothing once the client is closed, so the process can exit', async () => {
    const tlsConnects = countTlsConnects()
    try {
      const client = new KubeClient(
        await loadKubeConfig({ env: { KUBECONFIG: kubeconfigFile('https://127.0.0.1:9') } })
      )
      const connecting = client.connect()
      client.close()
      await connecting
      expect(tlsConnects.count).toBe(0)
    } finally {
      tlsConnects.restore()
    }
  })

  it('leaves a failure to the first request, which reports it as without connect', async () => {
    const server = http.createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const url = `https://127.0.0.1:${port}`
    const retry = { budgetMs: 0 }
    const loaded = () => loadKubeConfig({ env: { KUBECONFIG: kubeconfigFile(url) } })
    const failure = (client: KubeClient) =>
      client.request({ method: 'GET', path: '/api' }, 'probe').then(
        () => 'answered',
        (e: unknown) => (e as Error).message
      )
    const connected = new KubeClient(await loaded(), { retry })
    await expect(connected.connect()).resolves.toBeUndefined()
    const withConnect = await failure(connected)
    const without = await failure(new KubeClient(await loaded(), { retry }))
    expect(withConnect).toMatch(
      /^probe: the Kubernetes API server at https:\/\/127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\)/
    )
    expect(withConnect).toBe(without)
  })
})

describe('KubeClient with a client certificate', () => {
  // https.createServer speaks HTTP/1.1 only: the client falls back to its keep-alive agent.
  it('presents it on every concurrent connection and verifies the server against the CA', async () => {
    const [serverTls, clientTls] = [selfSignedCertificate(), selfSignedCertificate()]
    const seen: boolean[] = []
    const server = https.createServer(
      { ...serverTls, ca: clientTls.cert, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        seen.push((req.socket as tls.TLSSocket).authorized)
        req.resume()
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.end('{}')
      }
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
    const base64 = (pem: string) => Buffer.from(pem).toString('base64')
    const file = kubeconfigFile(url, {
      cluster: { server: url, 'certificate-authority-data': base64(serverTls.cert) },
      user: {
        'client-certificate-data': base64(clientTls.cert),
        'client-key-data': base64(clientTls.key)
      }
    })
    const client = new KubeClient(await loadKubeConfig({ env: { KUBECONFIG: file } }))
    try {
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => client.request({ method: 'GET', path: '/api' }, 'probe'))
      )
      expect(answers.map((a) => a.status)).toEqual(Array<number>(6).fill(200))
      expect(seen).toEqual(Array<boolean>(6).fill(true))
    } finally {
      client.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe('the run lock and namespace tazuna', () => {
  /** An API server of Leases and Namespaces that starts without namespace `tazuna` or not. */
  async function leaseServer(namespaceExists: boolean): Promise<{ url: string; seen: string[] }> {
    const seen: string[] = []
    let exists = namespaceExists
    const server = http.createServer((req, res) => {
      const route = `${req.method} ${req.url?.split('?')[0]}`
      seen.push(route)
      req.resume()
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' })
        res.end(JSON.stringify(body))
      }
      if (route === 'POST /apis/coordination.k8s.io/v1/namespaces/tazuna/leases') {
        if (!exists) return answer(404, { kind: 'Status', reason: 'NotFound' })
        return answer(201, { metadata: { name: 'l', resourceVersion: '1' }, spec: {} })
      }
      if (route === 'GET /api/v1/namespaces/tazuna') {
        return answer(exists ? 200 : 404, exists ? { metadata: { name: 'tazuna' } } : {})
      }
      if (route === 'POST /api/v1/namespaces') {
        exists = true
        return answer(201, { metadata: { name: 'tazuna' } })
      }
      answer(500, {})
    })
    return { url: await listening(server), seen }
  }

  const lease = { holder: 'run-1', durationSeconds: 60, now: Date.now() }

  it('takes a free lock with the create alone, and then knows the namespace exists', async () => {
    const { url, seen } = await leaseServer(true)
    const session = await openKubeSession({ env: { KUBECONFIG: kubeconfigFile(url) } })
    expect(await session.leases.create('l', lease)).not.toBe('conflict')
    await session.store.ensureNamespace()
    session.close()
    expect(seen).toEqual(['POST /apis/coordination.k8s.io/v1/namespaces/tazuna/leases'])
  })

  it('creates namespace tazuna when the first Lease has nowhere to go, then the Lease', async () => {
    const { url, seen } = await leaseServer(false)
    const session = await openKubeSession({ env: { KUBECONFIG: kubeconfigFile(url) } })
    expect(await session.leases.create('l', lease)).not.toBe('conflict')
    session.close()
    expect(seen).toEqual([
      'POST /apis/coordination.k8s.io/v1/namespaces/tazuna/leases',
      'GET /api/v1/namespaces/tazuna',
      'POST /api/v1/namespaces',
      'POST /apis/coordination.k8s.io/v1/namespaces/tazuna/leases'
    ])
  })
})

describe('KubeDiscovery without aggregated discovery', () => {
  it('falls back to one resource list per group/version and skips an unavailable one', async () => {
    const routes: Record<string, { status: number; body: unknown }> = {
      '/version': { status: 200, body: { gitVersion: 'v1.29.0' } },
      '/api': { status: 200, body: { kind: 'APIVersions', versions: ['v1'] } },
      '/apis': {
        status: 200,
        body: {
          kind: 'APIGroupList',
          groups: [
            { name: 'apps', versions: [{ version: 'v1' }] },
            { name: 'metrics.k8s.io', versions: [{ version: 'v1beta1' }] }
          ]
        }
      },
      '/api/v1': {
        status: 200,
        body: {
          resources: [
            { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
            { name: 'namespaces', kind: 'Namespace', namespaced: false },
            { name: 'pods/eviction', kind: 'Eviction', namespaced: true }
          ]
        }
      },
      '/apis/apps/v1': {
        status: 200,
        body: { resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true }] }
      },
      '/apis/metrics.k8s.io/v1beta1': { status: 503, body: {} }
    }
    const server = http.createServer((req, res) => {
      const route = routes[req.url ?? ''] ?? { status: 404, body: {} }
      res.writeHead(route.status, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(route.body))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const client = await clientFor(url, 200)
    try {
      const discovery = new KubeDiscovery(client)
      expect(await discovery.capabilities()).toEqual({
        kubeVersion: 'v1.29.0',
        apiVersions: [
          'apps/v1',
          'apps/v1/Deployment',
          'v1',
          'v1/ConfigMap',
          'v1/Eviction',
          'v1/Namespace'
        ]
      })
      expect(await discovery.resourceFor('v1', 'Namespace')).toEqual({
        group: '',
        version: 'v1',
        kind: 'Namespace',
        resource: 'namespaces',
        namespaced: false
      })
    } finally {
      client.close()
      server.closeAllConnections()
      server.close()
    }
  })
})
