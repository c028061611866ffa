/**
 * API discovery, once per run: which group/versions and kinds the server serves, their REST
 * resource names and scope, and the server version. Uses aggregated discovery (two requests)
 * and falls back to one request per group/version on servers without it.
 */
import { ClusterError } from '../../errors.js'
import type { Discovery, HelmCapabilities } from '../../apply/ports.js'
import { jsonBody, responseError } from './api-response.js'
import type { KubeClient } from './client.js'

/** How to reach one kind over REST. */
export interface ResourceInfo {
  group: string
  version: string
  kind: string
  /** Plural resource name used in URLs. */
  resource: string
  namespaced: boolean
}

interface Snapshot {
  /** group/version strings in discovery order. */
  groupVersions: string[]
  /** `apiVersion/Kind` → resource (top-level resources only). */
  resources: Map<string, ResourceInfo>
  /** Every `group/version/Kind` (subresource kinds included, as client-go lists them). */
  kinds: Set<string>
}

const AGGREGATED_ACCEPT = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json'
].join(',')

/** Discovery with a per-run cache; {@link refresh} drops it (after a CRD is applied). */
export class KubeDiscovery implements Discovery {
  private snapshot: Promise<Snapshot> | undefined
  private version: Promise<string> | undefined

  constructor(private readonly client: KubeClient) {}

  /** Forgets what was discovered; the next lookup asks the server again. */
  refresh(): void {
    this.snapshot = undefined
  }

  /**
   * The REST resource for apiVersion + kind, or undefined when the server does not serve it.
   * A miss re-discovers once, since the kind may have appeared since the cache was filled.
   */
  async resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    const key = `${apiVersion}/${kind}`
    const loaded = this.load()
    const hit = (await loaded).resources.get(key)
    if (hit) return hit
    if (this.snapshot === loaded) this.refresh()
    return (await this.load()).resources.get(key)
  }

  /** Whether apiVersion + kind is namespaced; undefined when the server does not serve it. */
  async namespaced(apiVersion: string, kind: string): Promise<boolean | undefined> {
    return (await this.resourceFor(apiVersion, kind))?.namespaced
  }

  /**
   * Server gitVersion plus every served group/version and group/version/Kind
   * (docs/compatibility.md#helmfile step 5).
   */
  async capabilities(): Promise<HelmCapabilities> {
    const [kubeVersion, snap] = await Promise.all([this.serverVersion(), this.load()])
    const apiVersions = [...new Set([...snap.groupVersions, ...snap.kinds])].sort()
    return { kubeVersion, apiVersions }
  }

  /** The server's gitVersion from /version. */
  serverVersion(): Promise<string> {
    this.version ??= this.fetchVersion()
    return this.version
  }

  private async fetchVersion(): Promise<string> {
    const what = 'discover the server version (GET /version)'
    const res = await this.client.request({ method: 'GET', path: '/version' }, what)
    if (res.status !== 200) throw responseError(what, res)
    const body = jsonBody<{ gitVersion?: unknown }>(what, res)
    if (typeof body.gitVersion !== 'string') throw new ClusterError(`${what}: no gitVersion`)
    return body.gitVersion
  }

  private load(): Promise<Snapshot> {
    const current = (this.snapshot ??= this.fetchSnapshot())
    current.catch(() => {
      if (this.snapshot === current) this.snapshot = undefined
    })
    return current
  }

  private async fetchSnapshot(): Promise<Snapshot> {
    const [core, groups] = await Promise.all([this.fetchRoot('/api'), this.fetchRoot('/apis')])
    const snap: Snapshot = { groupVersions: [], resources: new Map(), kinds: new Set() }
    for (const root of [core, groups]) {
      if (root.kind === 'APIGroupDiscoveryList') addAggregated(snap, root)
      else await this.addLegacy(snap, root)
    }
    return snap
  }

  private async fetchRoot(path: string): Promise<DiscoveryRoot> {
    const what = `discover served APIs (GET ${path})`
    const res = await this.client.request({ method: 'GET', path, accept: AGGREGATED_ACCEPT }, what)
    if (res.status !== 200) throw responseError(what, res)
    return { ...jsonBody<DiscoveryRoot>(what, res), path }
  }

  private async addLegacy(snap: Snapshot, root: DiscoveryRoot): Promise<void> {
    const gvs =
      root.path === '/api'
        ? (root.versions ?? []).map((v) => ({ group: '', version: v }))
        : (root.groups ?? []).flatMap((g) =>
            (g.versions ?? []).map((v) => ({ group: g.name, version: v.version }))
          )
    const lists = await Promise.all(gvs.map((gv) => this.fetchResourceList(gv.group, gv.version)))
    gvs.forEach((gv, i) => {
      const list = lists[i]
      if (list === undefined) return
      snap.groupVersions.push(groupVersion(gv.group, gv.version))
      for (const r of list.resources ?? []) {
        addResource(snap, { ...gv, kind: r.kind, resource: r.name, namespaced: r.namespaced })
      }
    })
  }

  // An unavailable aggregated API (503) is skipped like client-go's partial discovery does.
  private async fetchResourceList(group: string, version: string): Promise<LegacyList | undefined> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`
    const what = `discover served APIs (GET ${path})`
    const res = await this.client.request({ method: 'GET', path }, what)
    if (res.status === 503 || res.status === 404) return undefined
    if (res.status !== 200) throw responseError(what, res)
    return jsonBody<LegacyList>(what, res)
  }
}

interface LegacyList {
  resources?: { name: string; kind: string; namespaced: boolean }[]
}

interface DiscoveryRoot {
  path: string
  kind?: string
  versions?: string[]
  groups?: { name: string; versions?: { version: string }[] }[]
  items?: AggregatedGroup[]
}

interface AggregatedGroup {
  metadata?: { name?: string }
  versions?: {
    version: string
    freshness?: string
    resources?: {
      resource: string
      scope: string
      responseKind?: { kind?: string }
      subresources?: { subresource: string; responseKind?: { kind?: string } }[]
    }[]
  }[]
}

function addAggregated(snap: Snapshot, root: DiscoveryRoot): void {
  for (const group of root.items ?? []) {
    const groupName = group.metadata?.name ?? ''
    for (const v of group.versions ?? []) {
      if (v.freshness === 'Stale') continue
      snap.groupVersions.push(groupVersion(groupName, v.version))
      for (const r of v.resources ?? []) {
        const kind = r.responseKind?.kind ?? ''
        const base = { group: groupName, version: v.version, namespaced: r.scope === 'Namespaced' }
        addResource(snap, { ...base, kind, resource: r.resource })
        for (const sub of r.subresources ?? []) {
          const subKind = sub.responseKind?.kind ?? ''
          addResource(snap, {
            ...base,
            kind: subKind,
            resource: `${r.resource}/${sub.subresource}`
          })
        }
      }
    }
  }
}

function addResource(snap: Snapshot, info: ResourceInfo): void {
  if (info.kind === '') return
  const gv = groupVersion(info.group, info.version)
  snap.kinds.add(`${gv}/${info.kind}`)
  if (info.resource.includes('/')) return
  const key = `${gv}/${info.kind}`
  if (!snap.resources.has(key)) snap.resources.set(key, info)
}

function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`
}
