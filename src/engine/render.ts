/**
 * Rendering inside the engine: one render context per run (tools, files, providers, the
 * secret sink) and one policy for Helm capabilities — discovered from the server once, and only
 * when a helmfile manifest without its own `kubeVersion` renders
 * (docs/compatibility.md#helm-capabilities).
 */
import type { Manifest } from '../config/schema.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import { selectedByTags } from '../plan/tags.js'
import type { BuildContext, HelmCapabilities } from '../render/context.js'
import { buildManifest, renderManifestText } from '../render/manifest.js'
import type { ConfigRun } from './load.js'
import type { ClusterSession, EnginePorts, EngineSettings } from './ports.js'

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
    templates: ports.templates,
    configDir: run.config.dir,
    environment: settings.environment,
    providers: run.config.config.spec.providers,
    registerSecret: ports.registerSecret,
    lookupEnv: (name) => env[name],
    ...(env.HELM_BIN ? { tools: { helm: env.HELM_BIN } } : {}),
    files: ports.files
  }
}

/** Renders a run's manifests to objects and State entries, for diff and apply. */
export function manifestRenderer(
  run: ConfigRun,
  settings: EngineSettings,
  ports: EnginePorts,
  openSession: () => Promise<ClusterSession>
): (m: Manifest) => Promise<DesiredState> {
  const base = renderContext(run, settings, ports)
  let capabilities: Promise<HelmCapabilities> | undefined
  return async (m) => {
    const needsCapabilities =
      (m.type === 'helmfile' || m.type === 'oras') && !m.helmfile?.kubeVersion
    if (needsCapabilities) capabilities ??= openSession().then((s) => s.discovery.capabilities())
    return buildManifest(m, {
      ...base,
      ...(needsCapabilities ? { capabilities: await capabilities } : {})
    })
  }
}

/**
 * `tazuna build`'s output: every selected manifest's raw render in declaration order, joined
 * with `\n---\n` and ending in a newline (docs/compatibility.md#build-output). Renders without
 * a cluster (docs/compatibility.md#build-without-a-cluster).
 */
export async function renderBuildText(
  run: ConfigRun,
  settings: EngineSettings,
  ports: EnginePorts
): Promise<string> {
  const context = renderContext(run, settings, ports)
  const outputs: string[] = []
  for (const manifest of run.manifests) {
    if (!selectedByTags(manifest.tags, settings.tags)) {
      ports.log.info(`skip manifest due to tags filter (manifest ${manifest.name})`)
      continue
    }
    const text = await renderManifestText(manifest, context)
    if (text !== '') outputs.push(text)
  }
  return `${outputs.join('\n---\n')}\n`
}
