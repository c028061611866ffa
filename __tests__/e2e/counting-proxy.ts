/**
 * A TCP forwarder in front of the test API server that counts connections, and a copy of a
 * kubeconfig pointing at it: a run that makes no request to the cluster opens no connection.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse, stringify } from 'yaml'

/** The running forwarder. */
export interface CountingProxy {
  kubeconfig: string
  readonly connections: number
  close(): Promise<void>
}

interface Kubeconfig {
  clusters: { cluster: { server: string } }[]
}

/** Starts forwarding to the server of `kubeconfigPath`'s first cluster. */
export async function startCountingProxy(kubeconfigPath: string): Promise<CountingProxy> {
  const config = parse(readFileSync(kubeconfigPath, 'utf8')) as Kubeconfig
  const upstream = new URL(config.clusters[0]!.cluster.server)
  const sockets = new Set<Socket>()
  let connections = 0
  const server = createServer((socket) => {
    connections++
    const up = connect(Number(upstream.port), upstream.hostname)
    for (const s of [socket, up]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => s.destroy())
    }
    socket.pipe(up).pipe(socket)
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
