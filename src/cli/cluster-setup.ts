/**
 * What the CLI's commands share: the build context (`build`), the renderer wired to the run's
 * discovery (`state diff`, `apply`), the git commit recorded in State, and log lines.
 */
import {
  CommandNotFoundError,
  createExecRunner,
  type CommandRunner
} from '../adapters/command-runner.js'
import type { KubeSession } from '../adapters/kube-session.js'
import type { ApplyLog } from '../apply/ports.js'
import { buildManifest, type BuiltManifest } from '../build/manifest.js'
import type { BuildContext, HelmCapabilities } from '../build/context.js'
import type { CommandContext } from '../cli.js'
import type { LoadedConfig } from '../config/load.js'
import type { Manifest } from '../config/schema.js'

/**
 * The CLI's build context: the command's environment (KUSTOMIZE_BIN and HELM_BIN name the
 * tools) and template engine, the loaded config's directory, `-e` and providers. Secrets are
 * not registered: the CLI has no log masking.
 */
export function cliBuildContext(
  ctx: Pick<CommandContext, 'io' | 'templates' | 'flags'>,
  loaded: LoadedConfig,
  runner: CommandRunner = createExecRunner()
): BuildContext {
  const { env } = ctx.io
  return {
    runner,
    templates: ctx.templates,
    configDir: loaded.dir,
    environment: ctx.flags.environment,
    providers: loaded.config.spec.providers,
    registerSecret: () => undefined,
    lookupEnv: (name) => env[name],
    tools: {
      ...(env.KUSTOMIZE_BIN ? { kustomize: env.KUSTOMIZE_BIN } : {}),
      ...(env.HELM_BIN ? { helm: env.HELM_BIN } : {})
    }
  }
}

/**
 * A renderer for the cluster commands: cliBuildContext, with Helm capabilities from the
 * session's discovery, fetched once and only when a helmfile manifest without its own
 * `kubeVersion` needs them (§13.5).
 */
export function manifestBuilder(
  ctx: Pick<CommandContext, 'io' | 'templates' | 'flags'>,
  loaded: LoadedConfig,
  session: KubeSession,
  runner?: CommandRunner
): (m: Manifest) => Promise<BuiltManifest> {
  const base = cliBuildContext(ctx, loaded, runner)
  let capabilities: Promise<HelmCapabilities> | undefined
  return async (m) => {
    const needsCapabilities =
      (m.type === 'helmfile' || m.type === 'oras') && !m.helmfile?.kubeVersion
    if (needsCapabilities) capabilities ??= session.discovery.capabilities()
    return buildManifest(m, {
      ...base,
      ...(needsCapabilities ? { capabilities: await capabilities } : {})
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
