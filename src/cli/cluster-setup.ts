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
import type { CommandContext } from '../cli.js'
import type { LoadedConfig } from '../config/load.js'
import type { Manifest } from '../config/schema.js'

/**
 * A renderer for the run: the command's environment and template engine, the loaded config's
 * directory, `-e` and providers. Helm capabilities come from the session's discovery, fetched
 * once and only when a helmfile manifest without its own `kubeVersion` needs them (§13.5).
 */
export function manifestBuilder(
  ctx: Pick<CommandContext, 'io' | 'templates' | 'flags'>,
  loaded: LoadedConfig,
  session: KubeSession,
  runner: CommandRunner = createExecRunner()
): (m: Manifest) => Promise<BuiltManifest> {
  const { env } = ctx.io
  let capabilities: Promise<HelmCapabilities> | undefined
  const tools = {
    ...(env.KUSTOMIZE_BIN ? { kustomize: env.KUSTOMIZE_BIN } : {}),
    ...(env.HELM_BIN ? { helm: env.HELM_BIN } : {})
  }
  return async (m) => {
    const needsCapabilities =
      (m.type === 'helmfile' || m.type === 'oras') && !m.helmfile?.kubeVersion
    if (needsCapabilities) capabilities ??= session.discovery.capabilities()
    return buildManifest(m, {
      runner,
      templates: ctx.templates,
      configDir: loaded.dir,
      environment: ctx.flags.environment,
      ...(needsCapabilities ? { capabilities: await capabilities } : {}),
      providers: loaded.config.spec.providers,
      registerSecret: () => undefined,
      lookupEnv: (name) => env[name],
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
