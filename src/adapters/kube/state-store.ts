/**
 * The StateStore port over ConfigMaps `tazuna/tazuna-state-<manifest>`
 * (docs/compatibility.md#state-storage), byte-compatible with the Go CLI: only name, namespace and
 * data are written; reads accept legacy and current data-key encodings. Saves are guarded by the
 * resourceVersion read at the start of the run.
 */
import { ClusterError } from '../../errors.js'
import type { SaveOptions, StateStore, StoredState } from '../../apply/ports.js'
import { assertStateFits } from '../../apply/state-size.js'
import { untouchedEntriesUnchanged } from '../../apply/state-conflict.js'
import {
  emptyState,
  STATE_NAMESPACE,
  stateConfigMapName as configMapName,
  stateFromConfigMapData,
  stateToConfigMapData,
  type State
} from '../../state/state.js'
import type { JsonObject } from '../../go/yaml.js'
import {
  decodeRenderRecord,
  encodeRenderRecord,
  RENDER_RECORD_ANNOTATION,
  type RenderRecord
} from '../../state/render-record.js'
import { jsonBody, responseError } from './api-response.js'
import type { KubeClient } from './client.js'

const STATE_CONFIGMAP_PREFIX = configMapName('')

const CONFIGMAPS = `/api/v1/namespaces/${STATE_NAMESPACE}/configmaps`
const MAX_CONFLICT_RETRIES = 5
const LIST_PAGE = 250

interface ConfigMap {
  metadata?: {
    name?: string
    resourceVersion?: string
    annotations?: Record<string, string>
    [k: string]: unknown
  }
  data?: Record<string, string>
  [k: string]: unknown
}

/** State ConfigMaps over one shared KubeClient; the namespace check is done once per process. */
export class KubeStateStore implements StateStore {
  private namespaceReady: Promise<void> | undefined
  /** The last object read per manifest, so an update keeps foreign metadata. */
  private readonly lastRead = new Map<string, ConfigMap>()

  constructor(private readonly client: KubeClient) {}

  async read(manifest: string, saving = false): Promise<StoredState> {
    const name = configMapName(manifest)
    const what = `read state of manifest "${manifest}" (GET ConfigMap ${STATE_NAMESPACE}/${name})`
    const res = await this.client.request(
      { method: 'GET', path: `${CONFIGMAPS}/${name}`, ...stateWrite(saving) },
      what
    )
    if (res.status === 404) return { state: emptyState() }
    if (res.status !== 200) throw responseError(what, res)
    return this.remember(manifest, jsonBody<ConfigMap>(what, res))
  }

  async readMany(manifests: readonly string[]): Promise<Map<string, StoredState>> {
    const wanted = new Set(manifests)
    if (wanted.size <= 1) return this.readEach([...wanted])
    const listed = await this.list()
    if (listed === undefined) return this.readEach([...wanted])
    const out = new Map<string, StoredState>()
    for (const manifest of wanted) {
      const cm = listed.get(configMapName(manifest))
      out.set(manifest, cm === undefined ? { state: emptyState() } : this.remember(manifest, cm))
    }
    return out
  }

  async save(manifest: string, state: State, options: SaveOptions): Promise<void> {
    const data = stateToConfigMapData(state)
    assertStateFits(manifest, data, state.entries.size)
    await this.ensureNamespace()
    let resourceVersion = options.base.resourceVersion
    const record = options.record && encodeRenderRecord(options.record)
    for (let attempt = 0; ; attempt++) {
      const res = await this.write(manifest, data, resourceVersion, record)
      if (res.status < 300) {
        this.remember(manifest, jsonBody<ConfigMap>(`save state of manifest "${manifest}"`, res))
        return
      }
      if (res.status !== 409) throw responseError(`save state of manifest "${manifest}"`, res)
      const current = await this.read(manifest, true)
      const unchanged = untouchedEntriesUnchanged(
        options.base.state.entries,
        current.state.entries,
        options.touchedKeys
      )
      if (!unchanged || attempt >= MAX_CONFLICT_RETRIES) throw conflictError(manifest)
      resourceVersion = current.resourceVersion
    }
  }

  // docs/renderers.md#skipping-unchanged-renders: the State's data as it is, its record
  // replaced. Refused when the State changed since it was read (409): then there is nothing to
  // record for it, and a later run will.
  async saveRecord(manifest: string, record: RenderRecord, base: StoredState): Promise<void> {
    const last = this.lastRead.get(manifest)
    const text = encodeRenderRecord(record)
    const resourceVersion = base.resourceVersion
    if (last?.metadata === undefined || text === undefined || resourceVersion === undefined) return
    if (last.metadata.resourceVersion !== resourceVersion) return
    const name = configMapName(manifest)
    const what = `record the render of manifest "${manifest}" (update ConfigMap ${STATE_NAMESPACE}/${name})`
    const body = { ...last, metadata: withRecord(withoutManagedFields(last.metadata), text) }
    const res = await this.client.request(
      { method: 'PUT', path: `${CONFIGMAPS}/${name}`, body },
      what
    )
    if (res.status === 409) return
    if (res.status >= 300) throw responseError(what, res)
    this.remember(manifest, jsonBody<ConfigMap>(what, res))
  }

  private async write(
    manifest: string,
    data: Record<string, string>,
    resourceVersion: string | undefined,
    record: string | undefined
  ) {
    const name = configMapName(manifest)
    const target = `ConfigMap ${STATE_NAMESPACE}/${name}`
    if (resourceVersion === undefined) {
      const metadata = { name, namespace: STATE_NAMESPACE }
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: record === undefined ? metadata : withRecord(metadata, record),
        data
      }
      return this.client.request(
        { method: 'POST', path: CONFIGMAPS, body, ...stateWrite(true) },
        `save state of manifest "${manifest}" (create ${target})`
      )
    }
    return this.client.request(
      {
        method: 'PUT',
        path: `${CONFIGMAPS}/${name}`,
        body: this.updateBody(manifest, data, resourceVersion, record),
        ...stateWrite(true)
      },
      `save state of manifest "${manifest}" (update ${target})`
    )
  }

  // Like the Go CLI (GET, replace .data, Update): labels, annotations and other metadata that
  // someone else put on the ConfigMap survive; only data is replaced.
  // A new record replaces the old one; without one, the old one stays (a record states a fact
  // about the render of given inputs, which stays true whoever writes State).
  private updateBody(
    manifest: string,
    data: Record<string, string>,
    resourceVersion: string,
    record: string | undefined
  ): ConfigMap {
    const name = configMapName(manifest)
    const last = this.lastRead.get(manifest)
    const metadata =
      last?.metadata?.resourceVersion === resourceVersion
        ? withoutManagedFields(last.metadata)
        : { name, namespace: STATE_NAMESPACE, resourceVersion }
    return {
      ...(last ?? { apiVersion: 'v1', kind: 'ConfigMap' }),
      metadata: record === undefined ? metadata : withRecord(metadata, record),
      data
    }
  }

  private remember(manifest: string, cm: ConfigMap): StoredState {
    this.lastRead.set(manifest, cm)
    const state = stateFromConfigMapData(cm.data ?? {}, manifest)
    const resourceVersion = cm.metadata?.resourceVersion
    const record = decodeRenderRecord(cm.metadata?.annotations?.[RENDER_RECORD_ANNOTATION])
    return {
      state,
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
      ...(record === undefined ? {} : { record })
    }
  }

  private async readEach(manifests: readonly string[]): Promise<Map<string, StoredState>> {
    const states = await Promise.all(manifests.map((m) => this.read(m)))
    return new Map(manifests.map((m, i) => [m, states[i] as StoredState]))
  }

  /** All ConfigMaps of the namespace by name, or undefined when listing is forbidden. */
  private async list(): Promise<Map<string, ConfigMap> | undefined> {
    const byName = new Map<string, ConfigMap>()
    let continueToken = ''
    do {
      const query: Record<string, string> = { limit: String(LIST_PAGE) }
      if (continueToken !== '') query.continue = continueToken
      const what = `read state (LIST ConfigMaps in namespace ${STATE_NAMESPACE})`
      const res = await this.client.request({ method: 'GET', path: CONFIGMAPS, query }, what)
      if (res.status === 403) return undefined
      if (res.status !== 200) throw responseError(what, res)
      const page = jsonBody<{ items?: ConfigMap[]; metadata?: { continue?: string } }>(what, res)
      for (const cm of page.items ?? []) {
        const name = cm.metadata?.name
        if (name?.startsWith(STATE_CONFIGMAP_PREFIX))
          byName.set(name, { apiVersion: 'v1', kind: 'ConfigMap', ...cm })
      }
      continueToken = page.metadata?.continue ?? ''
    } while (continueToken !== '')
    return byName
  }

  /** Namespace `tazuna` is known to exist (the run lock created its Lease there). */
  namespaceExists(): void {
    this.namespaceReady ??= Promise.resolve()
  }

  /** Creates namespace `tazuna` when missing (once per process); the run lock needs it too. */
  ensureNamespace(): Promise<void> {
    const current = (this.namespaceReady ??= this.createNamespaceIfMissing())
    current.catch(() => {
      if (this.namespaceReady === current) this.namespaceReady = undefined
    })
    return current
  }

  // docs/compatibility.md#state-storage: a bare Namespace `tazuna` (no labels) is created on the
  // first save when missing. Without permission to read namespaces the save itself will tell
  // whether it exists.
  private async createNamespaceIfMissing(): Promise<void> {
    const path = `/api/v1/namespaces/${STATE_NAMESPACE}`
    const got = await this.client.request(
      { method: 'GET', path, ...stateWrite(true) },
      `get Namespace ${STATE_NAMESPACE}`
    )
    if (got.status === 200 || got.status === 403) return
    if (got.status !== 404) throw responseError(`get Namespace ${STATE_NAMESPACE}`, got)
    const what = `create Namespace ${STATE_NAMESPACE}`
    const body: JsonObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: STATE_NAMESPACE }
    }
    const res = await this.client.request(
      { method: 'POST', path: '/api/v1/namespaces', body, ...stateWrite(true) },
      what
    )
    if (res.status >= 300 && res.status !== 409) throw responseError(what, res)
  }
}

/**
 * A State write, and the reads it needs, go out even after the run was cancelled: a manifest
 * saves only once all of its objects were applied, so its State must record them
 * (docs/reliability.md#cancellation). Every other request of a cancelled run is refused.
 */
function stateWrite(saving: boolean): { evenWhenCancelled?: true } {
  return saving ? { evenWhenCancelled: true } : {}
}

function withoutManagedFields(metadata: NonNullable<ConfigMap['metadata']>): ConfigMap['metadata'] {
  const { managedFields: _, ...rest } = metadata
  return rest
}

function withRecord<T extends ConfigMap['metadata']>(metadata: T, record: string): T {
  return {
    ...metadata,
    annotations: { ...metadata?.annotations, [RENDER_RECORD_ANNOTATION]: record }
  }
}

function conflictError(manifest: string): ClusterError {
  return new ClusterError(
    `state of manifest "${manifest}" (ConfigMap ${STATE_NAMESPACE}/${configMapName(manifest)}) was ` +
      'changed by another deploy while this run was applying it; its State was not saved. ' +
      'Re-run to apply against the newer State.',
    409
  )
}
