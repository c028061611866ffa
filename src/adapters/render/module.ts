/**
 * The render module (src/go/render/module, docs/renderers.md) for the engine: its two programs,
 * each loaded on its first render, never by `check`. From the bundle each program runs in a
 * worker thread (src/adapters/render/worker.ts), which is what lets a render be stopped at the
 * time limit; running from source (tests), in this thread.
 */
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import type { PathPolicy } from '../../config/confinement.js'
import type { JsonObject } from '../../go/yaml.js'
import {
  RenderModuleError,
  type HelmReleaseRender,
  type HelmRenderFacts,
  type RenderModule,
  type RendererVersions,
  type SchemaFinding
} from '../../render/ports.js'
import { compileGoWasm, type CompiledGoWasm, type GoWasmFiles } from './go-wasm.js'
import {
  RenderProgramStoppedError,
  startRenderProgram,
  type ProgramResponse
} from './go-program.js'
import { nativeProgramHost, type RenderProgram } from './native-program.js'
import { pendingCalls } from './pending-calls.js'
import { counterpart, sameAnswers, sameTree, type RenderRead, type TwinCheckout } from './reuse.js'
import type {
  RenderWorkerAnswer,
  RenderWorkerData,
  RenderWorkerRequest
} from './worker-protocol.js'

export type { RenderProgram } from './native-program.js'

/** Where the programs' files are, which reads they may make, and the limits of a render. */
export interface RenderModuleOptions {
  locate: (program: RenderProgram) => GoWasmFiles | Promise<GoWasmFiles>
  /**
   * Where reads may resolve: the policies of every engine sharing the module (a read is allowed
   * when one of them allows it); undefined: every path is readable (the renderers' own tests).
   */
  confine?: () => readonly PathPolicy[] | undefined
  /**
   * Told once per program, when it has loaded, what it renders with, how long that took, and
   * whether it runs natively or as WebAssembly.
   */
  onLoad?: (versions: RendererVersions, loadMs: number, runs: 'native' | 'WebAssembly') => void
  /** Run each program in a worker thread started from this script (the bundle). */
  workerScript?: string
  /** With workerScript: how many workers a program may have at once (default 1). */
  workers?: number
  /** With workerScript: a render (or load) that takes longer is stopped and fails. */
  timeoutMs?: number
  /** A render whose output is longer (UTF-16 units, about bytes for YAML) fails. */
  maxOutputBytes?: number
  /** A program's WebAssembly memory cannot grow past it; a render that needs more fails. */
  maxMemoryBytes?: number
  /**
   * The program built natively for this platform, ready to run, when there is one
   * (src/adapters/render/native-program.ts): it renders instead of the WebAssembly program, in
   * one child process serving every render of that program, under the same limits — the time
   * limit too when running from source. If it cannot start, `onNativeFailure` is told why and
   * the WebAssembly program renders.
   */
  native?: (program: RenderProgram) => Promise<string | undefined>
  /**
   * The native program unpacked ahead of its start, off this thread, where that costs the
   * thread nothing (src/adapters/render/native-program.ts#unpackAhead); undefined when it would
   * (`native` unpacks at the start then).
   */
  nativeAhead?: (program: RenderProgram) => Promise<string | undefined>
  onNativeFailure?: (message: string, program: RenderProgram) => void
}

/** A render stopped at a limit (input render-timeout or max-render-bytes). */
export class RenderLimitError extends RenderModuleError {
  override name = 'RenderLimitError'
}

/** The render module, and views of it for another checkout of the repository. */
export interface GoRenderModule extends RenderModule {
  /**
   * The module for an engine rendering `checkout.base`, a second checkout of the repository at
   * `checkout.head` (a pull request's base commit in a worktree): a render whose head
   * counterpart this process made, with every file it read the same in both, is that render
   * (docs/renderers.md#reusing-a-render); any other renders as usual.
   */
  twin(checkout: TwinCheckout): RenderModule
  /** Renders made so far, and renders a twin took from the head instead. */
  counts(): { rendered: number; reused: number }
  /**
   * Renders one Go template (src/go/template/engine) in the native Helm program, starting it if
   * need be: the program links the engine's Go code, and starts in a fraction of the time the
   * engine's WebAssembly loads in (docs/renderers.md#templates-in-the-native-helm-program).
   * Undefined when this platform has no native Helm program or it cannot start; the template
   * engine's WebAssembly renders then.
   */
  nativeTemplate(call: object): Promise<ProgramResponse | undefined>
  unpackAhead(types: readonly string[]): void
  unpackCheckAhead(): void
}

/** A started program, in this thread or in a worker. */
export interface ProgramHost {
  call(requestJson: string): Promise<ProgramResponse>
  /** Calls sent and not answered yet. */
  busy(): number
  /** The calls pending no longer keep the process alive; the next call does again. */
  letGo?(): void
}

/**
 * A RenderModule over the two WebAssembly programs, each loaded on its first render (a failure
 * to load is reported by that call and retried by the next): a repository of kustomize
 * manifests never loads Helm. Renders may overlap.
 */
export function createGoRenderModule(options: RenderModuleOptions): GoRenderModule {
  const hosts = new Map<RenderProgram, Promise<ProgramHost>>()
  // Every render of this process by its request, for twins (a few MB at 10,000 objects; the
  // engine keeps the same texts for the run anyway).
  const made = new Map<string, Promise<ProgramResponse>>()
  // Rendered texts → their documents as the program decoded them (documentsOf).
  const decoded = new Map<string, (JsonObject | null)[]>()
  // Rendered texts → the questions their render asked the file system (readsOf).
  const readsByText = new Map<string, readonly RenderRead[]>()
  // Helm requests (as JSON) → what their render depended on beyond the request (helmFactsOf).
  const helmFacts = new Map<string, HelmRenderFacts>()
  const counts = { rendered: 0, reused: 0 }
  const loaded = new Map<RenderProgram, RendererVersions>()
  // The native programs' starts, once asked for (see underway).
  const nativeStarts = new Map<RenderProgram, Promise<ProgramHost | undefined>>()
  // The native programs unpacked ahead of their start (unpackAhead), once asked for.
  const unpacked = new Map<RenderProgram, Promise<string | undefined>>()
  const startNative = async (program: RenderProgram): Promise<ProgramHost | undefined> => {
    if (options.native === undefined) return undefined
    const started = performance.now()
    try {
      // Unpacking (or, from source, building) it may fail too: then WebAssembly renders.
      const executable = (await unpacked.get(program)) ?? (await options.native(program))
      if (executable === undefined) return undefined
      // One process for every render: Go runs its goroutines on all cores, and a second process
      // would pay the runtime's start and krusty's set-up again (the 21 renders of the bench
      // repository: 0.72 s of CPU in one process, 0.88 s in two; docs/renderers.md#native-programs).
      const host = pool(1, () =>
        nativeProgramHost(executable, {
          ...(options.confine ? { confine: options.confine } : {}),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          ...(options.maxMemoryBytes === undefined
            ? {}
            : { maxMemoryBytes: options.maxMemoryBytes }),
          timeoutError: (limit) => new RenderLimitError(timeoutMessage(limit)),
          stoppedError: (outOfMemory, message) =>
            stoppedError(outOfMemory, message, options.maxMemoryBytes)
        })
      )
      const versions = (await host.call('{"op":"versions"}')).versions ?? {}
      loaded.set(program, versions)
      options.onLoad?.(versions, performance.now() - started, 'native')
      return host
    } catch (error) {
      options.onNativeFailure?.((error as Error).message, program)
      return undefined
    }
  }
  // A program's native start, once: its renders and the templates it serves share it.
  const nativeHost = (program: RenderProgram): Promise<ProgramHost | undefined> => {
    if (options.native === undefined) return Promise.resolve(undefined)
    let starting = nativeStarts.get(program)
    if (starting === undefined) nativeStarts.set(program, (starting = startNative(program)))
    return starting
  }
  const start = async (program: RenderProgram): Promise<ProgramHost> => {
    const native = await nativeHost(program)
    if (native !== undefined) return native
    const started = performance.now()
    const compiled = await compileGoWasm(
      await options.locate(program),
      'the render module',
      options.maxMemoryBytes
    )
    const host =
      options.workerScript === undefined
        ? await threadHost(compiled, options.confine)
        : pool(options.workers, () => workerHost(compiled, options.workerScript!, options))
    const versions = (await host.call('{"op":"versions"}')).versions ?? {}
    loaded.set(program, versions)
    options.onLoad?.(versions, performance.now() - started, 'WebAssembly')
    return host
  }
  const host = (program: RenderProgram): Promise<ProgramHost> => {
    let pending = hosts.get(program)
    if (pending === undefined) hosts.set(program, (pending = start(program)))
    return pending
  }
  const call = async (program: RenderProgram, request: object): Promise<ProgramResponse> => {
    const pending = host(program)
    let started: ProgramHost
    try {
      started = await pending
    } catch (error) {
      if (hosts.get(program) === pending) hosts.delete(program)
      throw error
    }
    let response: ProgramResponse
    try {
      response = await started.call(JSON.stringify(request))
    } catch (error) {
      if (!(error instanceof RenderProgramStoppedError)) throw error
      // This thread's program is gone: the next render starts a new one.
      hosts.delete(program)
      throw stoppedError(error.outOfMemory, error.message, options.maxMemoryBytes)
    }
    if (response.error !== undefined) throw new RenderModuleError(response.error)
    const max = options.maxOutputBytes
    if (max !== undefined && (response.output?.length ?? 0) > max) {
      throw new RenderLimitError(
        `the rendered output is ${formatBytes(response.output!.length)}, more than ` +
          `max-render-bytes (${formatBytes(max)})`
      )
    }
    return response
  }
  // A program started only for the schema check rendered nothing: its versions are not the run's
  // renderers (the job summary's line, report.json's `renderers`).
  const checkOnly = new Set<RenderProgram>()
  const merged = (): RendererVersions | undefined => {
    const rendering = [...loaded].filter(([program]) => !checkOnly.has(program))
    return rendering.length === 0
      ? undefined
      : Object.fromEntries(rendering.flatMap(([, versions]) => Object.entries(versions)))
  }
  const render = (program: RenderProgram, request: { op: string; input: object }) => {
    checkOnly.delete(program)
    counts.rendered++
    const response = call(program, request)
    const requestJson = JSON.stringify(request)
    made.set(requestJson, response)
    return response.then(({ output = '', documents, reads, volatile }) => {
      if (documents !== undefined) decoded.set(output, documents)
      // Only krusty's: render records and twins take a kustomize render's reads by its text, and
      // Helm's (the chart load's) leave out its values and capabilities
      // (docs/renderers.md#skipping-unchanged-renders).
      // Two manifests may render one text (an overlay that adds nothing to its base): the text
      // keeps both renders' questions, so neither record loses its own files (a record of the
      // base's reads alone would hold for an overlay whose kustomization.yaml changed).
      if (reads !== undefined && program === 'kustomize') {
        readsByText.set(output, [...(readsByText.get(output) ?? []), ...reads])
      }
      // A chart on disk is known by the load's reads (none from WebAssembly: not recorded), a
      // downloaded one by its bytes in the request. A program that does not say which volatile
      // functions the chart calls (an empty list when none) makes no record.
      if (program === 'helm' && Array.isArray(volatile)) {
        const onDisk = 'chartPath' in request.input
        if (!onDisk || reads !== undefined) {
          helmFacts.set(requestJson, { reads: onDisk ? (reads ?? []) : [], volatile })
        }
      }
      return output
    })
  }
  const documentsOf = (text: string) => decoded.get(text)
  // Never starts a program: a text worth decoding there was rendered by the one that runs.
  const decode = async (text: string) => {
    if ((await nativeStarts.get('helm')) === undefined) return undefined
    try {
      return (await call('helm', { op: 'documents', input: { text } })).documents
    } catch {
      return undefined
    }
  }
  const readsOf = (text: string) => readsByText.get(text)
  // Only the native programs: they start in milliseconds, beside whatever the engine does next
  // (loading the cluster client, reading State). Starting a WebAssembly one early gained
  // nothing (docs/benchmarks.md).
  const prepare = (types: readonly string[]): void => {
    if (options.native === undefined) return
    for (const program of programsOf(types)) host(program).catch(() => undefined)
  }
  // The native programs of these types unpacked, not started, where the unpacking costs this
  // thread nothing: a run that may render nothing (a no-change sync with render records) gets
  // its renders' program without waiting for the unpacking (docs/renderers.md#native-programs).
  const unpackAhead = (types: readonly string[]): void => unpackPrograms(programsOf(types))
  const unpackPrograms = (programs: Iterable<RenderProgram>): void => {
    const ahead = options.nativeAhead
    if (ahead === undefined || options.native === undefined) return
    for (const program of programs) {
      if (nativeStarts.has(program) || unpacked.has(program)) continue
      unpacked.set(
        program,
        ahead(program).catch(() => undefined)
      )
    }
  }
  // Once a native program answers, the renders waiting for it go out in that turn's
  // microtasks; one more turn, and they are with the program. A WebAssembly program is not
  // waited for: it compiles off this thread, beside whatever loads meanwhile.
  const underway = async (): Promise<void> => {
    if (nativeStarts.size === 0) return
    await Promise.all(nativeStarts.values())
    await new Promise((resolve) => setImmediate(resolve))
  }
  // The schema check's program unpacked as a review's run starts, beside its State read and
  // renders: what prepareCheck then starts waits for the start alone, where the unpacking of
  // Helm's 45 MB came after the Diff (docs/risks.md#cost-of-the-api-and-schema-checks).
  const unpackCheckAhead = (): void => unpackPrograms(['helm'])
  const markCheckOnly = (): void => {
    if (!hosts.has('helm') && !nativeStarts.has('helm')) checkOnly.add('helm')
  }
  // The native Helm program starts in the background for a schema check to come, as prepare()
  // starts it for a render: unpacked and started while the cluster is read.
  const prepareCheck = (): void => {
    if (options.native === undefined) return
    markCheckOnly()
    host('helm').catch(() => undefined)
  }
  const checkSchema = async (
    schemas: Readonly<Record<string, string>>,
    objects: readonly JsonObject[],
    crds: readonly JsonObject[] = []
  ): Promise<(SchemaFinding[] | null)[]> => {
    markCheckOnly()
    const components = Object.fromEntries(
      Object.entries(schemas).map(([gv, text]) => [gv, schemaComponents(text)])
    )
    const response = await call('helm', {
      op: 'schema',
      input: { schemas: components, crds, objects }
    })
    const parsed = JSON.parse(response.output ?? '{}') as { results?: (SchemaFinding[] | null)[] }
    return parsed.results ?? []
  }
  const kustomizeRequest = (dir: string) => ({ op: 'kustomize', input: { dir } })
  const helmOp = (release: HelmReleaseRender) => ({ op: 'helm', input: helmRequest(release) })
  const module: RenderModule & Pick<GoRenderModule, 'unpackAhead' | 'unpackCheckAhead'> = {
    kustomize: (dir) => render('kustomize', kustomizeRequest(dir)),
    helm: (release) => render('helm', helmOp(release)),
    loaded: merged,
    documentsOf,
    decode,
    readsOf,
    helmFactsOf: (release) => helmFacts.get(JSON.stringify(helmOp(release))),
    checkSchema,
    prepareCheck,
    prepare,
    unpackAhead,
    unpackCheckAhead,
    underway,
    letGo() {
      for (const started of hosts.values())
        started.then(
          (h) => h.letGo?.(),
          () => undefined
        )
    }
  }
  /** The head's render of `request` when it holds for the base (see twin()). */
  const reusable = async (
    request: object,
    checkout: TwinCheckout,
    holds: (response: ProgramResponse) => boolean
  ): Promise<string | undefined> => {
    const earlier = made.get(JSON.stringify(request))
    const response = await earlier?.catch(() => undefined)
    // An absolute path of the head in the output would be wrong for the base.
    if (response?.output === undefined || response.error !== undefined) return undefined
    if (response.output.includes(checkout.head) || !holds(response)) return undefined
    counts.reused++
    return response.output
  }
  const nativeTemplate = async (call: object): Promise<ProgramResponse | undefined> => {
    checkOnly.delete('helm')
    const native = await nativeHost('helm')
    return native?.call(JSON.stringify({ op: 'template', input: call }))
  }
  return {
    ...module,
    nativeTemplate,
    counts: () => ({ ...counts }),
    twin: (checkout) => ({
      loaded: merged,
      documentsOf,
      decode,
      prepare,
      unpackAhead,
      underway,
      kustomize: async (dir) => {
        const headDir = counterpart(dir, checkout.base, checkout.head)
        const reused =
          headDir === undefined
            ? undefined
            : await reusable(kustomizeRequest(headDir), checkout, (r) =>
                r.reads === undefined ? false : sameAnswers(r.reads, checkout)
              )
        return reused ?? module.kustomize(dir)
      },
      helm: async (release) => {
        // A downloaded chart is in the request itself; one on disk must be the same in both.
        if (!('path' in release.chart)) {
          const reused = await reusable(helmOp(release), checkout, () => true)
          return reused ?? module.helm(release)
        }
        const chart = release.chart.path
        const headChart = counterpart(chart, checkout.base, checkout.head)
        const reused =
          headChart === undefined
            ? undefined
            : await reusable(helmOp({ ...release, chart: { path: headChart } }), checkout, () =>
                sameTree(headChart, chart)
              )
        return reused ?? module.helm(release)
      }
    })
  }
}

async function threadHost(
  program: CompiledGoWasm,
  confine: RenderModuleOptions['confine']
): Promise<ProgramHost> {
  const call = await startRenderProgram(program, confine)
  let busy = 0
  return {
    call: async (request) => {
      busy++
      try {
        return await call(request)
      } finally {
        busy--
      }
    },
    busy: () => busy
  }
}

/**
 * Up to `workers` hosts (worker threads, or the one native process), one more started only when
 * every started one is busy: renders of one program (the manifests of a layer, the releases of a
 * helmfile) use the cores.
 */
function pool(workers: number | undefined, startHost: () => ProgramHost): ProgramHost {
  const hosts: ProgramHost[] = []
  const size = Math.max(1, workers ?? 1)
  return {
    call(request) {
      const idle = hosts.find((host) => host.busy() === 0)
      let host = idle
      if (host === undefined && hosts.length < size) hosts.push((host = startHost()))
      host ??= hosts.reduce((a, b) => (b.busy() < a.busy() ? b : a))
      return host.call(request)
    },
    busy: () => hosts.reduce((sum, host) => sum + host.busy(), 0),
    letGo: () => hosts.forEach((host) => host.letGo?.())
  }
}

/**
 * The program in a worker thread, started on the first call and again after a stop. A call
 * past the time limit terminates the worker (the only way to stop WebAssembly mid-run) and
 * fails; so do the other calls it was serving. The worker holds the process open only while a
 * call is pending.
 */
export function workerHost(
  program: CompiledGoWasm,
  script: string,
  options: Pick<RenderModuleOptions, 'confine' | 'timeoutMs' | 'maxMemoryBytes'>,
  kind?: 'template'
): ProgramHost {
  let worker: Worker | undefined
  const pending = pendingCalls(() => worker?.unref())
  const stop = (error: Error): void => {
    const stopped = worker
    worker = undefined
    pending.failAll(error)
    void stopped?.terminate()
  }
  const spawn = (): Worker => {
    const data: RenderWorkerData = { tazunaRenderWorker: { program, ...(kind ? { kind } : {}) } }
    const started = new Worker(script, { workerData: data })
    started.on('message', (answer: RenderWorkerAnswer) => {
      const entry = pending.settle(answer.id)
      if ('response' in answer) entry?.resolve(answer.response)
      else if (answer.stopped === undefined)
        entry?.reject(new Error(`the render module failed: ${answer.failure}`))
      else {
        const error = stoppedError(
          answer.stopped.outOfMemory,
          answer.failure,
          options.maxMemoryBytes
        )
        entry?.reject(error)
        // Its program is gone: the worker goes too, and the next call starts a new one.
        if (worker === started) stop(error)
      }
    })
    started.on('error', (error: Error) => {
      if (worker === started) stop(new Error(`the render module failed: ${error.message}`))
    })
    started.on('exit', (code) => {
      if (worker === started) stop(new Error(`the render module stopped (exit code ${code})`))
    })
    return started
  }
  return {
    call(request) {
      const target = (worker ??= spawn())
      target.ref()
      const { id, answer } = pending.add(options.timeoutMs, () => {
        if (worker === target) stop(new RenderLimitError(timeoutMessage(options.timeoutMs!)))
      })
      const message: RenderWorkerRequest = { id, request, policies: options.confine?.() }
      target.postMessage(message)
      return answer
    },
    busy: pending.size,
    letGo: () => worker?.unref()
  }
}

/** The error for a program that stopped: a limit when it ran out of the memory it may use. */
export function stoppedError(
  outOfMemory: boolean,
  message: string,
  max: number | undefined
): Error {
  if (!outOfMemory || max === undefined) return new Error(message)
  return new RenderLimitError(
    `the render needed more memory than max-render-memory (${formatBytes(max)}) and was stopped`
  )
}

function timeoutMessage(limitMs: number): string {
  return `the render did not finish within render-timeout (${limitMs / 1000} s) and was stopped`
}

function formatBytes(bytes: number): string {
  return bytes < 1048576 ? `${bytes} bytes` : `${(bytes / 1048576).toFixed(1)} MiB`
}

function helmRequest(release: HelmReleaseRender): object {
  const { chart, ...rest } = release
  return {
    ...rest,
    ...('path' in chart
      ? { chartPath: chart.path }
      : { chartArchive: Buffer.from(chart.archive).toString('base64') })
  }
}

/** The programs rendering manifests of these types needs: krusty, the Helm SDK. */
function programsOf(types: readonly string[]): RenderProgram[] {
  return [
    ...(types.includes('kustomize') ? (['kustomize'] as const) : []),
    ...(types.includes('helmfile') ? (['helm'] as const) : [])
  ]
}

/**
 * The part of an /openapi/v3 document the schema check reads: its components' schemas, without
 * the paths that are three quarters of its bytes. V8 parses the whole document in a few
 * milliseconds where Go's decoder took tens to scan it, twice over when it was a string inside
 * the request (docs/risks.md#cost-of-the-api-and-schema-checks).
 */
function schemaComponents(document: string): { components?: { schemas?: unknown } } {
  const parsed = JSON.parse(document) as { components?: { schemas?: unknown } } | null
  const schemas = parsed?.components?.schemas
  return schemas === undefined ? {} : { components: { schemas } }
}
