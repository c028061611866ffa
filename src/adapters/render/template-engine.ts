/**
 * Renders Go templates with src/go/template/engine: in the native Helm program where this
 * platform has one (it links the engine's Go code), else in the engine's WebAssembly build. The
 * engine is loaded at most once, and only when a template actually contains an action: text
 * without `{{` renders to itself (as in Go), which keeps the cold start of `check` on plain
 * files near zero. From the bundle the WebAssembly runs in a worker thread of its own, so that a
 * template that never ends (three nested `range 10000`) is stopped at render-timeout
 * (docs/reliability.md#render-limits), as the native program is; from source (the tests) in this
 * thread. Its memory is bounded like the render programs'.
 */
import {
  hasTemplateActions,
  TemplateError,
  templateErrorLine,
  type RenderRequest,
  type TemplateEngine
} from '../../go/template/engine.js'
import { compileGoWasm, startGoProgram, type CompiledGoWasm, type GoWasmFiles } from './go-wasm.js'
import { RenderLimitError, stoppedError, workerHost, type ProgramHost } from './module.js'
import { RenderProgramStoppedError, type ProgramResponse } from './go-program.js'

/** Where the engine's two build artifacts are (see src/go/template/engine/build.sh). */
export type GoTemplateFiles = GoWasmFiles

/** The limits of one template render, and where to run it. */
export interface GoTemplateEngineOptions {
  /** Run the engine in a worker thread started from this script (the bundle). */
  workerScript?: string
  /** With workerScript: a template that renders longer is stopped and fails. */
  timeoutMs?: number
  /** The engine's WebAssembly memory cannot grow past it. */
  maxMemoryBytes?: number
  /** A longer output fails (UTF-16 units). */
  maxOutputBytes?: number
  /**
   * Renders a template natively where this platform can, in the native Helm program under the
   * render module's limits (GoRenderModule.nativeTemplate); undefined when it cannot, and the
   * WebAssembly build renders (docs/renderers.md#templates-in-the-native-helm-program).
   */
  native?: (call: TemplateCall) => Promise<ProgramResponse | undefined>
}

type RenderFunction = (
  text: string,
  dataJson: string,
  mode: string,
  name: string
) => { output?: string; error?: string; phase?: string }

/** One render request as it crosses to a worker or to the native program. */
export interface TemplateCall {
  text: string
  dataJson: string
  mode: string
  name: string
}

/**
 * A TemplateEngine over the engine's Go code: natively (options.native) where it can, else its
 * WebAssembly build. `locate` is called on the first render that needs the WebAssembly; a
 * failure to locate or load is reported by that render (and retried by the next).
 */
export function createGoTemplateEngine(
  locate: () => GoTemplateFiles | Promise<GoTemplateFiles>,
  options: GoTemplateEngineOptions = {}
): TemplateEngine {
  let loading: Promise<(call: TemplateCall) => Promise<ProgramResponse>> | undefined
  const load = async () => {
    const program = await compileGoWasm(
      await locate(),
      'the Go template engine',
      options.maxMemoryBytes
    )
    if (options.workerScript === undefined) {
      return threadCall(await startTemplateProgram(program), options.maxMemoryBytes)
    }
    return workerCall(workerHost(program, options.workerScript, options, 'template'))
  }
  const wasmCall = async (templateCall: TemplateCall): Promise<ProgramResponse> => {
    loading ??= load()
    let call: (call: TemplateCall) => Promise<ProgramResponse>
    try {
      call = await loading
    } catch (error) {
      loading = undefined
      throw error
    }
    return call(templateCall).catch((error: unknown) => {
      // An engine in this thread that failed may be gone: the next template starts a new one
      // (a worker host replaces its own worker).
      if (options.workerScript === undefined) loading = undefined
      throw error
    })
  }
  // Natively where this platform can, else in WebAssembly.
  const renderCall = async (call: TemplateCall): Promise<ProgramResponse> =>
    (await options.native?.(call)) ?? (await wasmCall(call))
  return {
    async render(request: RenderRequest): Promise<string> {
      if (!hasTemplateActions(request.text)) return request.text
      const call: TemplateCall = {
        text: request.text,
        dataJson: JSON.stringify(request.data),
        mode: request.mode,
        name: request.name
      }
      const response = await renderCall(call).catch((error: unknown) => {
        // A template stopped at a limit failed as a template: the caller names its file.
        if (error instanceof RenderLimitError) throw new TemplateError(error.message, 'execute')
        throw error
      })
      return resultOf(response, request, options.maxOutputBytes)
    }
  }
}

/**
 * Starts the engine in this thread (without a file system: templates read nothing) and returns
 * its render call, as the template worker serves it (src/adapters/render/worker.ts).
 */
export async function startTemplateProgram(
  program: CompiledGoWasm
): Promise<(requestJson: string) => Promise<ProgramResponse>> {
  const started = await startGoProgram(program, 'the Go template engine')
  const renderFn = started.lookup<RenderFunction>('tazunaRenderGoTemplate')
  if (renderFn === undefined) {
    throw new Error(`${program.wasm} did not register tazunaRenderGoTemplate`)
  }
  let stopped = false
  void started.exited.then(() => (stopped = true))
  return (requestJson) => {
    const call = JSON.parse(requestJson) as TemplateCall
    if (stopped) return Promise.reject(new RenderProgramStoppedError(started.output()))
    try {
      const result = renderFn(call.text, call.dataJson, call.mode, call.name)
      // Go answers nothing when it stopped during the call (ran out of memory, crashed).
      if (result === undefined) {
        stopped = true
        return Promise.reject(new RenderProgramStoppedError(started.output()))
      }
      return Promise.resolve(result)
    } catch (error) {
      const detail = started.output()
      if (stopped || /out of memory/.test(detail)) {
        return Promise.reject(new RenderProgramStoppedError(detail))
      }
      return Promise.reject(
        new Error(
          `the Go template engine failed: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
          { cause: error }
        )
      )
    }
  }
}

function threadCall(
  render: (requestJson: string) => Promise<ProgramResponse>,
  maxMemoryBytes: number | undefined
): (call: TemplateCall) => Promise<ProgramResponse> {
  return (call) =>
    render(JSON.stringify(call)).catch((error: unknown) => {
      if (!(error instanceof RenderProgramStoppedError)) throw error
      throw stoppedError(error.outOfMemory, error.message, maxMemoryBytes)
    })
}

function workerCall(host: ProgramHost): (call: TemplateCall) => Promise<ProgramResponse> {
  return (call) => host.call(JSON.stringify(call))
}

function resultOf(response: ProgramResponse, request: RenderRequest, maxOutput?: number): string {
  if (response.error === undefined) {
    const output = response.output ?? ''
    if (maxOutput !== undefined && output.length > maxOutput) {
      throw new TemplateError(
        `the rendered output is longer than max-render-bytes (${maxOutput} bytes)`,
        'execute'
      )
    }
    return output
  }
  const phase = response.phase === 'parse' ? 'parse' : 'execute'
  throw new TemplateError(response.error, phase, templateErrorLine(response.error, request.name))
}
