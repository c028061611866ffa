/**
 * Rendering inside the engine: one render context per run (tools, files, providers, the
 * secret sink) and one policy for Helm capabilities — discovered from the server once, and only
 * when a helmfile manifest without its own `kubeVersion` renders
 * (docs/compatibility.md#helm-capabilities).
 */
import path from 'node:path'
import type { Manifest } from '../config/schema.js'
import { mapConcurrently } from '../apply/layered-apply.js'
import { buildFailure } from '../apply/sync-manifest.js'
import { NoKubeconfigError } from '../errors.js'
import { DEFAULT_KUBE_VERSION } from '../render/helmfile/helm-release.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import { selectedByTags } from '../plan/tags.js'
import type {
  BuildContext,
  BuildManifestSpec,
  HelmCapabilities,
  PreparedHelmfile
} from '../render/context.js'
import {
  buildManifest,
  defaultNamespaceOf,
  helmfileRequests,
  missingNamespaceWarnings,
  renderManifestText
} from '../render/manifest.js'
import type { RenderRecord } from '../state/render-record.js'
import type { ConfigRun } from './load.js'
import type { ClusterSession, EnginePorts, EngineSettings, RenderRecords } from './ports.js'

/** Manifests `build` renders at the same time, as diff and apply do. */
const BUILD_CONCURRENCY = 4

/** The render context of a run, without capabilities. */
export function renderContext(
  run: ConfigRun,
  settings: EngineSettings,
  ports: EnginePorts
): BuildContext {
  const { env } = ports
  return {
    runner: ports.runner,
    renderer: ports.renderer,
    http: ports.http,
    templates: ports.templates,
    configDir: run.config.dir,
    environment: settings.environment,
    providers: run.config.config.spec.providers,
    registerSecret: ports.registerSecret,
    lookupEnv: (name) => env[name],
    files: ports.files,
    ...(ports.oras
      ? {
          oras: {
            ...ports.oras,
            mode: settings.orasPull ?? { offline: false, noCache: false },
            warn: (message: string) => ports.log.warn(message)
          }
        }
      : {})
  }
}

/** How a run's renderer converts: the oras quirk, and whether namespaces are checked. */
export interface RendererOptions {
  /** `delegate` for plain apply and destroy (docs/compatibility.md#oras-default-namespace). */
  orasNamespace?: 'none' | 'delegate'
  /**
   * Diff, apply and plan: a namespaced object without a namespace fails its manifest, its kind's
   * scope asked of the server when it is neither built in nor defined in the manifest
   * (docs/compatibility.md#objects-without-a-namespace).
   */
  checkNamespaces?: boolean
  /** The run's helmfile requests a record check resolved (BuildContext.preparedHelmfile). */
  prepared?: ReadonlyMap<string, PreparedHelmfile>
}

/** Renders a run's manifests to objects and State entries, for diff and apply. */
export function manifestRenderer(
  run: ConfigRun,
  settings: EngineSettings,
  ports: EnginePorts,
  openSession: () => Promise<ClusterSession>,
  options: RendererOptions = {}
): (m: Manifest) => Promise<DesiredState> {
  const { prepared } = options
  const base: BuildContext = {
    ...renderContext(run, settings, ports),
    ...(prepared ? { preparedHelmfile: (m: BuildManifestSpec) => prepared.get(m.name) } : {}),
    orasNamespace: options.orasNamespace ?? 'none',
    ...(options.checkNamespaces === true
      ? {
          namespaceCheck: {
            lookup: async (apiVersion: string, kind: string) =>
              (await openSession()).discovery.namespaced(apiVersion, kind)
          }
        }
      : {})
  }
  const capabilitiesFor = capabilityPolicy(() =>
    openSession().then((s) => s.discovery.capabilities())
  )
  const { records } = ports
  return async (m) => {
    const { rendered, ...built } = await buildManifest(m, {
      ...base,
      ...(await capabilitiesFor(m))
    })
    if (records === undefined || rendered === undefined) return built
    // Made only when a sync saves (it reads the files once more), at most once.
    let record: ReturnType<RenderRecords['recordOf']> | undefined
    const root = path.resolve(run.config.dir)
    const settingsOf = recordedSettings(m, root)
    return {
      ...built,
      record: () => (record ??= records.recordOf(rendered, root, settingsOf, built.entries))
    }
  }
}

/**
 * What of a kustomize or helmfile manifest's entry in tazuna.yaml its render and State entries
 * depend on, for its render record: the name (in every key), the directory relative to
 * tazuna.yaml's, and the default namespace (docs/renderers.md#skipping-unchanged-renders). A
 * helmfile's other settings reach its render through the requests its record's key also covers.
 */
export function recordedSettings(m: Manifest, root: string): string {
  const dir = path.relative(root, path.resolve(root, m.path)).split(path.sep).join('/')
  return JSON.stringify([m.name, m.type, dir, defaultNamespaceOf(m)])
}

/** How a run's manifests are checked against their render records (see recordCheck). */
export interface RecordCheck {
  candidate: (m: Manifest) => boolean
  holds: (m: Manifest, record: RenderRecord) => Promise<boolean>
  /** Starts asking the server what the checks will need (Helm's capabilities), once. */
  start: () => void
}

/**
 * Render records checked for a run (docs/renderers.md#skipping-unchanged-renders): a kustomize
 * record by its reads; a helmfile's also by the requests its render would make now — vars, the
 * helmfile's template, values, charts and capabilities resolved as for a render, without
 * rendering (docs/renderers.md#helm-records).
 */
export function recordCheck(
  run: ConfigRun,
  settings: EngineSettings,
  ports: EnginePorts,
  openSession: () => Promise<ClusterSession>,
  records: RenderRecords,
  prepared?: Map<string, PreparedHelmfile>
): RecordCheck {
  const root = path.resolve(run.config.dir)
  const context = renderContext(run, settings, ports)
  const capabilitiesFor = capabilityPolicy(() =>
    openSession().then((s) => s.discovery.capabilities())
  )
  return {
    candidate: (m) => m.type === 'kustomize' || m.type === 'helmfile',
    async holds(m, record) {
      const settingsOf = recordedSettings(m, root)
      if (m.type !== 'helmfile') return records.holds(record, root, settingsOf)
      const resolved = await helmfileRequests(m, { ...context, ...(await capabilitiesFor(m)) })
      const holds = await records.holds(record, root, settingsOf, resolved.requests)
      // Its render then makes these requests rather than resolve them again (vars from op too).
      if (!holds) prepared?.set(m.name, resolved)
      return holds
    },
    // Discovery goes out beside the State read (one session, multiplexed): the check of a
    // helmfile record then waits for no round trip of its own.
    start() {
      for (const m of run.manifests) {
        if (m.type === 'helmfile') capabilitiesFor(m).catch(() => undefined)
      }
    }
  }
}

/**
 * Helm capabilities for a manifest: discovered once per run, and only for a helmfile manifest
 * (or an oras manifest with a helmfile delegate) without its own `kubeVersion`; `discover`
 * resolving undefined means Helm's defaults.
 */
function capabilityPolicy(
  discover: () => Promise<HelmCapabilities | undefined>
): (m: Manifest) => Promise<{ capabilities?: HelmCapabilities }> {
  let capabilities: Promise<HelmCapabilities | undefined> | undefined
  return async (m) => {
    const helmfile: { kubeVersion?: string } | undefined =
      m.type === 'helmfile'
        ? (m.helmfile ?? {})
        : m.type === 'oras' && m.oras?.delegate.type === 'helmfile'
          ? (m.oras.delegate.helmfile ?? {})
          : undefined
    const needed = helmfile !== undefined && !helmfile.kubeVersion
    if (!needed) return {}
    const found = await (capabilities ??= discover())
    return found === undefined ? {} : { capabilities: found }
  }
}

/**
 * `tazuna build`'s output: every selected manifest's raw render in declaration order, joined
 * with `\n---\n` and ending in a newline (docs/compatibility.md#build-output). Helm sees the
 * server's capabilities, as in Tazuna's build; without any kubeconfig, Helm's defaults and a
 * warning (docs/compatibility.md#build-without-a-cluster).
 */
export async function renderBuildText(
  run: ConfigRun,
  settings: EngineSettings,
  ports: EnginePorts,
  openSession: () => Promise<ClusterSession>
): Promise<string> {
  const context = renderContext(run, settings, ports)
  const capabilitiesFor = capabilityPolicy(async () => {
    try {
      return await (await openSession()).discovery.capabilities()
    } catch (error) {
      if (!(error instanceof NoKubeconfigError)) throw error
      ports.log.warn(
        `${error.message.split('. ')[0]}: Helm renders with its default capabilities ` +
          `(Kubernetes ${DEFAULT_KUBE_VERSION}), where Tazuna's build would fail`
      )
      return undefined
    }
  })
  // The same kinds asked of the server as in a diff, when one answers: the warnings must not
  // make build fail where it did not before (no kubeconfig, an unreachable server).
  const lookup = (apiVersion: string, kind: string) =>
    openSession()
      .then((session) => session.discovery.namespaced(apiVersion, kind))
      .catch(() => undefined)
  const warnMissingNamespaces = async (manifest: Manifest, text: string) => {
    const ctx = { ...context, namespaceCheck: { lookup } }
    for (const line of await missingNamespaceWarnings(manifest, text, ctx)) ports.log.warn(line)
  }
  const selected = run.manifests.filter((manifest) => {
    if (selectedByTags(manifest.tags, settings.tags)) return true
    ports.log.info(`skip manifest due to tags filter (manifest ${manifest.name})`)
    return false
  })
  // Rendered BUILD_CONCURRENCY at a time (the render workers use the cores); the output and the
  // error reported are those of the first manifest in declaration order, as one by one.
  const rendered = await mapConcurrently(selected, BUILD_CONCURRENCY, (manifest) =>
    capabilitiesFor(manifest)
      .then((capabilities) => renderManifestText(manifest, { ...context, ...capabilities }))
      .then(
        (text) => ({ text }),
        (error: unknown) => ({ manifest: manifest.name, error })
      )
  )
  const outputs: string[] = []
  for (const [i, result] of rendered.entries()) {
    if ('error' in result) throw buildFailure(result.manifest, result.error)
    const manifest = selected[i]
    if (manifest !== undefined) await warnMissingNamespaces(manifest, result.text)
    if (result.text !== '') outputs.push(result.text)
  }
  return `${outputs.join('\n---\n')}\n`
}
