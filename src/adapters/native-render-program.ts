/**
 * The kustomize render program built natively for Linux (docs/renderers.md#native-kustomize):
 * the same Go code as render-kustomize.wasm.br, run as a child process that answers one JSON
 * line per request on its standard output. It confines its own reads to the policies each
 * request carries (src/go/render/module/internal/confine); a render past render-timeout, or a
 * program past max-render-memory, ends the process, as a render worker is terminated.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { zstdDecompressSync } from 'node:zlib'
import type { PathPolicy } from '../config/confinement.js'
import { RenderProgramStoppedError, type ProgramResponse } from './go-render-program.js'
import { pendingCalls } from './pending-calls.js'

/** The native builds there are: Node's `process.arch` by Linux artifact suffix. */
const NATIVE_ARCHES: Readonly<Record<string, string>> = { x64: 'x64', arm64: 'arm64' }

/** The artifact's file name for this platform, or undefined where there is no native build. */
export function nativeKustomizeArtifact(
  platform: string = process.platform,
  arch: string = process.arch
): string | undefined {
  const suffix = NATIVE_ARCHES[arch]
  return platform === 'linux' && suffix ? `render-kustomize-linux-${suffix}.zst` : undefined
}

/**
 * The native kustomize program for this process, ready to run, or undefined: not on Linux
 * x64/arm64, or TAZUNA_RENDER_NATIVE=off (the WebAssembly program renders instead). The
 * compressed build is next to the bundle (dist/), or — running from a checkout — in the build
 * cache, built on first use; it is unpacked into a private directory of this process
 * (removed at exit), never into a shared cache another job could change under it.
 */
export async function locateNativeKustomize(
  env: Readonly<Record<string, string | undefined>>,
  codeDir: string,
  tempDir?: string
): Promise<string | undefined> {
  if (env.TAZUNA_RENDER_NATIVE === 'off') return undefined
  const artifact = nativeKustomizeArtifact()
  if (artifact === undefined) return undefined
  let packed = path.join(codeDir, artifact)
  if (!existsSync(packed)) {
    const build = path.join(codeDir, 'go/render/module/build.sh')
    if (!existsSync(build)) return undefined
    const { stdout } = await promisify(execFile)('bash', [build, 'kustomize', 'native'], {
      env: { ...env }
    })
    packed = path.join(stdout.trim(), artifact)
  }
  // In this thread, at once: 17 ms for krusty, where the thread pool's callbacks would wait
  // behind whatever the engine evaluates meanwhile.
  const bytes = zstdDecompressSync(readFileSync(packed))
  const dir = mkdtempSync(path.join(tempDir ?? tmpdir(), 'tazuna-render-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  const executable = path.join(dir, `render-kustomize-${randomBytes(4).toString('hex')}`)
  writeFileSync(executable, bytes, { mode: 0o700 })
  chmodSync(executable, 0o700)
  return executable
}

/** What a native program host needs: its limits, and where reads may resolve now. */
export interface NativeHostOptions {
  confine?: () => readonly PathPolicy[] | undefined
  timeoutMs?: number
  maxMemoryBytes?: number
  /** The error for a render stopped at the time limit. */
  timeoutError: (limitMs: number) => Error
  /** The error for a program that stopped (out of memory names the limit). */
  stoppedError: (outOfMemory: boolean, message: string) => Error
}

/**
 * The native program in a child process, started on the first call and again after a stop.
 * It answers calls concurrently (Go's own threads); a call past the time limit kills the
 * process and fails, and so do the other calls it was serving. The process holds this one
 * open only while a call is pending, and ends when this one does (its standard input closes).
 */
export function nativeProgramHost(executable: string, options: NativeHostOptions) {
  let child: ChildProcessWithoutNullStreams | undefined
  const hold = (on: boolean): void => {
    // The pipes are sockets (typed as plain streams): each holds the event loop while referenced.
    const handles = [child, child?.stdin, child?.stdout, child?.stderr] as (
      { ref(): void; unref(): void } | undefined
    )[]
    for (const handle of handles) {
      if (on) handle?.ref()
      else handle?.unref()
    }
  }
  const pending = pendingCalls(() => hold(false))
  const stop = (error: Error): void => {
    const stopped = child
    child = undefined
    pending.failAll(error)
    stopped?.kill('SIGKILL')
  }
  const start = (): ChildProcessWithoutNullStreams => {
    const max = options.maxMemoryBytes
    const started = spawn(executable, max === undefined ? [] : ['-max-memory', String(max)], {
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let stderr = ''
    started.stderr.setEncoding('utf8')
    // The last 64 KiB: a process serves many renders, and what it says last is why it stopped.
    started.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-65536)
    })
    createInterface({ input: started.stdout, crlfDelay: Infinity }).on('line', (line) => {
      let answer: ProgramResponse & { id?: number }
      try {
        answer = JSON.parse(line) as ProgramResponse & { id?: number }
      } catch {
        if (child === started)
          stop(new Error(`the render module answered garbage: ${line.slice(0, 200)}`))
        return
      }
      const { id, ...response } = answer
      if (id !== undefined) pending.settle(id)?.resolve(response)
    })
    started.stdin.on('error', () => undefined) // a broken pipe is reported by 'exit'
    started.on('error', (error) => {
      if (child === started) stop(new Error(`the render module could not start: ${error.message}`))
    })
    started.on('exit', (code, signal) => {
      if (child !== started) return
      const stopped = new RenderProgramStoppedError(
        stderr || `exit ${signal === null ? `code ${code}` : `signal ${signal}`}`
      )
      stop(options.stoppedError(stopped.outOfMemory, stopped.message))
    })
    return started
  }
  return {
    call(requestJson: string): Promise<ProgramResponse> {
      const target = (child ??= start())
      hold(true)
      const { id, answer } = pending.add(options.timeoutMs, () => {
        if (child === target) stop(options.timeoutError(options.timeoutMs!))
      })
      const policies = options.confine?.()
      const request = JSON.parse(requestJson) as object
      // documents: the program decodes its output for the engine (ProgramResponse.documents).
      const line = { ...request, id, documents: true, ...(policies ? { policies } : {}) }
      target.stdin.write(JSON.stringify(line) + '\n')
      return answer
    },
    busy: pending.size
  }
}
