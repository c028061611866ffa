/**
 * One run's connection to the cluster: a single KubeClient (one keep-alive agent), its
 * discovery cache, and the Cluster and StateStore ports built on them.
 */
import type { Clock } from '../../apply/ports.js'
import { KubeClient } from './client.js'
import type { RetryPolicy } from './retry-policy.js'
import { KubeCluster, type ClusterWaits } from './cluster.js'
import { loadKubeConfig, type KubeConfigOptions } from './config.js'
import { KubeDiscovery } from './discovery.js'
import { KubeApiCatalog } from './api-catalog.js'
import { KubeLeaseStore } from './lease-store.js'
import { KubeStateStore } from './state-store.js'

/** Everything that talks to the API server in one run. */
export interface KubeSession {
  client: KubeClient
  discovery: KubeDiscovery
  cluster: KubeCluster
  store: KubeStateStore
  /** The cluster's lists and watches (the health wait). */
  watcher: KubeCluster
  /** The run lock's Leases in namespace `tazuna`. */
  leases: KubeLeaseStore
  /** What the cluster serves, for the review's API checks. */
  apis: KubeApiCatalog
  /** The kubeconfig's current context (what the context guard checks). */
  context: string
  /** Where the kubeconfig came from and which context is used (for log lines). */
  describe: string
  /** Opens the connection ahead of the first request (KubeClient.connect). */
  connect(): Promise<void>
  /** Closes idle connections. */
  close(): void
}

/** Options for {@link openKubeSession}. */
export interface KubeSessionOptions extends KubeConfigOptions {
  retry?: Partial<RetryPolicy>
  waits?: Partial<ClusterWaits>
  clock?: Clock
  /** Cancels the run: no request is sent after it but the run lock's upkeep (KubeRequest). */
  signal?: AbortSignal
}

/**
 * Loads the kubeconfig (failing fast with guidance when there is none) and wires the ports.
 * Sends no request: the first one goes out when a port is used.
 */
export async function openKubeSession(options: KubeSessionOptions = {}): Promise<KubeSession> {
  const loaded = await loadKubeConfig(options)
  const clock = options.clock ? { clock: options.clock } : {}
  const client = new KubeClient(loaded, {
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...clock
  })
  const discovery = new KubeDiscovery(client)
  const store = new KubeStateStore(client)
  const cluster = new KubeCluster(client, discovery, {
    ...(options.waits ? { waits: options.waits } : {}),
    ...clock
  })
  return {
    client,
    discovery,
    cluster,
    watcher: cluster,
    store,
    leases: new KubeLeaseStore(client, {
      ensure: () => store.ensureNamespace(),
      exists: () => store.namespaceExists()
    }),
    apis: new KubeApiCatalog(client, discovery),
    context: loaded.context,
    describe: `context "${loaded.context}" (${loaded.server}) from ${loaded.source}`,
    connect: () => client.connect(),
    close: () => client.close()
  }
}
