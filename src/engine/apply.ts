/**
 * The apply step of the engine: the kube-context guard, then the layered apply with State sync,
 * reported in the report model both entry points print from.
 */
import type { DesiredState } from '../apply/manifest-unit.js'
import { contextGuardError, resolveContextGuard } from '../apply/context-guard.js'
import { staleCommitProblem, StaleCommitError } from '../apply/commit-guard.js'
import { acquireLock, lockNameFor } from '../apply/lease-lock.js'
import { runLayeredApply, type ApplyReport } from '../apply/layered-apply.js'
import { renderingAhead, rendersFromFilesOnly } from '../apply/render-ahead.js'
import type { Clock, StateStore, StoredState } from '../apply/ports.js'
import type { Manifest } from '../config/schema.js'
import { ClusterError } from '../errors.js'
import { resolveLayers } from '../plan/layers.js'
import { selectedByTags } from '../plan/tags.js'
import type { ApplyOutcome, ManifestApply } from '../report/model.js'
import type { ApplyRequest } from './requests.js'
import { passReviewGate } from './review-gate.js'
import type { ConfigRun } from './load.js'
import type { ClusterSession, EngineSettings } from './ports.js'

/** A killed holder blocks others this long at most. */
const DEFAULT_LOCK_TTL_SECONDS = 60

/**
 * Kustomize renders of an apply at a time, in layer order (src/apply/render-ahead.ts): as many
 * as the render module runs at once (at most 4 workers, one native process). More would share
 * the cores with renders of later layers, so that each layer's renders finished later
 * (docs/benchmarks.md#renders-in-layer-order).
 */
const RENDER_AHEAD = 4

/**
 * `build`, already rendering the selected manifests that may render before their layer
 * (src/apply/render-ahead.ts), in layer order; none when the layers do not resolve (the apply
 * reports that itself). The engine starts it before the cluster session opens.
 */
export function renderingAheadOf(
  run: ConfigRun,
  settings: EngineSettings,
  build: (m: Manifest) => Promise<DesiredState>
): (m: Manifest) => Promise<DesiredState> {
  return renderingAhead(manifestsAhead(run, settings), build, RENDER_AHEAD)
}

/** The selected manifests that may render before their layer, in layer order. */
export function manifestsAhead(run: ConfigRun, settings: EngineSettings): Manifest[] {
  try {
    return resolveLayers(run.manifests)
      .flat()
      .filter((m) => rendersFromFilesOnly(m) && selectedByTags(m.tags, settings.tags))
  } catch {
    return []
  }
}

/**
 * Applies a checked run; refuses (ClusterError) when the kube-context guard does. With a lock
 * request, the run lock is held from before the first State read until the last State write.
 */
export async function applyConfigRun(
  run: ConfigRun,
  request: ApplyRequest,
  deps: ApplyDeps
): Promise<ApplyOutcome> {
  const { settings, session } = deps
  const guard = resolveContextGuard(run.config.config.spec, settings.environment)
  const refused = contextGuardError(guard, session.context)
  if (refused !== undefined) throw new ClusterError(refused)
  const lock =
    request.lock === undefined
      ? undefined
      : await acquireLock(session.leases, deps.clock, request.log, {
          name: lockNameFor(
            run.manifests.map((m) => m.name),
            settings.environment
          ),
          ttlSeconds: DEFAULT_LOCK_TTL_SECONDS,
          ...request.lock
        })
  // A process told to stop at once still releases the lock first (src/engine/cancellation.ts).
  const unregister = lock && deps.beforeExit?.(() => lock.release())
  try {
    const store = tellingFirstRead(readingOnceUntilSaved(session.store), deps.stateRead)
    const once = { ...deps, session: { ...session, store } }
    await guardAgainstOlderCommit(run, request, once)
    const gated =
      request.reviewGate === undefined ? once : await passReviewGate(run, request.reviewGate, once)
    return outcomeOf(await layeredApply(run, request, gated))
  } finally {
    deps.stateRead?.reject(new Error('the apply ended before it read State'))
    await lock?.release()
    unregister?.()
  }
}

/** A value another step produces: its promise, and how that step settles it. */
export interface Deferred<T> {
  promise: Promise<T>
  resolve(value: T): void
  reject(error: unknown): void
}

/** A Deferred whose promise never counts as unhandled. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  promise.catch(() => undefined)
  return { promise, resolve, reject }
}

/** The store, telling `first` (if any) what its first readMany read: the run's State. */
function tellingFirstRead(
  store: StateStore,
  first: Deferred<Map<string, StoredState>> | undefined
): StateStore {
  if (first === undefined) return store
  let told = false
  return {
    read: (manifest) => store.read(manifest),
    save: (manifest, state, options) => store.save(manifest, state, options),
    ...recordSaver(store),
    readMany(manifests) {
      const read = store.readMany(manifests)
      if (!told) {
        told = true
        read.then(
          (stored) => first.resolve(stored),
          (error: unknown) => first.reject(error)
        )
      }
      return read
    }
  }
}

/**
 * Refuses (StaleCommitError) when a selected manifest's State records a commit the applied one
 * does not descend from; with allowOlderCommit, warns instead. Read under the lock, so no other
 * run can record a newer commit between this check and the apply.
 */
async function guardAgainstOlderCommit(
  run: ConfigRun,
  request: ApplyRequest,
  deps: ApplyDeps
): Promise<void> {
  const guard = request.commitGuard
  if (guard === undefined || request.gitCommitHash === '') return
  const names = run.manifests
    .filter((m) => m.name !== '' && selectedByTags(m.tags, deps.settings.tags))
    .map((m) => m.name)
  const stored = await deps.session.store.readMany(names)
  const recorded = new Map(
    [...stored].map(([manifest, s]) => [manifest, s.state.metadata.gitCommitHash])
  )
  const problem = await staleCommitProblem(
    { current: request.gitCommitHash, recorded },
    guard.ancestry
  )
  if (problem === undefined) return
  if (!guard.allowOlderCommit) throw new StaleCommitError(problem)
  request.log.warn(`allow-older-commit is set, applying anyway: ${problem}`)
}

/**
 * The store, whose readMany answers later readMany calls of the same manifests from the same
 * list request until this run saves: the commit guard, the review gate and the layered apply
 * all read the selected manifests' State, under the lock and before this run's first save, so
 * another request would read the same (and a save still checks the resourceVersion it read).
 */
function readingOnceUntilSaved(store: StateStore): StateStore {
  let last: { names: string; read: Promise<Map<string, StoredState>> } | undefined
  return {
    read: (manifest) => store.read(manifest),
    save: (manifest, state, options) => {
      last = undefined
      return store.save(manifest, state, options)
    },
    ...recordSaver(store),
    readMany(manifests) {
      const names = [...manifests].sort().join('\n')
      if (last?.names === names) return last.read
      const read = store.readMany(manifests)
      last = { names, read }
      return read
    }
  }
}

/** The store's saveRecord, bound, when it has one. */
function recordSaver(store: StateStore): Pick<StateStore, 'saveRecord'> {
  if (store.saveRecord === undefined) return {}
  return { saveRecord: (manifest, record, base) => store.saveRecord!(manifest, record, base) }
}

/** What an apply needs besides the run and the request. */
export interface ApplyDeps {
  settings: EngineSettings
  session: ClusterSession
  clock: Clock
  build: (m: Manifest) => Promise<DesiredState>
  /** Told the State the run reads under its lock (render records wait for it). */
  stateRead?: Deferred<Map<string, StoredState>>
  /** EnginePorts.beforeExit: the lock's release, if the process must stop at once. */
  beforeExit?: (task: () => Promise<void>) => () => void
  /** EnginePorts.signal: a cancelled run starts no more manifests and says so in its report. */
  signal?: AbortSignal
}

function layeredApply(
  run: ConfigRun,
  request: ApplyRequest,
  deps: ApplyDeps
): Promise<ApplyReport> {
  const { settings, session } = deps
  return runLayeredApply(
    resolveLayers(run.manifests),
    run.config.config.spec.tests,
    {
      sync: request.sync,
      prune: request.prune,
      atomic: request.atomic,
      gitCommitHash: request.gitCommitHash,
      ...(request.wait === undefined ? {} : { wait: request.wait }),
      isSelected: (m) => selectedByTags(m.tags, settings.tags),
      ...(deps.signal ? { signal: deps.signal } : {})
    },
    {
      cluster: session.cluster,
      store: session.store,
      clock: deps.clock,
      log: request.log,
      build: deps.build,
      ...(session.watcher === undefined ? {} : { watcher: session.watcher })
    }
  )
}

/** The apply core's report in the report model. */
export function outcomeOf(report: ApplyReport): ApplyOutcome {
  const layers = report.layers.map((layer) =>
    layer.manifests.map((m): ManifestApply => ({
      manifest: m.manifest,
      result: m.result,
      counts: {
        added: m.counts.added,
        modified: m.counts.modified,
        removed: m.counts.pruned + m.counts.kept,
        alwaysSync: m.counts.alwaysSync,
        pruned: m.counts.pruned
      },
      durationMs: m.durationMs,
      ...(m.error === undefined ? {} : { error: m.error })
    }))
  )
  const health =
    report.waited === true ? { health: report.layers.map((l) => l.health ?? null) } : {}
  if (report.ok) return { layers, ...health }
  const failed = report.layers.find((l) => l.result === 'failed' || l.result === 'cancelled')
  const layer = report.cancelled ? report.cancelled.layer : failed?.index
  return {
    layers,
    ...health,
    failure: {
      message: report.error ?? 'apply failed',
      ...(layer === undefined ? {} : { layer })
    },
    ...(report.cancelled ? { cancelled: report.cancelled } : {})
  }
}
