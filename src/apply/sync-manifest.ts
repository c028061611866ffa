/**
 * Applying one manifest: `--sync` mode (docs/compatibility.md#sync-mode: only what the Diff says,
 * optional prune, State updated only when something changed) and full mode
 * (docs/compatibility.md#plain-mode: every object, State overwritten). A failure anywhere means
 * this manifest's State is not saved.
 */
import { computeDiff, type DiffEntry } from '../state/diff.js'
import { formatStateKey, parseStateKey, resourceOf, stateKeyOf } from '../state/key.js'
import { formatSyncTime, type State } from '../state/state.js'
import type { JsonObject } from '../go/yaml.js'
import { readinessWaitOf, type DesiredState, type ManifestUnit } from './manifest-unit.js'
import { OBJECT_CONCURRENCY, runInWaves, wavesOf } from './object-waves.js'
import type { ApplyLog, Clock, Cluster, ObjectRef, StateStore, StoredState } from './ports.js'
import { waitForReadiness } from './readiness.js'
import type { RenderRecord } from '../state/render-record.js'
import { runTestPlugin } from './test-plugins.js'

/** How many objects a manifest run touched, by what the Diff said about them. */
export interface ManifestCounts {
  added: number
  modified: number
  alwaysSync: number
  /** Removed from the manifests and deleted (prune). */
  pruned: number
  /** Removed from the manifests but kept in the cluster and in State (no prune). */
  kept: number
  /** Objects sent to the API server. */
  applied: number
}

/** A State write this run owes, done at once or (atomic) after every layer succeeded. */
export interface PendingSave {
  manifest: string
  save: () => Promise<void>
}

/** What one manifest run did. */
export interface ManifestOutcome {
  counts: ManifestCounts
  /** `unchanged`: the Diff was empty; `skipped`: an unnamed manifest in sync mode. */
  result: 'applied' | 'unchanged' | 'skipped'
  pending?: PendingSave
  /** The objects sent to the API server (what a health wait waits for). */
  applied?: ObjectRef[]
}

/** Everything a manifest run reaches the world through. */
export interface ManifestContext {
  cluster: Cluster
  store: StateStore
  clock: Clock
  log: ApplyLog
  gitCommitHash: string
  prune: boolean
  /** Hold the State write back (returned as `pending`) instead of saving now. */
  atomic: boolean
  /** The State read for this manifest at the start of the run. */
  stored: StoredState
  /**
   * Told once the manifest's objects are applied (pruned, waited for) and only its State write
   * and what follows it remain: the layered apply's barrier waits for this, not for the write.
   */
  objectsApplied?: (outcome: ManifestOutcome) => void
  /** Awaited before the State write (not before a held, atomic one): earlier layers' writes. */
  beforeStateWrite?: () => Promise<unknown>
  /**
   * Awaited before the manifest's first request with how many objects it applies and deletes:
   * the layered apply holds them until its layer's other renders are done
   * (docs/compatibility.md#one-round-of-applies-per-layer).
   */
  beforeRequests?: (count: number) => Promise<unknown>
}

/** A manifest that failed; the message names the manifest and, where known, the object. */
export class ManifestError extends Error {
  override name = 'ManifestError'
  constructor(
    readonly manifest: string,
    message: string,
    options?: ErrorOptions
  ) {
    super(`manifest "${manifest}": ${message}`, options)
  }
}

/** A manifest's render failure as apply and state diff report it: `manifest "m": failed to build: …`. */
export function buildFailure(manifest: string, error: unknown): ManifestError {
  return new ManifestError(manifest, `failed to build: ${messageOf(error)}`, { cause: error })
}

/**
 * `--sync` for one manifest (docs/compatibility.md#sync-mode): apply added/modified/always-sync,
 * prune or keep removed, wait if asked, save State (or return it as `pending` when atomic), then
 * run its tests.
 */
export async function syncManifest(
  m: ManifestUnit,
  desired: DesiredState,
  ctx: ManifestContext
): Promise<ManifestOutcome> {
  const counts = emptyCounts()
  if (m.name === '') {
    ctx.log.warn(`manifest has no name, skipping sync (type ${m.type})`)
    return { counts, result: 'skipped' }
  }
  const diff = computeDiff(ctx.stored.state.entries, desired.entries, desired.alwaysSync)
  if (diff.length === 0) {
    ctx.objectsApplied?.({ counts, result: 'unchanged' })
    await keepRecord(m.name, desired, ctx)
    await runManifestTests(m, ctx)
    return { counts, result: 'unchanged' }
  }
  const entries = new Map(ctx.stored.state.entries)
  const touched = new Set<string>()
  const toApply = new Set(diff.filter((d) => d.type !== 'removed').map((d) => d.key))
  const removed = ctx.prune ? diff.length - toApply.size : 0
  await ctx.beforeRequests?.(toApply.size + removed)
  const applying = applyObjects(m.name, desired.objects, ctx, (key) => toApply.has(key))
  // The record is made while the applies are on their way, not after their answers: the State
  // write then leaves as soon as the last object is applied (docs/benchmarks.md#round-trips).
  const recording = recordOf(desired)
  const applied = await applying
  counts.applied = applied.length
  if (ctx.prune) {
    await deleteKeys(
      m.name,
      diff.filter((d) => d.type === 'removed').map((d) => d.key),
      ctx
    )
  }
  for (const d of diff) {
    touched.add(d.key)
    if (d.type !== 'removed') {
      entries.set(d.key, d.newHash ?? '')
      countApplied(counts, d)
      ctx.log.info(
        `synced resource manifest=${m.name} diff=${d.type} resource=${resourceOf(d.key)}`
      )
    } else if (ctx.prune) {
      entries.delete(d.key)
      counts.pruned++
      ctx.log.info(`pruned resource manifest=${m.name} resource=${resourceOf(d.key)}`)
    } else {
      counts.kept++
      ctx.log.warn(
        `skipped removed resource; pass --prune to delete manifest=${m.name} resource=${resourceOf(d.key)}`
      )
    }
  }
  await waitIfAsked(m, desired, ctx)
  ctx.objectsApplied?.({ counts, result: 'applied', applied })
  const record = await recording
  const pending = await saveUnlessAtomic(
    saveOf(m.name, { metadata: metadataNow(ctx), entries }, touched, ctx, record),
    ctx
  )
  await runManifestTests(m, ctx)
  return { counts, result: 'applied', applied, ...(pending ? { pending } : {}) }
}

/**
 * Plain apply for one manifest (docs/compatibility.md#plain-mode): everything, tests, then State
 * overwritten.
 */
export async function applyManifestFully(
  m: ManifestUnit,
  desired: DesiredState,
  ctx: ManifestContext
): Promise<ManifestOutcome> {
  const counts = emptyCounts()
  await ctx.beforeRequests?.(desired.objects.length)
  const applying = applyObjects(m.name, desired.objects, ctx, () => true)
  const recording = m.name === '' ? Promise.resolve(undefined) : recordOf(desired)
  const applied = await applying
  counts.applied = applied.length
  await waitIfAsked(m, desired, ctx)
  await runManifestTests(m, ctx)
  ctx.objectsApplied?.({ counts, result: 'applied', applied })
  if (m.name === '') {
    ctx.log.warn(`manifest has no name, its state is not recorded (type ${m.type})`)
    return { counts, result: 'applied', applied }
  }
  const touched = new Set([...ctx.stored.state.entries.keys(), ...desired.entries.keys()])
  const state: State = { metadata: metadataNow(ctx), entries: new Map(desired.entries) }
  const record = await recording
  const pending = await saveUnlessAtomic(saveOf(m.name, state, touched, ctx, record), ctx)
  return { counts, result: 'applied', applied, ...(pending ? { pending } : {}) }
}

/** Runs the manifest's own `tests` in order; the first failure fails the manifest. */
export async function runManifestTests(
  m: ManifestUnit,
  ctx: Pick<ManifestContext, 'cluster' | 'clock' | 'log'>
): Promise<void> {
  for (const [i, test] of (m.tests ?? []).entries()) {
    try {
      await runTestPlugin(test, ctx)
    } catch (error) {
      throw new ManifestError(m.name, `test ${i} (${test.type ?? ''}) failed: ${messageOf(error)}`)
    }
  }
}

// Objects go out in waves (object-waves.ts: CRDs, Namespaces, ... each wave concurrently),
// in render order within a wave, not in the Diff's key order (docs/compatibility.md#sync-mode
// upstream sends them one at a time in key order, which would apply `m//v1/ConfigMap/ns/x` before
// `m//v1/Namespace/ns`). The resulting cluster and State are the same either way; a failed object
// fails the manifest.
async function applyObjects(
  manifest: string,
  objects: readonly JsonObject[],
  ctx: ManifestContext,
  wanted: (key: string) => boolean
): Promise<ObjectRef[]> {
  const lastByKey = new Map<string, JsonObject>()
  for (const object of objects) lastByKey.set(formatStateKey(stateKeyOf(manifest, object)), object)
  const keys = [...lastByKey.keys()].filter(wanted)
  const waves = wavesOf(keys, { objectOf: (key) => lastByKey.get(key) })
  await runInWaves(waves, OBJECT_CONCURRENCY, async (key) => {
    try {
      await ctx.cluster.apply(lastByKey.get(key) as JsonObject)
    } catch (error) {
      throw new ManifestError(
        manifest,
        `failed to apply resource ${resourceOf(key)}: ${messageOf(error)}`
      )
    }
  })
  return keys.map(refOfKey)
}

/** Prune: the reverse waves (webhooks first, Namespaces and CRDs last), concurrently. */
async function deleteKeys(
  manifest: string,
  keys: readonly string[],
  ctx: ManifestContext
): Promise<void> {
  await runInWaves(wavesOf(keys, { reverse: true }), OBJECT_CONCURRENCY, async (key) => {
    try {
      await ctx.cluster.delete(refOfKey(key))
    } catch (error) {
      throw new ManifestError(
        manifest,
        `failed to delete resource ${resourceOf(key)}: ${messageOf(error)}`
      )
    }
  })
}

async function waitIfAsked(
  m: ManifestUnit,
  desired: DesiredState,
  ctx: ManifestContext
): Promise<void> {
  const wait = readinessWaitOf(m)
  if (wait === undefined) return
  const refs = desired.objects.map((o) => refOfKey(formatStateKey(stateKeyOf(m.name, o))))
  try {
    await waitForReadiness(refs, wait.timeoutSeconds, ctx)
  } catch (error) {
    throw new ManifestError(m.name, messageOf(error))
  }
}

function saveOf(
  manifest: string,
  state: State,
  touched: Set<string>,
  ctx: ManifestContext,
  record: RenderRecord | undefined
): PendingSave {
  const options = { touchedKeys: touched, base: ctx.stored, ...(record ? { record } : {}) }
  return { manifest, save: () => ctx.store.save(manifest, state, options) }
}

/** The render's record, when it has one (docs/renderers.md#skipping-unchanged-renders). */
async function recordOf(desired: DesiredState): Promise<RenderRecord | undefined> {
  return desired.record?.().catch(() => undefined)
}

/**
 * A manifest whose Diff is empty keeps its State as it is; its render's record is kept with it
 * when the State has another one (or none), so the next run need not render it. A failure to
 * keep it only warns: records save work, they decide nothing.
 */
async function keepRecord(
  manifest: string,
  desired: DesiredState,
  ctx: ManifestContext
): Promise<void> {
  if (ctx.store.saveRecord === undefined || ctx.stored.resourceVersion === undefined) return
  const record = await recordOf(desired)
  if (record === undefined || sameRecord(record, ctx.stored.record)) return
  try {
    await ctx.store.saveRecord(manifest, record, ctx.stored)
  } catch (error) {
    ctx.log.warn(`manifest "${manifest}": its render record was not kept: ${messageOf(error)}`)
  }
}

function sameRecord(a: RenderRecord, b: RenderRecord | undefined): boolean {
  return b !== undefined && a.key === b.key && a.entries === b.entries
}

async function saveUnlessAtomic(
  pending: PendingSave,
  ctx: ManifestContext
): Promise<PendingSave | undefined> {
  if (ctx.atomic) return pending
  try {
    await ctx.beforeStateWrite?.()
    await pending.save()
  } catch (error) {
    throw new ManifestError(pending.manifest, messageOf(error))
  }
  return undefined
}

function metadataNow(ctx: ManifestContext): State['metadata'] {
  return {
    gitCommitHash: ctx.gitCommitHash,
    lastSyncedAt: formatSyncTime(new Date(ctx.clock.now()))
  }
}

/** The object a state key names (GVK, namespace if any, name), for prune and waits. */
export function refOfKey(key: string): ObjectRef {
  const k = parseStateKey(key)
  return {
    apiVersion: k.group === '' ? k.version : `${k.group}/${k.version}`,
    kind: k.kind,
    ...(k.namespace === '' ? {} : { namespace: k.namespace }),
    name: k.name
  }
}

function countApplied(counts: ManifestCounts, d: DiffEntry): void {
  if (d.type === 'added') counts.added++
  else if (d.type === 'modified') counts.modified++
  else if (d.type === 'always-sync') counts.alwaysSync++
}

function emptyCounts(): ManifestCounts {
  return { added: 0, modified: 0, alwaysSync: 0, pruned: 0, kept: 0, applied: 0 }
}

/** An error's message without stack; non-errors stringified. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
