/**
 * What the cluster commands of the CLI (`state diff`, `state list`, `apply`) share: the
 * renderer wired to the run's discovery, the git commit recorded in State, and log lines.
 */
import {
  CommandNotFoundError,
  createExecRunner,
  type CommandRunner
} from '../adapters/command-runner.js'
import type { KubeSession } from '../adapters/kube-session.js'
import type { ApplyLog } from '../apply/ports.js'
import { buildManifest, type BuiltManifest } from '../build/manifest.js'
import type { HelmCapabilities } from '../build/context.js'
import type { Manifest, ProviderConfig } from '../config/schema.js'
import type { TemplateEngine } from '../template/engine.js'

/** What the renderer needs from the command's context. */
export interface BuilderIo {
  env: Readonly<Record<string, string | undefined>>
  templates: TemplateEngine
  /** Runs kustomize, helm and op; defaults to the @actions/exec runner. */
  runner?: CommandRunner
}

/**
 * A renderer for the run: Helm capabilities come from the session's discovery, fetched once
 * and only when a helmfile manifest without its own `kubeVersion` needs them (§13.5).
 */
export function manifestBuilder(
  io: BuilderIo,
  setup: {
    configDir: string
    environment: string
    providers: readonly ProviderConfig[]
    session: KubeSession
  }
): (m: Manifest) => Promise<BuiltManifest> {
  let capabilities: Promise<HelmCapabilities> | undefined
  const runner = io.runner ?? createExecRunner()
  const tools = {
    ...(io.env.KUSTOMIZE_BIN ? { kustomize: io.env.KUSTOMIZE_BIN } : {}),
    ...(io.env.HELM_BIN ? { helm: io.env.HELM_BIN } : {})
  }
  return async (m) => {
    const needsCapabilities =
      (m.type === 'helmfile' || m.type === 'oras') && !m.helmfile?.kubeVersion
    if (needsCapabilities) capabilities ??= setup.session.discovery.capabilities()
    return buildManifest(m, {
      runner,
      templates: io.templates,
      configDir: setup.configDir,
      environment: setup.environment,
      ...(needsCapabilities ? { capabilities: await capabilities } : {}),
      providers: setup.providers,
      registerSecret: () => undefined,
      lookupEnv: (name) => io.env[name],
      tools
    })
  }
}

/**
 * `git rev-parse HEAD` in the tazuna.yaml directory (§5.4); any failure, including git not
 * being installed, gives `''` and never an error.
 */
export async function gitCommitOf(
  dir: string,
  runner: CommandRunner = createExecRunner()
): Promise<string> {
  try {
    const result = await runner.run('git', ['rev-parse', 'HEAD'], { cwd: dir })
    return result.exitCode === 0 ? result.stdout.trim() : ''
  } catch (error) {
    if (error instanceof CommandNotFoundError) return ''
    return ''
  }
}

/** Log lines on stderr, in the spirit of Tazuna's slog text handler. */
export function stderrLog(io: { stderr(text: string): void }): ApplyLog {
  return {
    info: (message) => io.stderr(`level=INFO msg=${JSON.stringify(message)}\n`),
    warn: (message) => io.stderr(`level=WARN msg=${JSON.stringify(message)}\n`)
  }
}
