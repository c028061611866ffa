/**
 * The one Tazuna engine under both entry points (docs/ARCHITECTURE.md). Modes are steps over
 * values: a load step returns a {@link ConfigRun}, and render, diff, list and apply take it —
 * no step depends on another having run before. The cluster session opens on first use, so
 * loading and checking never send a request to the API server.
 */
import type { RenderModule, RendererVersions } from '../render/ports.js'
import { earlyKustomize } from '../render/kustomize/early.js'
import { kustomizeDirOf } from '../render/manifest.js'
import type { PreparedHelmfile } from '../render/context.js'
import type { Manifest } from '../config/schema.js'
import { createSecretRegistry } from '../render/secrets.js'
import { applyConfigRun, deferred, manifestsAhead, renderingAheadOf } from './apply.js'
import { cancellablePorts } from './cancellation.js'
import { destroyConfigRun, type DestroyOutcome, type DestroyRequest } from './destroy.js'
import { readLiveManifests } from './live.js'
import { driftReportOf } from './drift-report.js'
import type { ManifestDriftReport } from '../report/drift-model.js'
import {
  checkedRun,
  expandedRun,
  runForApply,
  runForBuild,
  runForPlan,
  type CheckOutcome,
  type ConfigRun
} from './load.js'
import { manifestRenderer, recordCheck, renderBuildText } from './render.js'
import { reviewApis, type ApiReview } from './api-review.js'
import { planManifests, type ManifestPlan } from './plan.js'
import { contextGuardError, resolveContextGuard } from '../apply/context-guard.js'
import { ClusterError } from '../errors.js'
import { assertObjectSizes } from '../objects/size-limits.js'
import type { ClusterSession, EnginePorts, EngineSettings } from './ports.js'
import { computeManifestDiffs } from '../apply/manifest-diffs.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import type { RenderedObjects } from '../report/content-diff.js'
import { liveObjectsOf, memoizedRenderer, renderObjectsOf, type LiveObjects } from './content.js'
import type { ApplyOutcome, ManifestDiff } from '../report/model.js'
import type { State } from '../state/state.js'
import type { StoredState } from '../apply/ports.js'
import { skippingUnchanged } from '../apply/render-skip.js'
import { driftOf, statusOf, type ManifestDrift, type ManifestStatus } from '../state/drift.js'
import { listCharts, type ChartListItem } from './chart-list.js'
import type { ListSelector, WatchTarget } from '../health/ports.js'
import type { JsonObject } from '../go/json-value.js'

export type { CheckOutcome, ConfigRun } from './load.js'
export type { ApplyRequest, ApplySwitches, LockRequest } from './requests.js'
import type { ApplyRequest, ApplySwitches } from './requests.js'
export type { DestroyOutcome, DestroyRequest } from './destroy.js'
export type { ManifestPlan, PlanChange } from './plan.js'
export type { ChartListItem } from './chart-list.js'

/**
 * How long a sync with records waits for its State read before kustomize renders start anyway
 * (src/render/kustomize/early.ts): longer than a cluster on the same machine answers the lock
 * and the list (about 20 ms on the test cluster), so a no-change sync there starts none, and
 * well within the handshake and the two round trips a distant one takes (about 150 ms at a
 * 30 ms round trip). One render at a time: with more, a no-change sync across the network
 * lost the core its own checks and the server need (docs/benchmarks.md#renders-started-early).
 */
const EARLY_RENDER_WAIT_MS = 40
const EARLY_RENDERS_AT_ONCE = 1

/** A manifest's recorded State, as `state list` shows it. */
export interface ListedState {
  manifest: string
  state: State
}

/** Tazuna's engine over one configuration, environment and cluster. */
export interface Engine {
  /** `tazuna check`: every problem at once; the run and its plan when there are none. */
  check(): Promise<CheckOutcome>
  /** Load and expand includes only, as `state diff` and `state list` do; throws ConfigError. */
  loadExpanded(): Promise<ConfigRun>
  /** Load and validate as `build` does (names only warn); throws ConfigError. */
  loadForBuild(): Promise<ConfigRun>
  /** Validate as `plan` does: the document before includes are expanded; throws ConfigError. */
  loadForPlan(): Promise<ConfigRun>
  /** Check as `apply` does (names strict with `sync` or any dependsOn); throws ConfigError. */
  loadForApply(switches: Pick<ApplySwitches, 'sync'>): Promise<ConfigRun>
  /** `tazuna build`'s text: every selected manifest's raw render, in declaration order. */
  renderBuild(run: ConfigRun): Promise<string>
  /**
   * Every named manifest's Diff against its recorded State (read-only). A render failure
   * throws, as Tazuna's `state diff` fails; with `keepFailures` (the pull request's Diff) it is
   * the failed manifest's `error` instead.
   */
  diff(run: ConfigRun, options?: { keepFailures?: boolean }): Promise<ManifestDiff[]>
  /**
   * Every named manifest's rendered objects by state key (only those in `only`, when given), for
   * content diffs. Shares the renders of `diff(run)`: each manifest of a run renders once for
   * both.
   */
  renderObjects(run: ConfigRun, only?: ReadonlySet<string>): Promise<RenderedObjects>
  /**
   * Live mode of content diffs: for each entry of `diffs`, the live object and the server's
   * dry-run apply of the head object (`dryRun=All`; needs `patch` RBAC, writes nothing).
   */
  liveObjects(run: ConfigRun, diffs: readonly ManifestDiff[]): Promise<LiveObjects>
  /**
   * `plan`: after the kube-context guard, every rendered object of every named non-genesissecret
   * manifest against the cluster (GET and dry-run apply only; throws ClusterError on refusal).
   * Secret values show as fingerprints under `fingerprintKey`, the run's random key.
   */
  plan(run: ConfigRun, fingerprintKey: Uint8Array): Promise<ManifestPlan[]>
  /** Every named manifest's recorded State (read-only); manifests without State are left out. */
  listState(run: ConfigRun): Promise<ListedState[]>
  /** Layered apply with State sync, after the kube-context guard. */
  apply(run: ConfigRun, request: ApplyRequest): Promise<ApplyOutcome>
  /**
   * `state drift`: live objects re-hashed against State, for named non-genesissecret manifests
   * with State (read-only); every such manifest is listed, with or without entries.
   */
  drift(run: ConfigRun): Promise<ManifestDrift[]>
  /** `status`: readiness of every recorded object of every named manifest (read-only). */
  status(run: ConfigRun): Promise<ManifestStatus[]>
  /**
   * The action's drift step: every named manifest's recorded objects read live once, with
   * Tazuna's drift and status classification and the head render's fields compared (read-only).
   */
  driftReport(run: ConfigRun): Promise<ManifestDriftReport[]>
  /** `destroy`: context guard, confirmation, then deletes the selected manifests' objects. */
  destroy(run: ConfigRun, request: DestroyRequest): Promise<DestroyOutcome>
  /**
   * `chart list`: every release of every helmfile manifest with its chart, helmfile and
   * version; with `checkLatest`, the newest version its repository or registry offers (no
   * cluster request; docs/compatibility.md#chart-list).
   */
  chartList(run: ConfigRun, options: { checkLatest: boolean }): Promise<ChartListItem[]>
  /**
   * The objects of one kind (in one namespace, or all without `namespace`) matching `selector`,
   * read from the cluster (`secret-to-genesissecret`); nothing is registered as a secret here.
   */
  listObjects(target: WatchTarget, selector?: ListSelector): Promise<JsonObject[]>
  /** Replaces every secret value met so far in `text`. */
  redact(text: string): string
  /** What rendered this run's kustomize and helmfile manifests; undefined while none rendered. */
  renderers(): RendererVersions | undefined
  /**
   * Starts opening the cluster session (loading the cluster client, reading the kubeconfig,
   * connecting) while the caller does other work, such as `git rev-parse` or the review gate's
   * lookup; sends no request. Only for a run whose configuration is checked: one that stops at
   * a config problem opens no connection. A failure is reported by the call that uses the
   * session (docs/ARCHITECTURE.md#connecting-ahead).
   */
  connect(): void
  /** Releases the cluster session, if one was opened. */
  close(): void
  /**
   * What the review's API checks of the Diff's added and modified entries need
   * (docs/risks.md#apis-the-cluster-does-not-serve); never rejects: a refused read is a notice.
   */
  reviewApis(run: ConfigRun, diffs: readonly ManifestDiff[]): Promise<ApiReview>
  /** Readies, where that costs this thread nothing, what reviewApis will run the schema check in. */
  prepareReview(): void
}

/** Creates the engine; nothing is read or contacted until a method is called. */
export function createEngine(settings: EngineSettings, given: EnginePorts): Engine {
  const ports = given.signal ? cancellablePorts(given, given.signal) : given
  const secrets = createSecretRegistry(ports.registerSecret)
  const scoped: EnginePorts = { ...ports, registerSecret: secrets.registerSecret }
  let session: Promise<ClusterSession> | undefined
  const openSession = (): Promise<ClusterSession> => (session ??= ports.openSession())
  // Loading the cluster client holds this thread for 0.1–0.2 s: a diff or an apply that has
  // renders starting lets them reach their program first, which renders meanwhile
  // (docs/ARCHITECTURE.md#rendering-ahead).
  const sessionBesideRenders = async (): Promise<ClusterSession> => {
    if (session === undefined) await ports.renderer.underway?.()
    return openSession()
  }
  // Diff, apply and plan refuse a namespaced object left without a namespace; drift and destroy
  // only read and delete what Tazuna's keys name (docs/compatibility.md#objects-without-a-namespace).
  // What a run's record checks resolved for the helmfiles that render after all (recordCheck).
  const preparedByRun = new WeakMap<ConfigRun, Map<string, PreparedHelmfile>>()
  const preparedOf = (run: ConfigRun): Map<string, PreparedHelmfile> => {
    let prepared = preparedByRun.get(run)
    if (prepared === undefined)
      preparedByRun.set(run, (prepared = new Map<string, PreparedHelmfile>()))
    return prepared
  }
  const renderer = (run: ConfigRun, module: RenderModule = scoped.renderer) =>
    manifestRenderer(run, settings, { ...scoped, renderer: module }, openSession, {
      checkNamespaces: true,
      prepared: preparedOf(run)
    })
  const uncheckedRenderer = (run: ConfigRun) => manifestRenderer(run, settings, scoped, openSession)
  // Plain apply and destroy render oras manifests with their delegate's default namespace, as
  // Tazuna's delegate managers do (docs/compatibility.md#oras-default-namespace).
  const delegateRenderer = (run: ConfigRun, checkNamespaces: boolean) =>
    manifestRenderer(run, settings, scoped, openSession, {
      orasNamespace: 'delegate',
      checkNamespaces
    })
  // Diff and apply refuse an object the API server would refuse for its size: in the pull
  // request's diff, before the merge, and in apply before anything of its manifest is sent.
  // Destroy and drift only read keys and live objects, so they are not blocked by it.
  const sizeChecked = (run: ConfigRun, module?: RenderModule) =>
    withObjectSizeLimit(renderer(run, module))
  const liveDeps = async () => {
    const { store, cluster } = await openSession()
    return { store, cluster, log: ports.log }
  }
  /** Starts the renderers the run's manifests need, before anything waits for the cluster. */
  const prepare = (run: ConfigRun): void =>
    ports.renderer.prepare?.(run.manifests.map((m) => m.type))
  /**
   * Unpacks, without starting, the programs a run with render records may need, where that
   * costs this thread nothing: a render a record does not cover then waits for the program's
   * start alone, and a run that renders nothing spent another core's time.
   */
  const unpackAhead = (run: ConfigRun): void =>
    ports.renderer.unpackAhead?.(run.manifests.map((m) => m.type))
  // A run loaded for build or apply renders next (after `git rev-parse`, the session, the lock).
  const prepared = (run: ConfigRun): ConfigRun => {
    prepare(run)
    return run
  }
  /**
   * How the run's kustomize and helmfile manifests are checked against their render records;
   * undefined when every manifest renders (no records in this process, or input
   * skip-unchanged-renders off).
   */
  const skipCheck = (run: ConfigRun) => {
    const { records } = ports
    if (records === undefined || settings.renderAll === true) return undefined
    return recordCheck(run, settings, scoped, openSession, records, preparedOf(run))
  }
  /**
   * The sync's renders with records: a manifest whose record holds is not rendered, and the
   * kustomize renders of the layers ahead start while the State read is awaited, once it has
   * been awaited EARLY_RENDER_WAIT_MS (src/render/kustomize/early.ts).
   */
  const skippingEarly = (
    run: ConfigRun,
    stored: Promise<Map<string, StoredState>>,
    skip: NonNullable<ReturnType<typeof skipCheck>>
  ) => {
    const early = earlyKustomize(scoped.renderer, {
      read: stored,
      sleep: (ms) => ports.clock.sleep(ms),
      waitMs: settings.earlyRenderWaitMs ?? EARLY_RENDER_WAIT_MS,
      dirs: manifestsAhead(run, settings)
        .filter((m) => m.type === 'kustomize')
        .map((m) => kustomizeDirOf(run.config.dir, m.path)),
      limit: EARLY_RENDERS_AT_ONCE
    })
    const build = skippingUnchanged(sizeChecked(run, early.module), stored, skip)
    return { build, untaken: () => early.untaken() }
  }
  const diffRenders = new WeakMap<ConfigRun, (m: Manifest) => Promise<DesiredState>>()
  const sharedRenderer = (run: ConfigRun) => {
    let render = diffRenders.get(run)
    if (render === undefined) diffRenders.set(run, (render = memoizedRenderer(sizeChecked(run))))
    return render
  }

  return {
    check: () => checkedRun(settings, ports),
    loadExpanded: () => expandedRun(settings, ports),
    loadForBuild: () => runForBuild(settings, ports, ports.log).then(prepared),
    loadForPlan: () => runForPlan(settings, ports),
    // A sync with records starts a native program only when a record does not hold (see apply).
    loadForApply: ({ sync }) =>
      runForApply(settings, ports, ports.log, sync).then((run) =>
        sync && skipCheck(run) !== undefined ? run : prepared(run)
      ),
    renderBuild(run) {
      prepare(run)
      return renderBuildText(run, settings, scoped, openSession)
    },
    diff(run, options = {}) {
      const keepFailures = options.keepFailures === true
      const skip = skipCheck(run)
      if (skip === undefined) {
        prepare(run)
        return computeManifestDiffs(run.manifests, {
          // The renders need no session: they start while it opens and State is read.
          store: {
            readMany: async (names) => (await sessionBesideRenders()).store.readMany(names)
          },
          build: sharedRenderer(run),
          log: ports.log,
          keepFailures
        })
      }
      // With render records, State is read first: a manifest renders only when its record does
      // not show it unchanged (docs/renderers.md#skipping-unchanged-renders). The Diff reads the
      // same names (the named manifests); a failed read is reported by it.
      // Nor is the native program started before a render needs it: for a Diff with nothing to
      // render that start was the largest cost left (1.17x wall, paired; docs/benchmarks.md).
      unpackAhead(run)
      const names = run.manifests.filter((m) => m.name !== '').map((m) => m.name)
      const stored = openSession().then((session) => session.store.readMany(names))
      stored.catch(() => undefined)
      skip.start()
      return computeManifestDiffs(run.manifests, {
        store: { readMany: () => stored },
        build: skippingUnchanged(sharedRenderer(run), stored, skip),
        log: ports.log,
        keepFailures
      })
    },
    renderObjects: (run, only) =>
      renderObjectsOf(
        only === undefined ? run.manifests : run.manifests.filter((m) => only.has(m.name)),
        sharedRenderer(run)
      ),
    async liveObjects(run, diffs) {
      const head = await renderObjectsOf(run.manifests, sharedRenderer(run))
      return liveObjectsOf(diffs, head, (await openSession()).cluster)
    },
    async plan(run, fingerprintKey) {
      const session = await openSession()
      const guard = resolveContextGuard(run.config.config.spec, settings.environment)
      const refused =
        guard.patterns.length > 0 ? contextGuardError(guard, session.context) : undefined
      if (refused !== undefined) throw new ClusterError(refused)
      const apis = session.apis
      const check = ports.renderer.checkSchema?.bind(ports.renderer)
      return planManifests(run.manifests, {
        build: renderer(run),
        cluster: session.cluster,
        log: ports.log,
        fingerprintKey,
        ...(apis && {
          review: (diff, rendered) =>
            reviewApis(apis, [diff], rendered, check).catch((error: unknown) => ({
              notices: [
                `The API checks were skipped (${error instanceof Error ? error.message : String(error)}).`
              ]
            }))
        })
      })
    },
    async listState(run) {
      const names = namedManifests(run.manifests, ports.log)
      const stored = await (await openSession()).store.readMany(names)
      return names.flatMap((manifest) => {
        const s = stored.get(manifest)
        return s === undefined ? [] : [{ manifest, state: s.state }]
      })
    },
    async apply(run, request) {
      const skip = request.sync ? skipCheck(run) : undefined
      // With render records, a kustomize or helmfile manifest renders once the State read under the lock
      // shows its record does not hold (docs/renderers.md#skipping-unchanged-renders).
      const stateRead = skip && deferred<Map<string, StoredState>>()
      // Without records the native programs start at once. With them, only when a record does
      // not hold: unpacking a program costs this thread more than the State read's wait it could
      // fill, which a no-change sync would spend for nothing (docs/benchmarks.md#program-on-demand).
      if (stateRead === undefined) prepare(run)
      else unpackAhead(run)
      const early = skip && stateRead ? skippingEarly(run, stateRead.promise, skip) : undefined
      const render = !request.sync
        ? withObjectSizeLimit(delegateRenderer(run, true))
        : (early?.build ?? sizeChecked(run))
      // Renders that read only files start now, while the session opens and the lock is taken.
      const build = renderingAheadOf(run, settings, render)
      // With records no render waits to go out first: the session opens at once, and what the
      // record checks ask the server goes out beside the lock and the State read.
      const session = await (stateRead ? openSession() : sessionBesideRenders())
      skip?.start()
      try {
        return await applyConfigRun(run, request, {
          settings,
          session,
          clock: ports.clock,
          build,
          ...(stateRead ? { stateRead } : {}),
          ...(ports.beforeExit ? { beforeExit: ports.beforeExit } : {}),
          ...(ports.signal ? { signal: ports.signal } : {})
        })
      } finally {
        // A render started early for a manifest whose record held is not waited for.
        if ((early?.untaken() ?? 0) > 0) scoped.renderer.letGo?.()
      }
    },
    async drift(run) {
      const manifests = run.manifests.filter((m) => m.type !== 'genesissecret')
      const live = await readLiveManifests(manifests, await liveDeps())
      return driftOf(live.filter((m) => m.hasState))
    },
    async status(run) {
      return statusOf(await readLiveManifests(run.manifests, await liveDeps()))
    },
    async driftReport(run) {
      const live = await readLiveManifests(run.manifests, await liveDeps())
      return driftReportOf(run.manifests, live, uncheckedRenderer(run))
    },
    destroy: (run, request) =>
      destroyConfigRun(run, request, {
        settings,
        session: openSession,
        build: delegateRenderer(run, false)
      }),
    prepareReview: () => ports.renderer.unpackCheckAhead?.(),
    async reviewApis(run, diffs) {
      try {
        const session = await openSession()
        if (session.apis === undefined) return {}
        if (diffs.some((d) => d.entries.some((e) => e.type === 'added' || e.type === 'modified')))
          ports.renderer.prepareCheck?.()
        // The heads the Diff rendered (memoized), for the CRDs and APIServices among them.
        const changed = run.manifests.filter((m) =>
          diffs.some((d) => d.manifest === m.name && d.entries.length > 0)
        )
        const heads = new Map(
          (
            await Promise.all(
              changed.map((m) => renderObjectsOf([m], sharedRenderer(run)).catch(() => new Map()))
            )
          ).flatMap((r) => [...r])
        )
        const check = ports.renderer.checkSchema?.bind(ports.renderer)
        return await reviewApis(session.apis, diffs, heads, check)
      } catch (error) {
        return {
          notices: [
            `The API checks were skipped (${error instanceof Error ? error.message : String(error)}).`
          ]
        }
      }
    },
    chartList: (run, { checkLatest }) =>
      listCharts(run, settings, scoped, { checkLatest, redact: (t) => secrets.redact(t) }),
    async listObjects(target, selector) {
      const { watcher } = await openSession()
      if (watcher === undefined) throw new ClusterError('this cluster session cannot list objects')
      return watcher.list(target, selector)
    },
    redact: (text) => secrets.redact(text),
    renderers: () => ports.renderer.loaded(),
    connect: () =>
      void openSession()
        .then((s) => s.connect?.())
        .catch(() => undefined),
    // A session that failed to open has nothing to close (its error went to the caller).
    close: () => void session?.then((s) => s.close()).catch(() => undefined)
  }
}

/**
 * `build` followed by the object size limit (docs/reliability.md#size-limits): a manifest with an
 * object over it fails its build, so nothing of it is applied or recorded.
 */
function withObjectSizeLimit(
  build: (m: Manifest) => Promise<DesiredState>
): (m: Manifest) => Promise<DesiredState> {
  return async (m) => {
    const desired = await build(m)
    assertObjectSizes(desired.objects)
    return desired
  }
}

/** Manifest names in declaration order; an unnamed manifest is skipped with Tazuna's warning. */
function namedManifests(manifests: readonly Manifest[], log: EnginePorts['log']): string[] {
  return manifests.flatMap((m) => {
    if (m.name === '') log.warn(`manifest has no name, skipping (type ${m.type})`)
    return m.name === '' ? [] : [m.name]
  })
}
