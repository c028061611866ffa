/**
 * `apply` over dependency layers (docs/compatibility.md#apply-flow, #layers, #sync-mode): the
 * manifests of a layer run concurrently (capped; state-neutral,
 * docs/compatibility.md#layer-concurrency), a barrier separates layers, and a failed layer stops
 * the run after its siblings have finished and saved. `--atomic` holds every State write until all
 * layers succeeded. `spec.tests` run last.
 */
import { emptyState } from '../state/state.js'
import type { ApplyLog, Clock, Cluster, StateStore, StoredState } from './ports.js'
import { readinessWaitOf, type BuildDesired, type ManifestUnit } from './manifest-unit.js'
import {
  applyManifestFully,
  buildFailure,
  ManifestError,
  messageOf,
  syncManifest,
  type ManifestCounts,
  type ManifestOutcome,
  type PendingSave
} from './sync-manifest.js'
import { runTestPlugin, type TestPluginSpec } from './test-plugins.js'
import { OBJECT_CONCURRENCY } from './object-waves.js'
import type { ObjectRef } from './ports.js'
import { explainUnhealthy, type HealthCause } from '../health/cause.js'
import type { ObjectWatcher } from '../health/ports.js'
import { waitForHealth, type HealthOutcome, type ObjectHealth } from '../health/wait.js'
import { describeUnhealthy } from '../health/summary.js'

/** The mode of a run; `prune` and `atomic` need `sync` (the CLI and inputs enforce it). */
export interface ApplyOptions<M extends ManifestUnit = ManifestUnit> {
  sync: boolean
  prune: boolean
  atomic: boolean
  /**
   * `git rev-parse HEAD` in the tazuna.yaml directory, or ''
   * (docs/compatibility.md#entry-and-metadata-bytes).
   */
  gitCommitHash: string
  /** Manifests of one layer in flight at once (default 4). */
  concurrency?: number
  /**
   * Tag filter: unselected manifests are skipped inside their layer (docs/compatibility.md#layers).
   */
  isSelected?: (m: M) => boolean
  /**
   * The run's cancellation (src/engine/cancellation.ts): once it aborts no manifest starts, the
   * manifests in flight end (their State saved only when all of their objects were applied),
   * and the report says where the run stopped.
   */
  signal?: AbortSignal
  /**
   * `wait` (docs/health.md#wait): after each layer, every object it applied must become Current
   * (kstatus) within `timeoutMs` before the next layer starts; absent: no health check.
   */
  wait?: { timeoutMs: number; timeout: string }
}

/** The ports a run uses; `build` renders one manifest. */
export interface ApplyDeps<M extends ManifestUnit> {
  cluster: Cluster
  store: StateStore
  clock: Clock
  log: ApplyLog
  build: BuildDesired<M>
  /** Lists and watches for the health wait; needed when `options.wait` is set. */
  watcher?: ObjectWatcher
}

/** What happened to one manifest. */
export interface ManifestReport {
  manifest: string
  type: string
  /** `cancelled`: it was under way when the run was cancelled, and did not finish. */
  result: 'applied' | 'unchanged' | 'skipped' | 'filtered' | 'failed' | 'cancelled' | 'not-run'
  counts: ManifestCounts
  durationMs: number
  error?: string
  /** The objects it sent to the API server. */
  applied?: ObjectRef[]
}

/** One object's health after its layer, with the manifest that applied it and the cause. */
export interface ObjectHealthReport extends Omit<ObjectHealth, 'live'> {
  manifest: string
  cause?: HealthCause
}

/** Whether a layer became healthy (docs/health.md#wait), and how long it took. */
export interface LayerHealth {
  healthy: boolean
  ended: Exclude<HealthOutcome['ended'], 'cancelled'>
  /** From the start of the layer to the end of the wait. */
  durationMs: number
  timeout: string
  objects: ObjectHealthReport[]
}

/** What happened to one layer (index 0-based, as in `layer N apply failed`). */
export interface LayerReport {
  index: number
  result: 'succeeded' | 'failed' | 'cancelled' | 'not-run'
  manifests: ManifestReport[]
  durationMs: number
  /** Set when the run waited for health after this layer. */
  health?: LayerHealth
}

/** The whole run; `error` is set exactly when `ok` is false. */
export interface ApplyReport {
  ok: boolean
  layers: LayerReport[]
  durationMs: number
  error?: string
  /**
   * The run was cancelled: in which layer (0-based; absent: after the last one, before
   * spec.tests) and why (the signal's reason, e.g. `SIGINT`).
   */
  cancelled?: { layer?: number; reason: string }
  /** Whether health was checked (`wait`). */
  waited?: boolean
}

// Manifests of a layer in flight at once. Renders are bounded on their own (render-ahead, the
// render module's workers) and requests by the kube client, so this bounds waiting on the
// network: under a cap of 4 a layer of 5 manifests took two rounds of round trips
// (docs/benchmarks.md#round-trips).
const DEFAULT_CONCURRENCY = 16

/**
 * Runs every layer in order and returns the report; never throws for a manifest, layer, save
 * or test failure (they end up in `error`, formatted like Tazuna's messages).
 */
export async function runLayeredApply<M extends ManifestUnit>(
  layers: readonly (readonly M[])[],
  specTests: readonly TestPluginSpec[],
  options: ApplyOptions<M>,
  deps: ApplyDeps<M>
): Promise<ApplyReport> {
  const started = deps.clock.now()
  const report: ApplyReport = {
    ok: true,
    layers: [],
    durationMs: 0,
    ...(options.wait === undefined ? {} : { waited: true })
  }
  const finish = (error?: string): ApplyReport => {
    report.durationMs = deps.clock.now() - started
    if (error !== undefined) Object.assign(report, { ok: false, error })
    return report
  }
  const selected = (m: M): boolean => options.isSelected?.(m) ?? true
  const cancelled = (layer: number | undefined): ApplyReport => {
    const reason = reasonOf(options.signal)
    report.cancelled = { ...(layer === undefined ? {} : { layer }), reason }
    const where =
      layer === undefined ? 'before spec.tests' : `in layer ${layer + 1} of ${layers.length}`
    const errors = report.layers
      .flatMap((l) => l.manifests)
      .flatMap((r) => (r.error === undefined ? [] : [r.error]))
    return finish([`the run was cancelled (${reason}) ${where}`, ...errors].join('\n'))
  }
  let stored: Map<string, StoredState>
  try {
    const names = layers
      .flat()
      .filter((m) => selected(m) && m.name !== '')
      .map((m) => m.name)
    stored = await deps.store.readMany(names)
  } catch (error) {
    if (!aborted(options.signal)) return finish(messageOf(error))
    report.layers.push(...notRunLayers(layers, 0))
    return cancelled(0)
  }
  const pending: PendingSave[] = []
  // A layer's State writes overlap the next layer's applies (docs/compatibility.md#layers): the
  // barrier waits for a layer's objects; a layer's report is final once its writes answered, and
  // every way out of the run waits for that, so the lock is held until the last write answered.
  const finals: Promise<LayerReport>[] = []
  const afterWait = new Map<number, { health?: LayerHealth; failed?: true }>()
  let writesBefore: Promise<unknown> = Promise.resolve()
  let writeFailed = false
  const settle = async (notRunFrom: number): Promise<void> => {
    const settled = await Promise.all(finals)
    for (const l of settled) {
      const after = afterWait.get(l.index)
      if (after?.health !== undefined) {
        l.health = after.health
        l.durationMs = after.health.durationMs
      }
      if (after?.failed) l.result = 'failed'
    }
    report.layers.push(...settled, ...notRunLayers(layers, notRunFrom))
  }
  // The first layer with failed manifests, as `layer N apply failed: …` with each one's error.
  const failure = (): string | undefined => {
    for (const l of report.layers) {
      const errors = l.manifests.flatMap((r) => (r.error === undefined ? [] : [r.error]))
      if (errors.length > 0) return `layer ${l.index} apply failed: ${errors.join('\n')}`
    }
    return undefined
  }
  for (const [index, layer] of layers.entries()) {
    // The overlap is one layer deep: a layer starts once the State writes of the one two
    // before it answered (they went out with the previous layer's applies), so a write that
    // failed stops the run after the next layer at the latest.
    if (index >= 2) await finals[index - 2]
    if (aborted(options.signal)) {
      await settle(index)
      return cancelled(index)
    }
    if (writeFailed) {
      await settle(index)
      return finish(failure() ?? `layer ${index - 1} apply failed`)
    }
    const lc = {
      options,
      deps,
      stored,
      pending,
      selected,
      writesBefore,
      round: layerRound(OBJECT_CONCURRENCY)
    }
    const { gate, final } = await runLayer(index, layer, lc)
    finals.push(final)
    writesBefore = Promise.all([writesBefore, final])
    void final.then((l) => {
      if (l.result === 'failed') writeFailed = true
    })
    if (gate.result === 'cancelled') {
      await settle(index + 1)
      return cancelled(index)
    }
    if (gate.result === 'failed') {
      await settle(index + 1)
      return finish(failure() ?? `layer ${index} apply failed`)
    }
    if (options.wait !== undefined) {
      const health = await layerHealth(gate, options.wait, deps, options.signal).catch(
        (error: unknown) => new Error(`layer ${index} health check failed: ${messageOf(error)}`)
      )
      // Cancelled while it waited: the layer's objects were applied and their State is saved
      // (settle waits for it); the next layer is not started (its health is not known, so none
      // is recorded).
      if (aborted(options.signal)) {
        await settle(index + 1)
        return cancelled(index)
      }
      if (health instanceof Error) {
        afterWait.set(index, { failed: true })
        await settle(index + 1)
        return finish(failure() ?? health.message)
      }
      afterWait.set(index, { health, ...(health.healthy ? {} : { failed: true }) })
      logHealth(index, health, deps.log)
      if (!health.healthy) {
        await settle(index + 1)
        return finish(failure() ?? `layer ${index} is not healthy: ${describeUnhealthy(health)}`)
      }
    }
  }
  await settle(layers.length)
  // A State write cut short by the cancellation (refused, not answered).
  const stopped = report.layers.find((l) => l.result === 'cancelled')
  if (stopped !== undefined) return cancelled(stopped.index)
  const failed = failure()
  if (failed !== undefined) return finish(failed)
  try {
    // Every layer applied: held (atomic) State writes are owed even to a cancelled run.
    for (const p of pending) await p.save()
    if (aborted(options.signal) && specTests.length > 0) return cancelled(undefined)
    for (const [i, test] of specTests.entries()) {
      await runTestPlugin(test, deps).catch((error: unknown) => {
        throw new Error(`spec.tests[${i}] (${test.type ?? ''}) failed: ${messageOf(error)}`)
      })
    }
  } catch (error) {
    return finish(messageOf(error))
  }
  return finish()
}

interface LayerContext<M extends ManifestUnit> {
  options: ApplyOptions<M>
  deps: ApplyDeps<M>
  stored: Map<string, StoredState>
  pending: PendingSave[]
  selected: (m: M) => boolean
  /** Settles once every earlier layer's State writes have answered. */
  writesBefore: Promise<unknown>
  /** The layer's round of requests (see runLayer). */
  round: LayerRound
}

/**
 * A layer's round of requests (docs/compatibility.md#one-round-of-applies-per-layer): the
 * renders its manifests started, and how many objects those that rendered send. `ready` waits
 * until no render is pending (renders started meanwhile included), or until the layer's objects
 * are more than one round of requests carries, when holding them back gains nothing.
 */
interface LayerRound {
  track(render: Promise<unknown>): void
  ready(objects: number): Promise<void>
}

function layerRound(oneRound: number): LayerRound {
  const pending = new Set<Promise<unknown>>()
  let objects = 0
  let overflow: () => void = () => undefined
  const full = new Promise<void>((resolve) => (overflow = resolve))
  const settled = async (): Promise<void> => {
    while (pending.size > 0) await Promise.allSettled([...pending])
  }
  return {
    track(render) {
      pending.add(render)
      const done = () => void pending.delete(render)
      render.then(done, done)
    },
    async ready(count) {
      objects += count
      if (objects > oneRound) overflow()
      await Promise.race([settled(), full])
    }
  }
}

/**
 * Runs a layer's manifests: `gate` once each one's objects are applied or it ended (failed,
 * unchanged; one with `tests` ends first, they follow its State write), `final` once each ended.
 * A manifest's requests go out once the renders of the layer's manifests in flight have settled,
 * so that the layer's applies are one round of requests, not one per render finishing
 * (docs/compatibility.md#one-round-of-applies-per-layer), unless the layer sends more than one
 * round carries; one that waits for readiness or has `tests` goes out as soon as its own render
 * is done, so that its wait starts at once.
 */
async function runLayer<M extends ManifestUnit>(
  index: number,
  layer: readonly M[],
  lc: LayerContext<M>
): Promise<{ gate: LayerReport; final: Promise<LayerReport> }> {
  const started = lc.deps.clock.now()
  const layerReport = (manifests: ManifestReport[]): LayerReport => {
    const failed = manifests.some((r) => r.result === 'failed')
    const stopped = manifests.some((r) => r.result === 'cancelled' || r.result === 'not-run')
    return {
      index,
      result: stopped ? 'cancelled' : failed ? 'failed' : 'succeeded',
      manifests,
      durationMs: lc.deps.clock.now() - started
    }
  }
  const ended: Promise<ManifestReport>[] = []
  const limit = lc.options.concurrency ?? DEFAULT_CONCURRENCY
  const gates = await mapConcurrently([...layer.keys()], limit, (i) => {
    const m = layer[i] as M
    let objectsApplied: (r: ManifestReport) => void = () => undefined
    const gate = new Promise<ManifestReport>((resolve) => (objectsApplied = resolve))
    const done = runOne(m, lc, (r) => {
      if ((m.tests ?? []).length === 0) objectsApplied(r)
    })
    ended[i] = done
    return Promise.race([gate, done])
  })
  return { gate: layerReport(gates), final: Promise.all(ended).then(layerReport) }
}

/**
 * Runs one manifest to its end. `objectsApplied` is told, with the report it ends with unless
 * its State write fails, once its objects are applied and only that write remains.
 */
async function runOne<M extends ManifestUnit>(
  m: M,
  lc: LayerContext<M>,
  objectsApplied: (report: ManifestReport) => void
): Promise<ManifestReport> {
  const { deps, options } = lc
  const started = deps.clock.now()
  const report = (
    result: ManifestReport['result'],
    counts = zeroCounts(),
    error?: string
  ): ManifestReport => ({
    manifest: m.name,
    type: m.type,
    result,
    counts,
    durationMs: deps.clock.now() - started,
    ...(error === undefined ? {} : { error })
  })
  if (!lc.selected(m)) {
    deps.log.info(`skip manifest due to tags filter manifest=${m.name}`)
    return report('filtered')
  }
  if (aborted(options.signal)) return report('not-run')
  deps.log.info(`[${m.type}] ${m.name}${m.description ? ` - ${m.description}` : ''}`)
  let outcome: ManifestOutcome
  try {
    const buildFailed = (error: unknown) => {
      throw buildFailure(m.name, error)
    }
    const stored = lc.stored.get(m.name) ?? emptyStored()
    const rendering = deps.build(m)
    lc.round.track(rendering)
    let desired = await rendering.catch(buildFailed)
    // Skipped against another State than this run's (or for a full apply): render after all.
    if (desired.skipped !== undefined && (!options.sync || desired.skipped.stored !== stored)) {
      const again = desired.skipped.render()
      lc.round.track(again)
      desired = await again.catch(buildFailed)
    }
    // One that waits for readiness or runs tests goes at once, so that its wait starts early.
    const oneRound = readinessWaitOf(m) === undefined && (m.tests ?? []).length === 0
    const ctx = {
      ...deps,
      gitCommitHash: options.gitCommitHash,
      prune: options.prune,
      atomic: options.atomic,
      stored,
      objectsApplied: (o: ManifestOutcome) =>
        objectsApplied({ ...report(o.result, o.counts), applied: o.applied ?? [] }),
      beforeStateWrite: () => lc.writesBefore,
      ...(oneRound ? { beforeRequests: (count: number) => lc.round.ready(count) } : {})
    }
    outcome = await (options.sync
      ? syncManifest(m, desired, ctx)
      : applyManifestFully(m, desired, ctx))
  } catch (error) {
    const message =
      error instanceof ManifestError ? error.message : `manifest "${m.name}": ${messageOf(error)}`
    deps.log.warn(message)
    // Cut short by the cancellation (its next request refused, its render abandoned).
    if (aborted(options.signal)) return report('cancelled', zeroCounts(), message)
    return report('failed', zeroCounts(), message)
  }
  if (outcome.pending) lc.pending.push(outcome.pending)
  deps.log.info(`[${m.type}] ${m.name} ... done`)
  return { ...report(outcome.result, outcome.counts), applied: outcome.applied ?? [] }
}

/**
 * Waits for the objects the layer applied (docs/health.md#wait) and, when some are not Current,
 * reads why.
 */
async function layerHealth<M extends ManifestUnit>(
  layer: LayerReport,
  wait: { timeoutMs: number; timeout: string },
  deps: ApplyDeps<M>,
  signal: AbortSignal | undefined
): Promise<LayerHealth> {
  const watcher = deps.watcher
  if (watcher === undefined) throw new Error('this cluster connection cannot watch objects')
  const manifestOf = new Map<string, string>()
  const refs: ObjectRef[] = []
  for (const m of layer.manifests) {
    for (const ref of m.applied ?? []) {
      const key = `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`
      if (manifestOf.has(key)) continue
      manifestOf.set(key, m.manifest)
      refs.push(ref)
    }
  }
  const startedAt = deps.clock.now() - layer.durationMs
  const outcome = await waitForHealth(
    refs,
    {
      timeoutMs: wait.timeoutMs,
      timeout: wait.timeout,
      startedAt,
      ...(signal === undefined ? {} : { signal })
    },
    { watcher, clock: deps.clock }
  )
  // The caller reports a cancelled run as cancelled (and sends nothing more to explain it).
  if (outcome.ended === 'cancelled') throw new Error('the run was cancelled while it waited')
  const ended = outcome.ended
  const causes = outcome.healthy
    ? new Map<ObjectHealth, HealthCause>()
    : await explainUnhealthy(outcome.objects, watcher)
  return {
    healthy: outcome.healthy,
    ended,
    durationMs: outcome.durationMs,
    timeout: outcome.timeout,
    objects: outcome.objects.map((o) => {
      const { live: _, ...rest } = o
      const r = o.ref
      const cause = causes.get(o)
      return {
        ...rest,
        manifest: manifestOf.get(`${r.apiVersion}/${r.kind}/${r.namespace ?? ''}/${r.name}`) ?? '',
        ...(cause === undefined ? {} : { cause })
      }
    })
  }
}

// One line per manifest (the action's log groups route it by `manifest=`), then the layer's.
function logHealth(index: number, health: LayerHealth, log: ApplyLog): void {
  const byManifest = new Map<string, ObjectHealthReport[]>()
  for (const o of health.objects)
    byManifest.set(o.manifest, [...(byManifest.get(o.manifest) ?? []), o])
  for (const [manifest, objects] of byManifest) {
    const bad = objects.filter((o) => o.status !== 'Current')
    if (bad.length === 0) {
      const slowest = Math.max(0, ...objects.map((o) => o.currentAfterMs ?? 0))
      log.info(
        `healthy manifest=${manifest} objects=${objects.length} current after ${(slowest / 1000).toFixed(1)} s`
      )
      continue
    }
    // The cause in the same message, so that it stays in the manifest's log group.
    for (const o of bad) {
      const cause = [...(o.cause?.pods ?? []), ...(o.cause?.events ?? [])].map((l) => `\n  ${l}`)
      log.warn(
        `unhealthy object manifest=${manifest} resource=${o.ref.kind} ${o.ref.namespace ?? ''}/${o.ref.name} status=${o.status}: ${o.message}${cause.join('')}`
      )
    }
  }
  const seconds = (health.durationMs / 1000).toFixed(1)
  if (health.healthy) {
    log.info(`layer ${index} healthy in ${seconds} s (${health.objects.length} objects Current)`)
  } else {
    const bad = health.objects.filter((o) => o.status !== 'Current').length
    log.warn(
      `layer ${index} not healthy after ${seconds} s (${bad} of ${health.objects.length} objects not Current)`
    )
  }
}

function notRunLayers<M extends ManifestUnit>(
  layers: readonly (readonly M[])[],
  from: number
): LayerReport[] {
  return layers.slice(from).map((layer, i) => ({
    index: from + i,
    result: 'not-run',
    durationMs: 0,
    manifests: layer.map((m) => ({
      manifest: m.name,
      type: m.type,
      result: 'not-run',
      counts: zeroCounts(),
      durationMs: 0
    }))
  }))
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return results
}

function zeroCounts(): ManifestCounts {
  return { added: 0, modified: 0, alwaysSync: 0, pruned: 0, kept: 0, applied: 0 }
}

/** Whether the run was cancelled (read afresh: it changes while a manifest runs). */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

/** The signal's reason as the report names it: `SIGINT`, or `cancelled` without one. */
function reasonOf(signal: AbortSignal | undefined): string {
  return typeof signal?.reason === 'string' && signal.reason !== '' ? signal.reason : 'cancelled'
}

function emptyStored(): StoredState {
  return { state: emptyState() }
}
