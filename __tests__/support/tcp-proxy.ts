/**
 * A TCP forwarder in front of the test API server, and a copy of a kubeconfig pointing at it.
 * It counts connections (a run that makes no request to the cluster opens none) and can put a
 * network between the tools and the server: `oneWayDelayMs` holds every chunk that long in each
 * direction, and a new connection waits one round trip (TCP's handshake) before its first byte
 * travels. TLS passes through untouched, so clients verify the real server.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse, stringify } from 'yaml'

/** The running forwarder. */
export interface TcpProxy {
  kubeconfig: string
  readonly connections: number
  close(): Promise<void>
}

interface Kubeconfig {
  clusters: { cluster: { server: string } }[]
}

/**
 * Forwards `from` to `to`, each chunk `delayMs` later, never before `notBefore` (ms, monotonic).
 * Timers of one duration fire in the order they were set, so chunks keep their order.
 */
function forward(from: Socket, to: Socket, delayMs: number, notBefore: number): void {
  if (delayMs === 0) {
    from.pipe(to)
    return
  }
  const later = (action: () => void): void => {
    const wait = Math.max(0, notBefore - performance.now())
    if (wait > 0) setTimeout(() => setTimeout(action, delayMs), wait)
    else setTimeout(action, delayMs)
  }
  from.on('data', (chunk: Buffer) => later(() => to.destroyed || to.write(chunk)))
  from.on('end', () => later(() => to.end()))
}

/** Starts forwarding to the server of `kubeconfigPath`'s first cluster. */
export async function startTcpProxy(
  kubeconfigPath: string,
  options: { oneWayDelayMs?: number } = {}
): Promise<TcpProxy> {
  const delay = options.oneWayDelayMs ?? 0
  const config = parse(readFileSync(kubeconfigPath, 'utf8')) as Kubeconfig
  const upstream = new URL(config.clusters[0]!.cluster.server)
  const sockets = new Set<Socket>()
  let connections = 0
  const server = createServer((socket) => {
    connections++
    const handshakeDone = performance.now() + 2 * delay
    const up = connect(Number(upstream.port), upstream.hostname)
    // A network forwards segments as they come: no Nagle delay of the proxy's own.
    socket.setNoDelay(true)
    up.setNoDelay(true)
    for (const [s, other] of [
      [socket, up],
      [up, socket]
    ] as const) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      // A reset reaches the other side after the data already on its way.
      s.on('error', () => {
        s.destroy()
        setTimeout(() => other.destroy(), delay + 1)
      })
    }
    forward(socket, up, delay, handshakeDone)
    forward(up, socket, delay, 0)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  for (const c of config.clusters) c.cluster.server = `https://127.0.0.1:${port}`
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'tazuna-proxy-')), 'kubeconfig')
  writeFileSync(kubeconfig, stringify(config), { mode: 0o600 })
  return {
    kubeconfig,
    get connections() {
      return connections
    },
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
