// A loopback HTTPS proxy in front of a test API server that injects faults per request:
// connection resets (before or after the server acted), 429/503 answers with Retry-After,
// delays, rewritten query parameters. It terminates TLS with the API server's own serving certificate (kube-apiserver
// writes it to <cluster>/certs, signed by the CA the kubeconfigs trust), so a client verifying
// the server accepts the proxy unchanged. Used by integration/cluster/faults.test.ts.
import { readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

/** What the proxy does with one request. */
export type Fault =
  | { kind: 'pass' }
  /** Destroys the client's connection before the server sees the request. */
  | { kind: 'reset' }
  /** Forwards, lets the server answer, then destroys the client's connection unanswered. */
  | { kind: 'reset-after-forward' }
  /** Answers itself, the server never sees the request. */
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  /** Waits, then forwards. */
  | { kind: 'delay'; ms: number }
  /**
   * Forwards with these query parameters replaced (a watch's `timeoutSeconds` shortened so that
   * the server ends it, its `resourceVersion` set to one the server has expired). The answer
   * reaches the client whole once the server has ended it.
   */
  | { kind: 'rewrite'; query: Record<string, string> }

/** One request the proxy received and what it did with it. */
export interface ProxiedRequest {
  method: string
  path: string
  fault: Fault['kind']
  /** The server's status when the request was forwarded. */
  upstreamStatus?: number
  /** The server's answer to a rewritten request (a watch's events). */
  upstreamBody?: string
}

/** Decides the fault for the `index`-th request (0-based). */
export type FaultRule = (req: { method: string; path: string }, index: number) => Fault

/** A running proxy. */
export interface FaultProxy {
  url: string
  requests: ProxiedRequest[]
  /** Replaces the rule for the requests to come. */
  setRule(rule: FaultRule): void
  /** Writes a copy of `kubeconfig` (JSON, as the test cluster writes them) that goes through the proxy. */
  kubeconfigVia(kubeconfig: string, file: string): string
  close(): Promise<void>
}

const PASS: FaultRule = () => ({ kind: 'pass' })

/** Starts a proxy to `upstream` (an https URL) using the certificates in `certDir`. */
export async function startFaultProxy(opts: {
  upstream: string
  certDir: string
  rule?: FaultRule
}): Promise<FaultProxy> {
  const cert = readFileSync(path.join(opts.certDir, 'apiserver.crt'))
  const key = readFileSync(path.join(opts.certDir, 'apiserver.key'))
  const upstream = new URL(opts.upstream)
  const agent = new https.Agent({ keepAlive: true, ca: cert })
  const requests: ProxiedRequest[] = []
  let rule = opts.rule ?? PASS

  const server = https.createServer({ cert, key }, (req, res) => {
    const record: ProxiedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      fault: 'pass'
    }
    const fault = rule(record, requests.length)
    record.fault = fault.kind
    requests.push(record)
    void handle(req, res, fault, record).catch(() => req.socket.destroy())
  })

  async function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    fault: Fault,
    record: ProxiedRequest
  ): Promise<void> {
    const body = await readBody(req)
    if (fault.kind === 'reset') {
      req.socket.destroy()
      return
    }
    if (fault.kind === 'status') {
      res.writeHead(fault.status, {
        'Content-Type': 'application/json',
        ...(fault.retryAfterSeconds === undefined
          ? {}
          : { 'Retry-After': String(fault.retryAfterSeconds) })
      })
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: `injected by the fault proxy (HTTP ${fault.status})`,
          code: fault.status
        })
      )
      return
    }
    if (fault.kind === 'delay') await sleep(fault.ms)
    const answer = await forward(req, body, fault.kind === 'rewrite' ? fault.query : {})
    record.upstreamStatus = answer.status
    if (fault.kind === 'rewrite') record.upstreamBody = answer.body.toString('utf8')
    if (fault.kind === 'reset-after-forward') {
      req.socket.destroy()
      return
    }
    res.writeHead(answer.status, answer.headers)
    res.end(answer.body)
  }

  function forward(
    req: http.IncomingMessage,
    body: Buffer,
    query: Record<string, string>
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host }
      const target = new URL(req.url ?? '/', upstream)
      for (const [k, v] of Object.entries(query)) target.searchParams.set(k, v)
      const out = https.request(
        {
          protocol: upstream.protocol,
          hostname: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: target.pathname + target.search,
          headers,
          agent
        },
        (answer) => {
          const chunks: Buffer[] = []
          answer.on('data', (c: Buffer) => chunks.push(c))
          answer.on('end', () => {
            const { connection: _c, 'transfer-encoding': _t, ...rest } = answer.headers
            resolve({
              status: answer.statusCode ?? 502,
              headers: rest,
              body: Buffer.concat(chunks)
            })
          })
          answer.on('error', reject)
        }
      )
      out.on('error', reject)
      out.end(body)
    })
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    requests,
    setRule: (r) => {
      rule = r
    },
    kubeconfigVia: (kubeconfig, file) => {
      const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as {
        clusters: { cluster: { server: string } }[]
      }
      for (const c of config.clusters) c.cluster.server = url
      writeFileSync(file, JSON.stringify(config), { mode: 0o600 })
      return file
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}
