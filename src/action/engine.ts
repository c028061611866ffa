/**
 * The Engine port on the real parts: config check (src/config), layers and tags (src/plan),
 * renderers (src/build), the kube session (src/adapters/kube-*) and the apply core
 * (src/apply). The cluster session opens lazily, so `check` — and a run that stops at it —
 * never sends a request to the API server.
 */
import { createExecRunner } from '../adapters/command-runner.js'
import { openKubeSession, type KubeSession } from '../adapters/kube-session.js'
import { contextGuardError, resolveContextGuard } from '../apply/context-guard.js'
import { runLayeredApply, type ApplyReport as CoreApplyReport } from '../apply/layered-apply.js'
import { computeManifestDiffs } from '../apply/manifest-diffs.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import { systemClock } from '../apply/ports.js'
import type { BuildContext } from '../build/context.js'
import { buildManifest } from '../build/manifest.js'
import { createSecretRegistry } from '../build/secrets.js'
import { checkConfig, type CheckResult } from '../config/check.js'
import type { Manifest } from '../config/schema.js'
import { ClusterError } from '../errors.js'
import { resolveLayers } from '../plan/layers.js'
import { selectedByTags } from '../plan/tags.js'
import type { ApplyOutcome, ManifestApply } from '../report/model.js'
import { renderDiffText } from '../state/text.js'
import { findGoTemplateFiles, goTemplateFilesFor } from '../template/engine-files.js'
import { createGoTemplateEngine } from '../template/wasm-engine.js'
import type { Engine, EngineLog } from './ports.js'

/** The run's Tazuna options (from the action inputs). */
export interface EngineSettings {
  config: string
  environment: string
  tags: readonly string[]
  sync: boolean
  prune: boolean
  atomic: boolean
}

/** What the engine takes from the process. */
export interface EngineEnvironment {
  /** A kubeconfig file to use instead of KUBECONFIG / ~/.kube/config / in-cluster. */
  kubeconfig?: string
  env: Readonly<Record<string, string | undefined>>
  /** Called with every secret value met (core.setSecret). */
  registerSecret: (value: string) => void
  /** Where the Go template engine files are (next to the bundle). */
  templateDir: string
  /** This action's version, for `minimumSupportedTazunaVersion`. */
  version: string
  /** Log lines outside an apply (Diff warnings, cluster target). */
  log: EngineLog
}

/** Creates the engine; nothing is read or contacted until a method is called. */
export function createEngine(settings: EngineSettings, environment: EngineEnvironment): Engine {
  const secrets = createSecretRegistry(environment.registerSecret)
  const templates = createGoTemplateEngine(() => locateGoTemplate(environment))
  let checked: CheckResult | undefined
  let session: KubeSession | undefined

  const loaded = (): Required<Pick<CheckResult, 'config'>> & CheckResult => {
    if (checked?.config === undefined || checked.problems.length > 0) {
      throw new Error('tazuna.yaml must pass check before it is diffed or applied')
    }
    return checked as Required<Pick<CheckResult, 'config'>> & CheckResult
  }
  const openSession = (): KubeSession => {
    if (session === undefined) {
      const env = { ...environment.env }
      if (environment.kubeconfig !== undefined) env.KUBECONFIG = environment.kubeconfig
      session = openKubeSession({ env })
      environment.log.info(`Cluster: ${session.describe}`)
    }
    return session
  }
  const build = buildDesired(
    settings,
    environment,
    secrets.registerSecret,
    templates,
    openSession,
    loaded
  )

  return {
    async check() {
      checked = await checkConfig({
        file: settings.config,
        environment: settings.environment,
        engine: templates,
        version: environment.version
      })
      if (checked.problems.length > 0) return { problems: checked.problems }
      return { problems: [], plan: planOf(checked.manifests) }
    },
    async diff() {
      const { manifests } = loaded()
      const diffs = await computeManifestDiffs(manifests, {
        store: openSession().store,
        build,
        log: environment.log
      })
      return diffs.map((d) => ({ manifest: d.manifest, type: d.type, entries: d.entries }))
    },
    diffText: (diffs) => renderDiffText(diffs),
    async apply({ gitCommitHash, log }) {
      const { config, manifests } = loaded()
      const kube = openSession()
      const guard = resolveContextGuard(config.config.spec, settings.environment)
      const refused = contextGuardError(guard, kube.context)
      if (refused !== undefined) throw new ClusterError(refused)
      const report = await runLayeredApply(
        resolveLayers(manifests),
        config.config.spec.tests,
        {
          sync: settings.sync,
          prune: settings.prune,
          atomic: settings.atomic,
          gitCommitHash,
          isSelected: (m) => selectedByTags(m.tags, settings.tags)
        },
        { cluster: kube.cluster, store: kube.store, clock: systemClock, log, build }
      )
      return outcomeOf(report)
    },
    redact: (text) => secrets.redact(text),
    close: () => session?.close()
  }
}

function buildDesired(
  settings: EngineSettings,
  environment: EngineEnvironment,
  registerSecret: (value: string) => void,
  templates: BuildContext['templates'],
  openSession: () => KubeSession,
  loaded: () => Required<Pick<CheckResult, 'config'>> & CheckResult
): (m: Manifest) => Promise<DesiredState> {
  let context: Promise<BuildContext> | undefined
  const contextFor = async (): Promise<BuildContext> => {
    const { config, manifests } = loaded()
    const env = environment.env
    const base: BuildContext = {
      runner: createExecRunner(),
      templates,
      configDir: config.dir,
      environment: settings.environment,
      providers: config.config.spec.providers,
      registerSecret,
      lookupEnv: (name) => env[name],
      tools: {
        ...(env.KUSTOMIZE_BIN ? { kustomize: env.KUSTOMIZE_BIN } : {}),
        ...(env.HELM_BIN ? { helm: env.HELM_BIN } : {})
      },
      ...(env.RUNNER_TEMP ? { tempDir: env.RUNNER_TEMP } : {})
    }
    // Helm sees the server's version and APIs, as Tazuna's build does with a REST config;
    // without Helm manifests no discovery request is made.
    if (!manifests.some((m) => m.type === 'helmfile' || m.type === 'oras')) return base
    return { ...base, capabilities: await openSession().discovery.capabilities() }
  }
  return async (m) => {
    context ??= contextFor()
    return buildManifest(m, await context)
  }
}

function planOf(manifests: readonly Manifest[]) {
  const layers = resolveLayers(manifests).map((layer) => layer.map((m) => m.name))
  return { layers, nodes: manifests.map((m) => ({ name: m.name, dependsOn: m.dependsOn })) }
}

/** The apply core's report as the action reports it. */
export function outcomeOf(report: CoreApplyReport): ApplyOutcome {
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
  if (report.ok) return { layers }
  const failed = report.layers.find((l) => l.result === 'failed')
  return {
    layers,
    failure: { message: report.error ?? 'apply failed', ...(failed ? { layer: failed.index } : {}) }
  }
}

function locateGoTemplate(environment: EngineEnvironment) {
  const override = environment.env.TAZUNA_GOTEMPLATE_WASM
  if (override) return goTemplateFilesFor(override)
  const files = findGoTemplateFiles([environment.templateDir])
  if (files === undefined) {
    throw new Error(`the Go template engine is missing from ${environment.templateDir}`)
  }
  return files
}
