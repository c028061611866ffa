/**
 * Starts one of our Go programs compiled to WebAssembly (src/go/build-go.sh) inside this
 * process: the Go template engine and the render module. Each program gets a private global
 * object, so neither wasm_exec.js (which defines `Go` and, when missing, a console-backed `fs`)
 * nor the program (which registers its functions there) touch Node's real globalThis.
 */
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { brotliDecompress, gunzip } from 'node:zlib'
import { withMemoryMaximum } from '../../go/wasm-memory.js'

/** Where a program's two build artifacts are. */
export interface GoWasmFiles {
  /** NAME.wasm.br (brotli), or a gzipped or uncompressed .wasm. */
  wasm: string
  /** Go's wasm_exec.js of the Go version that built `wasm`. */
  wasmExec: string
}

/**
 * A program read, unpacked and compiled, ready to start in any thread of this process: a render
 * worker receives it in its workerData, so the 21–79 MB of WebAssembly are decompressed and
 * compiled once, and V8 shares the compiled code (and its optimised tiers) between the threads.
 */
export interface CompiledGoWasm {
  /** The file it came from (for messages). */
  wasm: string
  /** A WebAssembly.Module. */
  module: object
  /** Go's wasm_exec.js of the same Go version. */
  glue: string
}

/** The `fs` object Go's syscall package calls (Node's callback API, as wasm_exec.js expects). */
export type GoFs = Record<string, unknown>

/** A started program: the global it registered its functions on, and what it wrote. */
export interface GoProgram {
  /** Settles when the program has stopped (Go's exit: a crash, such as running out of memory). */
  exited: Promise<void>
  /** Reads a function the program registered (undefined when it did not). */
  lookup<T>(name: string): T | undefined
  /** What the Go runtime wrote to stdout/stderr (a crash, or a library's log lines). */
  output(): string
}

interface GoGlobal {
  Go?: new () => { importObject: object; run(instance: object): Promise<void> }
  fs?: GoFs & { writeSync?(fd: number, buf: Uint8Array): number }
}

/** The WebAssembly calls used here (TypeScript declares WebAssembly only in its DOM libs). */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<object>
  instantiate(module: object, imports: object): Promise<object>
}
const { WebAssembly: webAssembly } = globalThis as unknown as { WebAssembly: WebAssemblyApi }

/**
 * Reads, decompresses and compiles the program (off the thread where Node can: the file reads
 * and brotli run in its thread pool). `what` names the program in errors. With `maxMemoryBytes`
 * the program's memory cannot grow past it (src/go/wasm-memory.ts).
 */
export async function compileGoWasm(
  files: GoWasmFiles,
  what: string,
  maxMemoryBytes?: number
): Promise<CompiledGoWasm> {
  // Both reads settle before either failure is reported: the program's own file first, so
  // that the error does not depend on which read the thread pool finished first.
  const [wasmRead, glueRead] = await Promise.allSettled([
    readFile(files.wasm),
    readFile(files.wasmExec, 'utf8')
  ])
  const failed = [wasmRead, glueRead].find((read) => read.status === 'rejected')
  if (failed !== undefined) {
    const error = failed.reason as Error
    throw new Error(`cannot read ${what} (${files.wasm}): ${error.message}`, { cause: error })
  }
  const packed = (wasmRead as PromiseFulfilledResult<Buffer>).value
  const glue = (glueRead as PromiseFulfilledResult<string>).value
  const bytes = await unpackWasm(files.wasm, packed)
  const module = await webAssembly.compile(
    maxMemoryBytes === undefined ? bytes : withMemoryMaximum(bytes, maxMemoryBytes)
  )
  return { wasm: files.wasm, module, glue }
}

/**
 * Instantiates and runs the program (compiling it first when given its files). `fs` is the file
 * system it sees (absent: none, as in wasm_exec.js's own stub); writes to stdout/stderr are
 * kept, never printed, because stdout carries command results. `what` names the program in
 * errors.
 */
export async function startGoProgram(
  program: GoWasmFiles | CompiledGoWasm,
  what: string,
  fs?: GoFs
): Promise<GoProgram> {
  const { module, glue } = 'module' in program ? program : await compileGoWasm(program, what)
  const written: string[] = []
  const decoder = new TextDecoder()
  const capture = (_fd: number, buf: Uint8Array): number => {
    written.push(decoder.decode(buf))
    return buf.length
  }
  const own: GoGlobal & Record<string | symbol, unknown> = {
    fs: fs === undefined ? undefined : withCapturedOutput(fs, capture)
  }
  const goGlobal = new Proxy(own, {
    get: (target, key) => (key in target ? target[key] : (Reflect.get(globalThis, key) as unknown))
  })
  // Compiled with this realm's Function (not node:vm) so that WebAssembly and Uint8Array in the
  // glue are the ones this module uses: its instanceof checks fail across realms (jest runs
  // modules in a vm context).
  // The glue also names `fs` bare where Go writes to stdout/stderr (a crash report, a
  // library's log line): that `fs` is this parameter, so those writes are captured too instead
  // of failing with "fs is not defined" and hiding why the program stopped.
  // Its `console` (the exit code of a program that stopped) is kept the same way: stdout and
  // stderr carry the command's results.
  const quiet = (...parts: unknown[]): void => void written.push(`${parts.join(' ')}\n`)
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const defineGo = new Function('globalThis', 'fs', 'console', glue) as (
    global: object,
    fs: object,
    console: object
  ) => void
  defineGo(goGlobal, { writeSync: capture }, { log: quiet, warn: quiet, error: quiet })
  if (own.fs) own.fs.writeSync = capture
  if (own.Go === undefined) throw new Error(`the glue of ${program.wasm} did not define Go`)
  const go = new own.Go()
  const instance = await webAssembly.instantiate(module, go.importObject)
  const exited = go.run(instance).then(
    () => undefined,
    () => undefined
  )
  return {
    exited,
    lookup: <T>(name: string) => own[name] as T | undefined,
    output: () => written.join('').trim()
  }
}

type WriteCallback = (error: Error | null, written?: number) => void

/** `fs` with the standard streams (fd 1 and 2) going to `capture` instead of the terminal. */
function withCapturedOutput(fs: GoFs, capture: (fd: number, buf: Uint8Array) => number): GoFs {
  const write = fs.write as ((...args: unknown[]) => void) | undefined
  return {
    ...fs,
    writeSync: capture,
    write(
      fd: number,
      buf: Uint8Array,
      offset: number,
      length: number,
      position: unknown,
      callback: WriteCallback
    ) {
      if (fd === 1 || fd === 2) callback(null, capture(fd, buf.subarray(offset, offset + length)))
      else if (write) write(fd, buf, offset, length, position, callback)
      else callback(Object.assign(new Error('EBADF'), { code: 'EBADF' }))
    }
  }
}

/** Brotli has no magic number, so the file name says it; gzip and raw wasm have theirs. */
async function unpackWasm(path: string, packed: Uint8Array): Promise<Uint8Array> {
  if (path.endsWith('.br')) return promisify(brotliDecompress)(packed)
  return packed[0] === 0x1f && packed[1] === 0x8b ? promisify(gunzip)(packed) : packed
}
