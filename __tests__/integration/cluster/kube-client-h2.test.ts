// The HTTP/2 transport of KubeClient (src/adapters/kube/h2-session.ts) against loopback HTTP/2
// servers we control: the retry rules of docs/reliability.md#retries-and-timeouts hold for streams as they do
// for connections (a refused stream is repeated even for a create; a reset create is not), a
// session the server ends (GOAWAY) is replaced, and no credential reaches a message.
import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from '@jest/globals'
import { KubeClient } from '../../../src/adapters/kube/client.js'
import { loadKubeConfig } from '../../../src/adapters/kube/config.js'
import { selfSignedCertificate } from '../../support/oras-artifacts.js'

const TOKEN = 'secret-token-h2-0123456789'
const certificate = selfSignedCertificate()

/** What the server does with its n-th stream (1-based). */
type Behaviour = (n: number, stream: http2.ServerHttp2Stream, session: http2.Http2Session) => void

interface H2Server {
  url: string
  streams: { method: string; path: string; authorization: string }[]
  sessions: number
  close(): Promise<void>
}

const open: H2Server[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

const answer = (stream: http2.ServerHttp2Stream, status = 200): void => {
  stream.respond({ ':status': status, 'content-type': 'application/json' })
  stream.end(JSON.stringify({ kind: 'Status', code: status }))
}

async function h2Server(behaviour: Behaviour): Promise<H2Server> {
  const state: Pick<H2Server, 'streams' | 'sessions'> = { streams: [], sessions: 0 }
  const server = http2.createSecureServer({ ...certificate })
  server.on('session', () => state.sessions++)
  server.on('stream', (stream, headers) => {
    state.streams.push({
      method: String(headers[':method']),
      path: String(headers[':path']),
      authorization: String(headers.authorization ?? '')
    })
    stream.on('error', () => undefined)
    behaviour(state.streams.length, stream, stream.session!)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const h2: H2Server = {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get streams() {
      return state.streams
    },
    get sessions() {
      return state.sessions
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
  open.push(h2)
  return h2
}

async function clientFor(server: H2Server): Promise<KubeClient> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'kube-h2-')), 'config')
  const ca = Buffer.from(certificate.cert).toString('base64')
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': ca } }],
      users: [{ name: 'u', user: { token: TOKEN } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x'
    }),
    { mode: 0o600 }
  )
  return new KubeClient(await loadKubeConfig({ env: { KUBECONFIG: file } }), {
    retry: { budgetMs: 3000, initialDelayMs: 10, maxDelayMs: 50 }
  })
}

describe('KubeClient over HTTP/2', () => {
  it('sends the method, path, query, body and token as a stream, over one session', async () => {
    let body = ''
    const server = await h2Server((_, stream) => {
      stream.on('data', (c: Buffer) => (body += c.toString()))
      stream.on('end', () => answer(stream, 201))
    })
    const client = await clientFor(server)
    const res = await client.request(
      {
        method: 'POST',
        path: '/api/v1/namespaces/a/configmaps',
        query: { fieldManager: 'tazuna' },
        body: { kind: 'ConfigMap' }
      },
      'create'
    )
    await client.request({ method: 'GET', path: '/api' }, 'probe')
    client.close()
    expect(res.status).toBe(201)
    expect(res.contentType).toBe('application/json')
    expect(body).toBe('{"kind":"ConfigMap"}')
    expect(server.streams[0]).toEqual({
      method: 'POST',
      path: '/api/v1/namespaces/a/configmaps?fieldManager=tazuna',
      authorization: `Bearer ${TOKEN}`
    })
    expect(server.sessions).toBe(1)
  })

  it('repeats a create whose stream the server refused (it never acted on it)', async () => {
    const server = await h2Server((n, stream) =>
      n === 1 ? stream.close(http2.constants.NGHTTP2_REFUSED_STREAM) : answer(stream, 201)
    )
    const client = await clientFor(server)
    const res = await client.request({ method: 'POST', path: '/api/x', body: {} }, 'create x')
    client.close()
    expect(res.status).toBe(201)
    expect(server.streams.map((s) => s.method)).toEqual(['POST', 'POST'])
  })

  it('does not repeat a create whose stream was reset, and says why without the token', async () => {
    const server = await h2Server((_, stream) =>
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR)
    )
    const client = await clientFor(server)
    const error = (await client
      .request({ method: 'POST', path: '/api/x', body: {} }, 'create ConfigMap a/x')
      .catch((e: unknown) => e)) as Error
    client.close()
    expect(error.message).toBe(
      `create ConfigMap a/x: the Kubernetes API server at ${server.url} closed the connection ` +
        '(ECONNRESET); not retried, because the create may have taken effect before the failure'
    )
    expect(error.message).not.toContain(TOKEN)
    expect(server.streams).toHaveLength(1)
  })

  it('repeats a server-side apply PATCH whose stream was reset', async () => {
    const server = await h2Server((n, stream) =>
      n === 1 ? stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR) : answer(stream)
    )
    const client = await clientFor(server)
    const res = await client.request({ method: 'PATCH', path: '/api/x', body: {} }, 'apply x')
    client.close()
    expect(res.status).toBe(200)
    expect(server.streams).toHaveLength(2)
  })

  // A stream the server closes with NO_ERROR before any answer ends its readable side cleanly
  // (Node pushes the end of the body): no status arrived, so nothing was answered, and a write
  // must not be taken for a success. The server-side apply PATCH is repeated; the create fails.
  it('never takes a stream closed before any answer for a success', async () => {
    const server = await h2Server((n, stream) =>
      n === 1 || n === 3 ? stream.close(http2.constants.NGHTTP2_NO_ERROR) : answer(stream)
    )
    const client = await clientFor(server)
    const res = await client.request({ method: 'PATCH', path: '/api/x', body: {} }, 'apply x')
    const error = (await client
      .request({ method: 'POST', path: '/api/y', body: {} }, 'create ConfigMap a/y')
      .catch((e: unknown) => e)) as Error
    client.close()
    expect(res.status).toBe(200)
    expect(server.streams.map((s) => s.method)).toEqual(['PATCH', 'PATCH', 'POST'])
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toMatch(/^create ConfigMap a\/y: .*not retried/)
  })

  // The server process killed while it holds streams: the connection ends under them.
  it('repeats a server-side apply PATCH whose connection ended before an answer', async () => {
    const server = await h2Server((n, stream, session) =>
      n === 1 ? session.socket.destroy() : answer(stream)
    )
    const client = await clientFor(server)
    const res = await client.request({ method: 'PATCH', path: '/api/x', body: {} }, 'apply x')
    client.close()
    expect(res.status).toBe(200)
    expect(server.streams).toHaveLength(2)
  })

  // A large answer (a State list of many manifests) must not wait a round trip per 64 KiB, the
  // protocol's default window: the client grants what client-go's transport grants or more.
  it('grants the server flow-control windows of megabytes, per stream and per connection', async () => {
    const windows: { stream: number; connection: number }[] = []
    const body = 'x'.repeat(3 * 2 ** 20)
    const server = await h2Server((_, stream, session) => {
      windows.push({
        stream: session.remoteSettings.initialWindowSize ?? 0,
        connection: session.state.remoteWindowSize ?? 0
      })
      stream.respond({ ':status': 200, 'content-type': 'text/plain' })
      stream.end(body)
    })
    const client = await clientFor(server)
    await client.request({ method: 'GET', path: '/api' }, 'probe')
    const res = await client.request({ method: 'GET', path: '/api' }, 'probe')
    client.close()
    expect(res.body).toHaveLength(body.length)
    // Read by the second request, once the client's SETTINGS and WINDOW_UPDATE have arrived.
    expect(windows[1]!.stream).toBeGreaterThanOrEqual(4 * 2 ** 20)
    expect(windows[1]!.connection).toBeGreaterThanOrEqual(2 ** 29)
  })

  it('opens a new session after the server ends one with GOAWAY', async () => {
    const server = await h2Server((n, stream, session) => {
      answer(stream)
      if (n === 1) stream.on('close', () => session.goaway(http2.constants.NGHTTP2_NO_ERROR))
    })
    const client = await clientFor(server)
    const first = await client.request({ method: 'GET', path: '/api' }, 'probe')
    // The GOAWAY arrives after the first answer; the second request finds the session ended
    // (or ending) and goes on a new one.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const second = await client.request({ method: 'GET', path: '/apis' }, 'probe')
    client.close()
    expect([first.status, second.status]).toEqual([200, 200])
    expect(server.sessions).toBe(2)
  })
})
