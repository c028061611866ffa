/**
 * The Cluster port over the Kubernetes API (docs/compatibility.md#applying-one-object,
 * #prune-and-delete): server-side apply with field manager `tazuna` and force, Job/Pod recreation,
 * deletes that ignore NotFound, and reads.
 */
import { refOf } from '../../apply/object-ref.js'
import { isSecretKind, withoutQuotedValues } from '../../objects/secret-values.js'
import { ClusterError, NotServedError } from '../../errors.js'
import type { Clock, Cluster, DryRunResult, ObjectRef } from '../../apply/ports.js'
import { systemClock } from '../clock.js'
import { isJsonObject, type JsonObject } from '../../go/yaml.js'
import { wellKnownResource } from '../../objects/well-known-resources.js'
import { jsonBody, responseError, type KubeRequest, type KubeResponse } from './api-response.js'
import type { KubeClient } from './client.js'
import type { KubeDiscovery, ResourceInfo } from './discovery.js'
import type { ListSelector, ObjectWatcher, WatchEvent, WatchTarget } from '../../health/ports.js'

/** Field manager of every write (the same as the Go CLI, so either tool can take over). */
export const FIELD_MANAGER = 'tazuna'

/** Limits of the waits inside apply; defaults follow Tazuna where it has one. */
export interface ClusterWaits {
  /**
   * Job/Pod deletion before recreation (docs/compatibility.md#applying-one-object: 5 min, polled
   * every 1 s).
   */
  deletionTimeoutMs: number
  deletionPollMs: number
  /**
   * CRD Established + served by discovery (Tazuna does not wait; see
   * docs/compatibility.md#crd-establishment).
   */
  crdTimeoutMs: number
  crdPollMs: number
}

const DEFAULT_WAITS: ClusterWaits = {
  deletionTimeoutMs: 5 * 60_000,
  deletionPollMs: 1000,
  crdTimeoutMs: 60_000,
  crdPollMs: 500
}

/**
 * A kind's REST path for one object; `namespaceless`: namespaced, but the object has none;
 * `wellKnown`: from the built-in table, not asked of discovery.
 */
interface Located {
  path: string
  info: ResourceInfo
  namespaceless: boolean
  wellKnown: boolean
}

/** Cluster operations over one shared KubeClient and its discovery cache. */
export class KubeCluster implements Cluster, ObjectWatcher {
  private readonly waits: ClusterWaits
  private readonly clock: Clock

  constructor(
    private readonly client: KubeClient,
    private readonly discovery: KubeDiscovery,
    options: { waits?: Partial<ClusterWaits>; clock?: Clock } = {}
  ) {
    this.waits = { ...DEFAULT_WAITS, ...options.waits }
    this.clock = options.clock ?? systemClock
  }

  async apply(object: JsonObject): Promise<void> {
    const ref = refOf(object)
    if (isRecreatedKind(ref)) return this.recreate(object, ref)
    const what = `apply ${describeRef(ref)}`
    await this.write(ref, what, (path) => ({
      method: 'PATCH',
      path,
      query: { fieldManager: FIELD_MANAGER, force: 'true', fieldValidation: 'Strict' },
      body: applyBody(object),
      contentType: 'application/apply-patch+yaml'
    }))
    if (isCrd(ref)) await this.waitUntilCrdServed(object, ref)
  }

  async dryRunApply(object: JsonObject): Promise<DryRunResult> {
    const ref = refOf(object)
    const what = `dry-run apply ${describeRef(ref)}`
    const res = await this.write(ref, what, (path) => ({
      method: 'PATCH',
      path,
      query: {
        fieldManager: FIELD_MANAGER,
        force: 'true',
        fieldValidation: 'Strict',
        dryRun: 'All'
      },
      body: applyBody(object),
      contentType: 'application/apply-patch+yaml'
    }))
    const warnings = res.warnings ?? []
    return {
      object: jsonBody<JsonObject>(what, res),
      warnings: isSecretKind(ref) ? warnings.map(withoutQuotedValues) : warnings
    }
  }

  async delete(ref: ObjectRef): Promise<void> {
    const what = `delete ${describeRef(ref)}`
    const located = await this.tryLocate(ref)
    // A kind the server no longer serves (its CRD is gone) has no objects left to delete; a
    // namespace-less key of a namespaced kind names none (Tazuna's DELETE is a NotFound).
    if (located === undefined || located.namespaceless) return
    const query: Record<string, string> = isJob(ref) ? { propagationPolicy: 'Background' } : {}
    const res = await this.client.request({ method: 'DELETE', path: located.path, query }, what)
    if (res.status === 404 || res.status < 300) return
    throw responseError(what, res)
  }

  async get(ref: ObjectRef): Promise<JsonObject | undefined> {
    const what = `get ${describeRef(ref)}`
    // A namespace-less key of a namespaced kind names no object (Tazuna's GET finds none).
    if ((await this.tryLocate(ref))?.namespaceless === true) return undefined
    const { path } = await this.locate(ref, what)
    const res = await this.client.request({ method: 'GET', path }, what)
    if (res.status === 404) return undefined
    if (res.status !== 200) throw responseError(what, res)
    return jsonBody<JsonObject>(what, res)
  }

  async list(target: WatchTarget, selector: ListSelector = {}): Promise<JsonObject[]> {
    return (await this.listAt(target, selector)).items
  }

  /**
   * docs/health.md#watches: list, then watch from the list's resourceVersion (with bookmarks);
   * a watch the server ends is resumed from the newest resourceVersion seen, an expired one
   * (410 Gone) listed again.
   */
  async watch(
    target: WatchTarget,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal
  ): Promise<void> {
    const what = `watch ${target.kind} in ${target.namespace ?? 'the cluster'}`
    const selector: { fieldSelector?: string } =
      target.name === undefined ? {} : { fieldSelector: `metadata.name=${target.name}` }
    let resourceVersion: string | undefined
    while (!signal.aborted) {
      if (resourceVersion === undefined) {
        const listed = await this.listAt(target, selector)
        if (signal.aborted) return
        resourceVersion = listed.resourceVersion
        onEvent({ type: 'LISTED', objects: listed.items })
      }
      let expired = false
      await this.client.stream(
        {
          path: await this.collectionPath(target, what),
          query: {
            ...(selector.fieldSelector === undefined
              ? {}
              : { fieldSelector: selector.fieldSelector }),
            watch: '1',
            allowWatchBookmarks: 'true',
            resourceVersion,
            timeoutSeconds: '290'
          }
        },
        what,
        (line) => {
          const event = parseWatchLine(line)
          if (event === undefined) return
          const version = resourceVersionOf(event.object)
          if (event.type === 'ERROR') {
            expired = true
            return
          }
          if (version !== undefined) resourceVersion = version
          if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
            onEvent({ type: event.type, object: event.object })
          }
        },
        signal
      )
      if (expired) resourceVersion = undefined
    }
  }

  private async collectionPath(target: WatchTarget, what: string): Promise<string> {
    const { name: _, ...collection } = target
    return (await this.locate({ ...collection, name: '' }, what)).path
  }

  private async listAt(
    target: WatchTarget,
    selector: ListSelector
  ): Promise<{ items: JsonObject[]; resourceVersion: string }> {
    const what = `list ${target.kind} in ${target.namespace ?? 'the cluster'}`
    const query: Record<string, string> = {}
    if (selector.labelSelector !== undefined) query.labelSelector = selector.labelSelector
    if (selector.fieldSelector !== undefined) query.fieldSelector = selector.fieldSelector
    const path = await this.collectionPath(target, what)
    const res = await this.client.request({ method: 'GET', path, query }, what)
    if (res.status !== 200) throw responseError(what, res)
    const list = jsonBody<JsonObject>(what, res)
    const items = Array.isArray(list.items) ? list.items.filter(isJsonObject) : []
    // A list's items carry no kind; the waiter reads it (kstatus's per-kind rules).
    const withKind = items.map((o) => ({ apiVersion: target.apiVersion, kind: target.kind, ...o }))
    return { items: withKind, resourceVersion: resourceVersionOf(list) ?? '' }
  }

  // docs/compatibility.md#applying-one-object: Job and Pod specs are largely immutable, so Tazuna
  // deletes, waits until the object is gone and creates it again. Divergence: batch/v1 Jobs are
  // deleted with propagationPolicy Background (as kubectl does); Tazuna sends no policy, so
  // batch/v1's legacy orphan default leaves the old Job's pods behind and holds the Job on the
  // garbage collector's finalizer.
  private async recreate(object: JsonObject, ref: ObjectRef): Promise<void> {
    const what = `recreate ${describeRef(ref)}`
    if ((await this.get(ref)) !== undefined) {
      await this.delete(ref)
      await this.waitUntilGone(ref)
    }
    await this.write({ ...ref, name: '' }, what, (path) => ({
      method: 'POST',
      path,
      query: { fieldManager: FIELD_MANAGER, fieldValidation: 'Strict' },
      body: applyBody(object)
    }))
  }

  /**
   * Sends a write to where `ref` is located and fails on any answer but a success. A 404 for a
   * kind located from the built-in table asks discovery whether the server serves the kind at
   * all, so that the error says so as it would have without the table.
   */
  private async write(
    ref: ObjectRef,
    what: string,
    request: (path: string) => KubeRequest
  ): Promise<KubeResponse> {
    const located = await this.locate(ref, what)
    const res = await this.client.request(request(located.path), what)
    if (res.status < 300) return res
    if (res.status === 404 && located.wellKnown) {
      this.discovery.refresh()
      if ((await this.discovery.resourceFor(ref.apiVersion, ref.kind)) === undefined) {
        throw notServed(ref, what)
      }
    }
    const error = responseError(what, res)
    if (isSecretKind(ref)) {
      error.message = withoutQuotedValues(error.message)
      error.warnings = error.warnings.map(withoutQuotedValues)
    }
    throw error
  }

  private async waitUntilGone(ref: ObjectRef): Promise<void> {
    const deadline = this.clock.now() + this.waits.deletionTimeoutMs
    while ((await this.get(ref)) !== undefined) {
      if (this.clock.now() >= deadline) {
        throw new ClusterError(
          `giving up waiting for deletion of ${ref.kind} ${nsName(ref)} (a stuck finalizer may be blocking it)`
        )
      }
      await this.clock.sleep(this.waits.deletionPollMs)
    }
  }

  // Custom resources applied right after their CRD (same manifest or a later one) would fail
  // until the CRD is Established and discovery serves the kind, so apply waits for both.
  private async waitUntilCrdServed(crd: JsonObject, ref: ObjectRef): Promise<void> {
    const deadline = this.clock.now() + this.waits.crdTimeoutMs
    const expired = (): boolean => this.clock.now() >= deadline
    const timeout = (what: string): ClusterError =>
      new ClusterError(
        `CustomResourceDefinition ${ref.name} ${what} within ${Math.round(this.waits.crdTimeoutMs / 1000)} s`
      )
    while (!isEstablished(await this.get(ref))) {
      if (expired()) throw timeout('did not become Established')
      await this.clock.sleep(this.waits.crdPollMs)
    }
    for (const apiVersion of servedApiVersions(crd)) {
      const kind = crdKind(crd)
      while ((await this.discovery.resourceFor(apiVersion, kind)) === undefined) {
        if (expired()) throw timeout(`is Established but ${apiVersion} ${kind} is not served`)
        await this.clock.sleep(this.waits.crdPollMs)
      }
    }
  }

  private async tryLocate(ref: ObjectRef): Promise<Located | undefined> {
    const known = wellKnownResource(ref.apiVersion, ref.kind)
    const info = known ?? (await this.discovery.resourceFor(ref.apiVersion, ref.kind))
    if (info === undefined) return undefined
    const wellKnown = known !== undefined
    const base = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`
    // No namespace is ever filled in (not even the kubeconfig context's): a namespaced object
    // without one names nothing Tazuna could reach (docs/compatibility.md#objects-without-a-namespace).
    if (info.namespaced && !ref.namespace) return { path: '', info, namespaceless: true, wellKnown }
    const namespace = info.namespaced ? ref.namespace : undefined
    const path =
      base +
      (namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`) +
      `/${info.resource}` +
      (ref.name === '' ? '' : `/${encodeURIComponent(ref.name)}`)
    return { path, info, namespaceless: false, wellKnown }
  }

  /** Where to send a write: refuses a kind the server lacks and a namespaced object without a namespace. */
  private async locate(ref: ObjectRef, what: string): Promise<Located> {
    const located = await this.tryLocate(ref)
    if (located === undefined) throw notServed(ref, what)
    if (located.namespaceless) {
      throw new ClusterError(
        `${what}: ${ref.kind} is namespaced and the object has no namespace, so it is not sent ` +
          '(Tazuna sends it as it is and the API server refuses it: the server could not find ' +
          'the requested resource; docs/compatibility.md#objects-without-a-namespace)'
      )
    }
    return located
  }
}

function notServed(ref: ObjectRef, what: string): NotServedError {
  return new NotServedError(
    `${what}: the API server does not serve kind ${ref.kind} in ${ref.apiVersion} (is its CRD installed?)`
  )
}

/** `apps/v1 Deployment web/api` — how messages name an object. */
export function describeRef(ref: ObjectRef): string {
  return `${ref.apiVersion} ${ref.kind} ${nsName(ref)}`
}

function nsName(ref: ObjectRef): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name
}

// docs/compatibility.md#applying-one-object: resourceVersion cleared and managedFields removed
// before the apply.
function applyBody(object: JsonObject): JsonObject {
  // A shallow copy: only metadata changes, and the body is serialized at once (a deep copy of
  // each object was ~40 ms of a 1,000-object first sync, docs/benchmarks.md).
  if (!isJsonObject(object.metadata)) return object
  const { resourceVersion: _, managedFields: __, ...metadata } = object.metadata
  return { ...object, metadata }
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/')
  return slash < 0 ? '' : apiVersion.slice(0, slash)
}

function isJob(ref: ObjectRef): boolean {
  return groupOf(ref.apiVersion) === 'batch' && ref.kind === 'Job'
}

function isRecreatedKind(ref: ObjectRef): boolean {
  return isJob(ref) || (groupOf(ref.apiVersion) === '' && ref.kind === 'Pod')
}

function isCrd(ref: ObjectRef): boolean {
  return (
    groupOf(ref.apiVersion) === 'apiextensions.k8s.io' && ref.kind === 'CustomResourceDefinition'
  )
}

function isEstablished(crd: JsonObject | undefined): boolean {
  const status = crd?.status
  if (!isJsonObject(status) || !Array.isArray(status.conditions)) return false
  return status.conditions.some(
    (c) => isJsonObject(c) && c.type === 'Established' && c.status === 'True'
  )
}

function crdSpec(crd: JsonObject): JsonObject {
  return isJsonObject(crd.spec) ? crd.spec : {}
}

function crdKind(crd: JsonObject): string {
  const names = crdSpec(crd).names
  return isJsonObject(names) && typeof names.kind === 'string' ? names.kind : ''
}

function servedApiVersions(crd: JsonObject): string[] {
  const spec = crdSpec(crd)
  const versions = Array.isArray(spec.versions) ? spec.versions : []
  const group = typeof spec.group === 'string' ? spec.group : ''
  return versions
    .filter(
      (v): v is JsonObject => isJsonObject(v) && v.served !== false && typeof v.name === 'string'
    )
    .map((v) => `${group}/${v.name as string}`)
}

function parseWatchLine(line: string): { type: string; object: JsonObject } | undefined {
  try {
    const event = JSON.parse(line) as unknown
    if (!isJsonObject(event as JsonObject) || typeof (event as JsonObject).type !== 'string') {
      return undefined
    }
    const { type, object } = event as { type: string; object: unknown }
    return isJsonObject(object as JsonObject) ? { type, object: object as JsonObject } : undefined
  } catch {
    return undefined
  }
}

function resourceVersionOf(object: JsonObject): string | undefined {
  const metadata = object.metadata
  return isJsonObject(metadata) && typeof metadata.resourceVersion === 'string'
    ? metadata.resourceVersion
    : undefined
}
