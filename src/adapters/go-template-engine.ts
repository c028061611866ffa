/**
 * Loads the WebAssembly build of src/go/template/engine into this process. The engine is loaded
 * at most once, and only when a template actually contains an action: text without `{{`
 * renders to itself (as in Go), which keeps the cold start of `check` on plain files near zero.
 */
import { readFile } from 'node:fs/promises'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import {
  hasTemplateActions,
  TemplateError,
  templateErrorLine,
  type RenderRequest,
  type TemplateEngine
} from '../go/template/engine.js'

/** Where the engine's two build artifacts are (see src/go/template/engine/build.sh). */
export interface GoTemplateFiles {
  /** gotemplate.wasm.br (brotli), or a gzipped or uncompressed .wasm. */
  wasm: string
  /** Go's wasm_exec.js of the Go version that built `wasm`. */
  wasmExec: string
}

type RenderFunction = (
  text: string,
  dataJson: string,
  mode: string,
  name: string
) => { output?: string; error?: string; phase?: string }

/** The names wasm_exec.js and the Go program read or write on their global object. */
interface GoGlobal {
  Go?: new () => GoInstance
  fs?: { writeSync(fd: number, buf: Uint8Array): number }
  tazunaRenderGoTemplate?: RenderFunction
}

interface GoInstance {
  importObject: object
  run(instance: object): Promise<void>
}

/** The one WebAssembly call used here (TypeScript declares WebAssembly only in its DOM libs). */
interface WebAssemblyApi {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: object }>
}
const { WebAssembly: webAssembly } = globalThis as unknown as { WebAssembly: WebAssemblyApi }

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

/**
 * Instantiates the Go program against a private global object, so that neither wasm_exec.js
 * (which defines `Go` and, when missing, a console-backed `fs`) nor the program (which
 * registers its function) touch Node's real globalThis. Writes the Go runtime makes to its
 * stdout/stderr (only a crash would) are kept for the error message instead of polluting
 * stdout, which carries command results.
 */
async function loadRenderFunction(files: GoTemplateFiles): Promise<RenderFunction> {
  let glue: string
  let packed: Buffer
  try {
    packed = await readFile(files.wasm)
    glue = await readFile(files.wasmExec, 'utf8')
  } catch (error) {
    throw new Error(
      `cannot read the Go template engine (${files.wasm}): ${(error as Error).message}`,
      { cause: error }
    )
  }
  const own: GoGlobal & Record<string | symbol, unknown> = { fs: undefined }
  const goGlobal = new Proxy(own, {
    get: (target, key) => (key in target ? target[key] : (Reflect.get(globalThis, key) as unknown))
  })
  // Compiled with this realm's Function (not node:vm) so that WebAssembly and Uint8Array in the
  // glue are the ones this module uses: its instanceof checks fail across realms (jest runs
  // modules in a vm context).
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const defineGo = new Function('globalThis', glue) as (global: object) => void
  defineGo(goGlobal)
  const crashOutput: string[] = []
  if (own.fs) own.fs.writeSync = captureWrites(crashOutput)
  if (own.Go === undefined) throw new Error(`${files.wasmExec} did not define Go`)
  const go = new own.Go()
  const bytes = unpackWasm(files.wasm, packed)
  const { instance } = await webAssembly.instantiate(bytes, go.importObject)
  void go.run(instance)
  const renderFn = own.tazunaRenderGoTemplate
  if (renderFn === undefined) {
    throw new Error(`${files.wasm} did not register tazunaRenderGoTemplate`)
  }
  return (...args) => {
    try {
      return renderFn(...args)
    } catch (error) {
      const detail = crashOutput.join('').trim()
      throw new Error(
        `the Go template engine failed: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
        { cause: error }
      )
    }
  }
}

function captureWrites(sink: string[]): (fd: number, buf: Uint8Array) => number {
  const decoder = new TextDecoder()
  return (_fd, buf) => {
    sink.push(decoder.decode(buf))
    return buf.length
  }
}

/** Brotli has no magic number, so the file name says it; gzip and raw wasm have theirs. */
function unpackWasm(path: string, packed: Uint8Array): Uint8Array {
  if (path.endsWith('.br')) return brotliDecompressSync(packed)
  return packed[0] === 0x1f && packed[1] === 0x8b ? gunzipSync(packed) : packed
}
