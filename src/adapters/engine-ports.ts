/**
 * The engine's ports on the real parts, wired once for both entry points: the command runner,
 * the Go template engine (found next to the bundle, or built from source when running from a
 * checkout), and a kube session opened on first use.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import type { PathPolicy } from '../config/confinement.js'
import type { EngineLog, EnginePorts } from '../engine/ports.js'
import { GO_TEMPLATE_PROGRAM, locateGoWasm, RENDER_PROGRAMS } from './render/go-wasm-files.js'
import { createGoRenderModule, type GoRenderModule } from './render/module.js'
import { locateNativeProgram, unpackAhead, type RenderProgram } from './render/native-program.js'
import { createRenderRecords } from './render/records.js'
import type { TwinCheckout } from './render/reuse.js'
import type { RenderLimits } from '../render/ports.js'
import { createGoTemplateEngine, type GoTemplateEngineOptions } from './render/template-engine.js'
import { createHttpClient, createInsecureHttpClient } from './http-client.js'
import { createOrasCache, orasCacheRoot } from './files/oras-cache.js'
import type { DockerConfigFile } from '../render/oras/ports.js'
import { describeRenderers } from '../report/renderers.js'
import { systemClock } from './clock.js'
import { createExecRunner } from './command-runner.js'
import { createNodeFiles } from './files/node-files.js'
import type { BearerAuth } from './kube/config.js'

/** What the entry point knows about its process. */
export interface ProcessPortsOptions {
  env: Readonly<Record<string, string | undefined>>
  /** A kubeconfig file to use instead of KUBECONFIG / ~/.kube/config / in-cluster. */
  kubeconfig?: string
  /** cluster-auth github-oidc: the job's ID token is the cluster credential (README.md#keyless). */
  bearer?: BearerAuth
  /** Each credential an exec plugin or auth provider returns, once (KubeConfigOptions). */
  onCredential?: (value: string) => void
  /** The directory of the running bundle (dist/) or of src/ when running from source. */
  codeDir: string
  registerSecret?: (value: string) => void
  log: EngineLog
  /** Told which cluster a session talks to when it opens (the action logs it). */
  onSessionOpened?: (describe: string) => void
  /** Where private temporary files go (the runner's temp dir); the OS temp dir when absent. */
  tempDir?: string
  /**
   * Where unpacked native render programs are kept between runs (the command line's user
   * cache, docs/renderers.md#native-programs); absent: unpacked privately for this process.
   */
  programCache?: string
  /**
   * Log the renderer versions when the render module loads (the action does; the command line
   * prints only what Tazuna prints).
   */
  announceRenderers?: boolean
  /** The limits of one render (inputs render-timeout, max-render-bytes). */
  renderLimits?: RenderLimits
  /** Where reads may resolve (src/config/confinement.ts); absent: anywhere. */
  confine?: PathPolicy
  /**
   * This engine renders a second checkout of the repository (a pull request's base in a
   * worktree): renders the head's engine made hold where their files are the same
   * (docs/renderers.md#reusing-a-render).
   */
  twin?: TwinCheckout
  /** Cancels the run (EnginePorts.signal). */
  signal?: AbortSignal
  /** What the process finishes before it stops at once (EnginePorts.beforeExit). */
  beforeExit?: EnginePorts['beforeExit']
}

/** The engine's ports for this process. */
export function processEnginePorts(options: ProcessPortsOptions): EnginePorts {
  const { env } = options
  // A copy whose `allowed` grows by each oras artifact this engine pulls (orasPorts).
  const confine = options.confine && { ...options.confine, allowed: [...options.confine.allowed] }
  const files = createNodeFiles({
    ...(options.tempDir ? { tempDir: options.tempDir } : {}),
    ...(confine ? { confine } : {})
  })
  const sessionEnv = {
    ...env,
    ...(options.kubeconfig === undefined ? {} : { KUBECONFIG: options.kubeconfig })
  }
  const module = sharedRenderModule({ ...options, ...(confine ? { confine } : {}) })
  // A twin's renders are the head's where they hold (GoRenderModule.twin).
  const renderer = options.twin ? module.twin(options.twin) : module
  return {
    templates: createGoTemplateEngine(
      () => locateGoWasm(GO_TEMPLATE_PROGRAM, env, options.codeDir),
      { ...templateLimits(options), native: (call) => module.nativeTemplate(call) }
    ),
    renderer,
    // A twin's renders are the head's where they hold: its engine records nothing. Without
    // a code directory (some tests) there is no build identity to record with.
    ...(options.twin || options.codeDir === ''
      ? {}
      : { records: createRenderRecords(renderer, options.codeDir) }),
    http: createHttpClient(),
    runner: createExecRunner(),
    files,
    ...orasPorts(env, async (dir) => {
      await files.allowRead(dir)
      confine?.allowed.push(dir)
    }),
    openSession: async () => {
      // Loaded here, not at the top: check mode and build never need the cluster adapters (ncc
      // emits them as a chunk of their own, see scripts/bundle.sh); they load client-node, most
      // of the bundle, only for a kubeconfig that is not plain (kube/plain-kubeconfig.ts).
      const { openKubeSession } = await import('./kube/session.js')
      const session = await openKubeSession({
        env: sessionEnv,
        ...(options.bearer ? { bearer: options.bearer } : {}),
        ...(options.onCredential ? { onCredential: options.onCredential } : {}),
        ...(options.signal ? { signal: options.signal } : {})
      })
      options.onSessionOpened?.(session.describe)
      return session
    },
    env,
    registerSecret: options.registerSecret ?? (() => undefined),
    log: options.log,
    clock: systemClock,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.beforeExit ? { beforeExit: options.beforeExit } : {})
  }
}

/**
 * `type: oras`: Tazuna's artifact cache (absent without XDG_CACHE_HOME and HOME), an HTTP
 * client for `insecureSkipVerify`, and the Docker config file. `grant` lets the file adapter
 * and the render module read an artifact directory the cache hands out, and nothing else of it.
 */
function orasPorts(
  env: ProcessPortsOptions['env'],
  grant: (dir: string) => Promise<void>
): Pick<EnginePorts, 'oras'> {
  const root = orasCacheRoot(env)
  if (root === undefined) return {}
  return {
    oras: {
      cache: createOrasCache(root, grant),
      insecureHttp: createInsecureHttpClient(),
      dockerConfig: () => readDockerConfig(env)
    }
  }
}

/** `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`; undefined when absent. */
async function readDockerConfig(
  env: ProcessPortsOptions['env']
): Promise<DockerConfigFile | undefined> {
  const dir = env.DOCKER_CONFIG || (env.HOME ? path.join(env.HOME, '.docker') : undefined)
  if (dir === undefined) return undefined
  const file = path.join(dir, 'config.json')
  const text = await readFile(file, 'utf8').catch(() => undefined)
  return text === undefined ? undefined : { path: file, text }
}

/** The render limits and worker script, as the template engine takes them. */
function templateLimits(options: ProcessPortsOptions): GoTemplateEngineOptions {
  const { workers: _, ...limits } = renderWorkerOptions(
    options.codeDir,
    options.renderLimits ?? DEFAULT_RENDER_LIMITS
  )
  return limits
}

// One render module per process (loading a WebAssembly program costs about a second and
// 400 MB; a native one starts a process): engines of one run (the action's head and
// base renders) share it, each adding the directories it may read.
// Kept by whether the native kustomize program may run (TAZUNA_RENDER_NATIVE), which a module
// decides once.
const shared = new Map<
  boolean,
  { module: GoRenderModule; reads: { policies: PathPolicy[]; unconfined: boolean } }
>()

function sharedRenderModule(options: ProcessPortsOptions): GoRenderModule {
  const { env, codeDir } = options
  const native = env.TAZUNA_RENDER_NATIVE !== 'off'
  let entry = shared.get(native)
  if (entry === undefined) {
    const reads = { policies: [] as PathPolicy[], unconfined: false }
    entry = {
      reads,
      module: createGoRenderModule({
        locate: (program) => locateGoWasm(RENDER_PROGRAMS[program], env, codeDir),
        ...renderWorkerOptions(codeDir, options.renderLimits ?? DEFAULT_RENDER_LIMITS),
        confine: () => (reads.unconfined ? undefined : reads.policies),
        ...(native
          ? {
              native: (program: RenderProgram) =>
                locateNativeProgram(program, env, codeDir, options.tempDir, options.programCache),
              ...(options.programCache === undefined
                ? {
                    nativeAhead: (program: RenderProgram) =>
                      unpackAhead(program, env, codeDir, options.tempDir)
                  }
                : {}),
              onNativeFailure: (message: string, program: RenderProgram) =>
                options.log.warn(
                  `The native ${program} program could not run (${message}); rendering with ` +
                    'its WebAssembly build instead, which is slower ' +
                    '(docs/renderers.md#native-programs).'
                )
            }
          : {}),
        ...(options.announceRenderers
          ? {
              onLoad: (versions, loadMs, runs) =>
                options.log.info(
                  `Rendering with ${describeRenderers(versions)} ` +
                    `(${runs}, loaded in ${(loadMs / 1000).toFixed(1)} s)`
                )
            }
          : {})
      })
    }
    shared.set(native, entry)
  }
  if (options.confine === undefined) entry.reads.unconfined = true
  else entry.reads.policies.push(options.confine)
  return entry.module
}

/** Inputs render-timeout, max-render-bytes and max-render-memory: defaults, also the flags'. */
export const DEFAULT_RENDER_LIMITS: RenderLimits = {
  timeoutMs: 300_000,
  maxOutputBytes: 256 * 1024 ** 2,
  maxMemoryBytes: 1024 ** 3
}

/**
 * From the bundle, each WebAssembly render program runs in a worker thread started from the
 * bundle itself (so a render can be stopped at the time limit); from source there is no script
 * to start, so they run in this thread with the output and memory limits only. Native programs
 * are processes: every limit holds for them either way.
 */
function renderWorkerOptions(
  codeDir: string,
  limits: RenderLimits
): {
  workerScript?: string
  workers?: number
  timeoutMs?: number
  maxOutputBytes: number
  maxMemoryBytes: number
} {
  const script = path.join(codeDir, 'index.js')
  // One worker per core for renders of one program, at most 4 (a program needs 200–450 MB).
  const workers = Math.min(4, availableParallelism())
  if (!existsSync(script)) return { workers, ...limits }
  return { workerScript: script, workers, ...limits }
}
