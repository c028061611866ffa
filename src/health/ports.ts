/**
 * What the health wait reads the cluster through (docs/health.md#watches): a list, then a watch
 * from the list's resourceVersion, per kind and namespace. Implemented by KubeCluster
 * (src/adapters/kube/cluster.ts) over one KubeClient stream per watch.
 */
import type { JsonObject } from '../go/json-value.js'

/** Every object of one kind in one namespace (none: cluster-scoped, or all namespaces). */
export interface WatchTarget {
  apiVersion: string
  kind: string
  namespace?: string
  /** Only this object (a `metadata.name` field selector). */
  name?: string
}

/** What a watch reports: the list it started from, then every change. */
export type WatchEvent =
  | { type: 'LISTED'; objects: JsonObject[] }
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: JsonObject }

/** Selectors of a list, as the API server takes them. */
export interface ListSelector {
  labelSelector?: string
  fieldSelector?: string
}

/** Lists and watches objects of one kind. */
export interface ObjectWatcher {
  /**
   * Lists `target`, reports the list, then reports every change until `signal` aborts (then
   * resolves). A watch the server ends or expires is resumed or listed again; a failure to list
   * rejects.
   */
  watch(
    target: WatchTarget,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal
  ): Promise<void>
  /** The objects of `target` that match `selector`. */
  list(target: WatchTarget, selector?: ListSelector): Promise<JsonObject[]>
}
