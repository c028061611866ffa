// HTTP calls the launcher makes before any client library is configured: etcd's health
// check, kube-apiserver's /readyz, and the RBAC the read-only test user gets.
import http from 'node:http'
import https from 'node:https'
import { readFileSync } from 'node:fs'
import { READER_USER } from './credentials.js'

/** The namespace the read-only user may read ConfigMaps in (see README: why it exists). */
export const READER_NAMESPACE = 'tazuna'

/** True once etcd answers /health with health=true. */
export async function etcdHealthy(etcdUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${etcdUrl}/health`, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"health":"true"')))
    })
    req.on('error', () => resolve(false))
    req.setTimeout(2000, () => req.destroy())
  })
}

export interface Endpoint {
  server: string
  caFile: string
  token: string
}

export interface Response {
  status: number
  body: string
}

export type Api = (method: string, urlPath: string, body?: unknown) => Promise<Response>

/** One HTTPS request that verifies the server against the cluster's CA. */
export async function request(
  ep: Endpoint,
  method: string,
  urlPath: string,
  body?: unknown
): Promise<Response> {
  const ca = readFileSync(ep.caFile) // throws (probe: not ready) until the server wrote it
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(urlPath, ep.server),
      {
        method,
        ca,
        headers: { authorization: `Bearer ${ep.token}`, 'content-type': 'application/json' },
        timeout: 10_000
      },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      }
    )
    req.on('error', reject)
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: timed out`)))
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/**
 * Lets the reader get/list/watch ConfigMaps in READER_NAMESPACE (discovery it already has
 * through the default system:discovery binding). A RoleBinding needs its namespace to
 * exist, so the harness creates `tazuna` here; tests therefore cannot start from a
 * cluster without it.
 */
export async function grantReader(api: Api): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1'
  const name = 'tazuna-reader'
  await create(api, '/api/v1/namespaces', { metadata: { name: READER_NAMESPACE } })
  await create(api, `${rbac}/namespaces/${READER_NAMESPACE}/roles`, {
    metadata: { name },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }]
  })
  await create(api, `${rbac}/namespaces/${READER_NAMESPACE}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: READER_USER }]
  })
}

async function create(api: Api, urlPath: string, body: object): Promise<void> {
  const res = await api('POST', urlPath, body)
  if (res.status !== 201)
    throw new Error(`POST ${urlPath}: HTTP ${res.status}: ${res.body.slice(0, 500)}`)
}
