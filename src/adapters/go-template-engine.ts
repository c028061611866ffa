/**
 * Loads the WebAssembly build of src/go/template/engine into this process. The engine is loaded
 * at most once, and only when a template actually contains an action: text without `{{`
 * renders to itself (as in Go), which keeps the cold start of `check` on plain files near zero.
 */
import {
  hasTemplateActions,
  TemplateError,
  templateErrorLine,
  type RenderRequest,
  type TemplateEngine
} from '../go/template/engine.js'
import { startGoProgram, type GoWasmFiles } from './go-wasm.js'

/** Where the engine's two build artifacts are (see src/go/template/engine/build.sh). */
export type GoTemplateFiles = GoWasmFiles

type RenderFunction = (
  text: string,
  dataJson: string,
  mode: string,
  name: string
) => { output?: string; error?: string; phase?: string }

/**
 * A TemplateEngine over the Go WebAssembly build. `locate` is called on the first render that
 * needs Go; a failure to locate or load is reported by that render (and retried by the next).
 */
export function createGoTemplateEngine(
  locate: () => GoTemplateFiles | Promise<GoTemplateFiles>
): TemplateEngine {
  let loading: Promise<RenderFunction> | undefined
  return {
    async render(request: RenderRequest): Promise<string> {
      if (!hasTemplateActions(request.text)) return request.text
      loading ??= Promise.resolve(locate()).then(loadRenderFunction)
      let renderFn: RenderFunction
      try {
        renderFn = await loading
      } catch (error) {
        loading = undefined
        throw error
      }
      return callRender(renderFn, request)
    }
  }
}

function callRender(renderFn: RenderFunction, request: RenderRequest): string {
  const result = renderFn(request.text, JSON.stringify(request.data), request.mode, request.name)
  if (result.error === undefined) return result.output ?? ''
  const phase = result.phase === 'parse' ? 'parse' : 'execute'
  throw new TemplateError(result.error, phase, templateErrorLine(result.error, request.name))
}

/** Starts the engine (without a file system: templates read nothing) and finds its function. */
async function loadRenderFunction(files: GoTemplateFiles): Promise<RenderFunction> {
  const program = await startGoProgram(files, 'the Go template engine')
  const renderFn = program.lookup<RenderFunction>('tazunaRenderGoTemplate')
  if (renderFn === undefined) {
    throw new Error(`${files.wasm} did not register tazunaRenderGoTemplate`)
  }
  return (...args) => {
    try {
      return renderFn(...args)
    } catch (error) {
      const detail = program.output()
      throw new Error(
        `the Go template engine failed: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
        { cause: error }
      )
    }
  }
}
