/**
 * Deletes the State ConfigMaps a benchmark repetition wrote, so that every repetition starts
 * from the same namespace `tazuna` (a State list call reads every ConfigMap there, and the
 * objects themselves stay: namespaces cannot be deleted on the test cluster). Works with the
 * test cluster's kubeconfig (JSON, a bearer token and a CA file); anything else is skipped.
 */
import { readFileSync } from 'node:fs'
import https from 'node:https'

interface TestKubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority'?: string } }[]
  users: { user: { token?: string } }[]
}

/** Deletes `tazuna-state-<m>` for each manifest; returns false when it could not try. */
export async function deleteBenchState(manifests: readonly string[]): Promise<boolean> {
  const target = testCluster()
  if (target === undefined) return false
  const agent = new https.Agent({ ca: target.ca, keepAlive: true, maxSockets: 8 })
  try {
    await Promise.all(
      manifests.map((m) =>
        request(agent, target, `/api/v1/namespaces/tazuna/configmaps/tazuna-state-${m}`)
      )
    )
  } finally {
    agent.destroy()
  }
  return true
}

/** The test cluster's server, CA and token from KUBECONFIG; undefined for another kubeconfig. */
export function testCluster(): { server: string; ca: Buffer; token: string } | undefined {
  try {
    const kc = JSON.parse(readFileSync(process.env.KUBECONFIG ?? '', 'utf8')) as TestKubeconfig
    const cluster = kc.clusters[0]?.cluster
    const token = kc.users[0]?.user.token
    const caFile = cluster?.['certificate-authority']
    if (!cluster || !token || !caFile) return undefined
    return { server: cluster.server, ca: readFileSync(caFile), token }
  } catch {
    return undefined
  }
}

function request(
  agent: https.Agent,
  target: { server: string; token: string },
  path: string
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, target.server),
      { method: 'DELETE', agent, headers: { Authorization: `Bearer ${target.token}` } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      }
    )
    req.on('error', reject)
    req.end()
  })
}

/**
 * One round trip to the test cluster: the median of 9 `GET /version` over a keep-alive
 * connection opened by a first request; undefined for another kubeconfig.
 */
export async function measureRoundTrip(): Promise<number | undefined> {
  const target = testCluster()
  if (target === undefined) return undefined
  const agent = new https.Agent({ ca: target.ca, keepAlive: true, maxSockets: 1 })
  const get = () =>
    new Promise<void>((resolve, reject) => {
      const req = https.request(
        new URL('/version', target.server),
        { agent, headers: { Authorization: `Bearer ${target.token}` } },
        (res) => {
          res.resume()
          res.on('end', () => resolve())
        }
      )
      req.on('error', reject)
      req.end()
    })
  try {
    await get()
    const trips: number[] = []
    for (let i = 0; i < 9; i++) {
      const t = performance.now()
      await get()
      trips.push(performance.now() - t)
    }
    return trips.sort((a, b) => a - b)[4]
  } finally {
    agent.destroy()
  }
}
