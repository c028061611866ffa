/**
 * The ports the apply and state-sync core talks to the world through. Each is as small as its
 * consumer needs; the implementations live in src/adapters/kube/*.ts (one shared client per
 * run) and in-memory fakes serve the unit tests.
 */
import type { JsonObject } from '../go/yaml.js'
import type { HelmCapabilities } from '../render/context.js'
import type { State } from '../state/state.js'
import type { RenderRecord } from '../state/render-record.js'

export type { HelmCapabilities }

/** Identifies one Kubernetes object; `namespace` absent for cluster-scoped objects. */
export interface ObjectRef {
  apiVersion: string
  kind: string
  namespace?: string
  name: string
}

/** A manifest's recorded State plus the ConfigMap resourceVersion it was read at. */
export interface StoredState {
  state: State
  /** Absent when no state ConfigMap exists yet (the save then creates it). */
  resourceVersion?: string
  /** The render record kept with it (docs/renderers.md#skipping-unchanged-renders), if any. */
  record?: RenderRecord
}

/**
 * What a save needs to resolve a concurrent writer (docs/compatibility.md#state-storage, optimistic
 * concurrency).
 */
export interface SaveOptions {
  /** Logical state keys this run applied, pruned or otherwise decided. */
  touchedKeys: ReadonlySet<string>
  /** The StoredState this run started from (its resourceVersion guards the write). */
  base: StoredState
  /** The render record to keep with the new State; absent: the one it has stays. */
  record?: RenderRecord
}

/**
 * The per-manifest State ConfigMaps in namespace `tazuna` (docs/compatibility.md#state-storage).
 */
export interface StateStore {
  /** Reads one manifest's State; a missing ConfigMap is an empty State. */
  read(manifest: string): Promise<StoredState>
  /** Reads several manifests' States, with one list request where that is cheaper. */
  readMany(manifests: readonly string[]): Promise<Map<string, StoredState>>
  /**
   * Writes a manifest's State. On a conflicting concurrent write it re-reads; when every entry
   * outside `touchedKeys` is unchanged it retries with the newer version, otherwise it fails
   * naming the manifest.
   */
  save(manifest: string, state: State, options: SaveOptions): Promise<void>
  /**
   * Keeps `record` with the State `base` was read as, leaving its data as it is; does nothing
   * when that State has changed since. Records are an optimisation: this never fails a run.
   */
  saveRecord?(manifest: string, record: RenderRecord, base: StoredState): Promise<void>
}

/** The cluster operations apply, prune, readiness waits and test plugins need. */
export interface Cluster {
  /**
   * Server-side apply (field manager `tazuna`, force); Job and Pod are recreated
   * (docs/compatibility.md#applying-one-object).
   */
  apply(object: JsonObject): Promise<void>
  /** Deletes with default options; NotFound is success (docs/compatibility.md#prune-and-delete). */
  delete(ref: ObjectRef): Promise<void>
  /** The live object, or undefined when it does not exist. */
  get(ref: ObjectRef): Promise<JsonObject | undefined>
  /**
   * The object the server would store after applying `object` (server-side apply with
   * `dryRun=All`, field manager `tazuna`, force), and the warnings it answered with: writes
   * nothing. Content diffs in live mode.
   */
  dryRunApply?(object: JsonObject): Promise<DryRunResult>
}

/** A dry run's answer: the object as the server would store it, and its `Warning` texts. */
export interface DryRunResult {
  object: JsonObject
  /** In the order sent; a v1 Secret's without the values the server quotes. */
  warnings: readonly string[]
}

/** Server version and served API resources, discovered once per run. */
export interface Discovery {
  capabilities(): Promise<HelmCapabilities>
  /** Whether the server serves apiVersion + kind as namespaced; undefined when it does not serve it. */
  namespaced(apiVersion: string, kind: string): Promise<boolean | undefined>
}

/** Where progress lines go (stderr in the CLI, the job log in the action). */
export interface ApplyLog {
  info(message: string): void
  warn(message: string): void
}

/** Waiting, behind a port so tests of retry and polling loops need not sleep for real. */
export interface Clock {
  now(): number
  /** Resolves after `ms`, or as soon as `signal` aborts (its timer then no longer holds the process). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}
