/**
 * The LeaseStore port over `coordination.k8s.io/v1` Leases in namespace `tazuna`, through the
 * run's one KubeClient. Writes are guarded by resourceVersion; a 409 is reported as `conflict`.
 */
import type { LeaseRecord, LeaseStore, LeaseWrite } from '../../apply/lease-lock.js'
import { STATE_NAMESPACE } from '../../state/state.js'
import { jsonBody, responseError } from './api-response.js'
import type { KubeClient } from './client.js'

const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${STATE_NAMESPACE}/leases`

interface Lease {
  metadata?: { name?: string; resourceVersion?: string }
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string }
}

/** What the Leases need of namespace `tazuna`, shared with the State store (one check a run). */
export interface StateNamespace {
  /** Creates it when missing. */
  ensure(): Promise<void>
  /** Tells that it exists (a Lease was created in it): nothing need check again. */
  exists(): void
}

/** Leases over one KubeClient, in namespace `tazuna`. */
export class KubeLeaseStore implements LeaseStore {
  constructor(
    private readonly client: KubeClient,
    private readonly namespace: StateNamespace
  ) {}

  async read(name: string): Promise<LeaseRecord | undefined> {
    const what = `read lock (GET Lease ${STATE_NAMESPACE}/${name})`
    const res = await this.client.request({ method: 'GET', path: `${LEASES}/${name}` }, what)
    if (res.status === 404) return undefined
    if (res.status !== 200) throw responseError(what, res)
    return recordOf(jsonBody<Lease>(what, res))
  }

  // The create goes first: namespace `tazuna` exists on every run but the first, and only a 404
  // (no namespace to create the Lease in) makes it ensure the namespace and create again.
  async create(name: string, lease: LeaseWrite): Promise<LeaseRecord | 'conflict'> {
    const what = `take lock (POST Lease ${STATE_NAMESPACE}/${name})`
    const post = () =>
      this.client.request({ method: 'POST', path: LEASES, body: leaseBody(name, lease) }, what)
    let res = await post()
    if (res.status === 404) {
      await this.namespace.ensure()
      res = await post()
    }
    if (res.status === 409) return 'conflict'
    if (res.status >= 300) throw responseError(what, res)
    this.namespace.exists()
    return recordOf(jsonBody<Lease>(what, res))
  }

  async update(
    name: string,
    lease: LeaseWrite,
    resourceVersion: string
  ): Promise<LeaseRecord | 'conflict'> {
    const what = `renew lock (PUT Lease ${STATE_NAMESPACE}/${name})`
    const res = await this.client.request(
      {
        method: 'PUT',
        path: `${LEASES}/${name}`,
        body: leaseBody(name, lease, resourceVersion),
        evenWhenCancelled: true
      },
      what
    )
    if (res.status === 409 || res.status === 404) return 'conflict'
    if (res.status >= 300) throw responseError(what, res)
    return recordOf(jsonBody<Lease>(what, res))
  }

  async remove(name: string, resourceVersion: string): Promise<void> {
    const what = `release lock (DELETE Lease ${STATE_NAMESPACE}/${name})`
    const res = await this.client.request(
      {
        method: 'DELETE',
        path: `${LEASES}/${name}`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion } },
        evenWhenCancelled: true
      },
      what
    )
    // Gone, or held by another run now: either way it is not ours to delete.
    if (res.status === 404 || res.status === 409) return
    if (res.status >= 300) throw responseError(what, res)
  }
}

function leaseBody(name: string, lease: LeaseWrite, resourceVersion?: string) {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: STATE_NAMESPACE,
      ...(resourceVersion === undefined ? {} : { resourceVersion })
    },
    spec: {
      holderIdentity: lease.holder,
      leaseDurationSeconds: lease.durationSeconds,
      acquireTime: microTime(lease.now),
      renewTime: microTime(lease.now)
    }
  }
}

// metav1.MicroTime: RFC 3339 with microseconds.
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')
}

function recordOf(lease: Lease): LeaseRecord {
  const renewed = Date.parse(lease.spec?.renewTime ?? '')
  return {
    holder: lease.spec?.holderIdentity ?? '',
    renewedAt: Number.isNaN(renewed) ? 0 : renewed,
    durationSeconds: lease.spec?.leaseDurationSeconds ?? 0,
    resourceVersion: lease.metadata?.resourceVersion ?? ''
  }
}
