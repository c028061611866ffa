/**
 * The render programs built natively for Linux (docs/renderers.md#native-programs): the same Go
 * code as render-kustomize.wasm.br and render-helm.wasm.br, each run as a child process that
 * answers one JSON line per request on its standard output. It confines its own reads to the
 * policies each request carries (src/go/render/module/internal/confine); a render past
 * render-timeout, or a program past max-render-memory, ends the process, as a render worker is
 * terminated.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { accessSync, chmodSync, constants, existsSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { zstdDecompressSync } from 'node:zlib'
import type { PathPolicy } from '../../config/confinement.js'
import { RenderProgramStoppedError, type ProgramResponse } from './go-program.js'
import { pendingCalls } from './pending-calls.js'

/** The programs of the render module (src/go/render/module/cmd): krusty, and the Helm SDK. */
export type RenderProgram = 'kustomize' | 'helm'

/** The native builds there are: Node's `process.arch` by Linux artifact suffix. */
const NATIVE_ARCHES: Readonly<Record<string, string>> = { x64: 'x64', arm64: 'arm64' }

/** The program's native artifact for this platform, or undefined where there is no native build. */
export function nativeArtifact(
  program: RenderProgram,
  platform: string = process.platform,
  arch: string = process.arch
): string | undefined {
  const suffix = NATIVE_ARCHES[arch]
  return platform === 'linux' && suffix ? `render-${program}-linux-${suffix}.zst` : undefined
}

/**
 * The command line's cache of unpacked programs: `$XDG_CACHE_HOME/tazuna-action`, else
 * `~/.cache/tazuna-action` (where it also keeps V8's compiled code of the bundle).
 */
export function userCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const absolute = (dir: string | undefined) =>
    dir !== undefined && path.isAbsolute(dir) ? dir : undefined
  const base = absolute(env.XDG_CACHE_HOME) ?? path.join(absolute(env.HOME) ?? homedir(), '.cache')
  return path.join(base, 'tazuna-action')
}

/**
 * The program built natively for this process, ready to run, or undefined: not on Linux
 * x64/arm64, or TAZUNA_RENDER_NATIVE=off (the WebAssembly program renders instead). The
 * compressed build is next to the bundle (dist/), or — running from a checkout — in the build
 * cache, built on first use. With `cacheDir` (the command line's user cache,
 * docs/renderers.md#native-programs) it is unpacked once per compressed build and kept there,
 * verified on every use; otherwise (the action) into a private directory of this process
 * (removed at exit), never into a cache shared with other jobs.
 */
export async function locateNativeProgram(
  program: RenderProgram,
  env: Readonly<Record<string, string | undefined>>,
  codeDir: string,
  tempDir?: string,
  cacheDir?: string
): Promise<string | undefined> {
  const shipped = shippedBuild(program, env, codeDir)
  if (shipped === undefined) return undefined
  let packed = shipped.packed
  if (!existsSync(packed)) {
    const build = path.join(codeDir, 'go/render/module/build.sh')
    if (!existsSync(build)) return undefined
    const { stdout } = await promisify(execFile)('bash', [build, program, 'native'], {
      env: { ...env }
    })
    packed = path.join(stdout.trim(), shipped.artifact)
  }
  if (cacheDir !== undefined) {
    const cached = await cachedProgram(program, packed, cacheDir, env).catch(() => undefined)
    if (cached !== undefined) return cached
  }
  const executable = privatePlace(program, tempDir)
  if (!(await unpackWithCommand(packed, executable, env))) unpackInThisThread(packed, executable)
  chmodSync(executable, 0o700)
  return executable
}

/**
 * The native program unpacked ahead of its start by the `zstd` command, in its own process,
 * into a private directory as locateNativeProgram would; undefined where that would cost this
 * thread (no `zstd` command: locateNativeProgram unpacks here when a render needs it) and from
 * a checkout (the build is made on first use). The action asks for it; the command line, whose
 * cache unpacks once per build, does not (engine-ports.ts). On a runner the command decodes on
 * another core while the lock and the State read are waited for
 * (docs/renderers.md#unpacked-ahead).
 */
export async function unpackAhead(
  program: RenderProgram,
  env: Readonly<Record<string, string | undefined>>,
  codeDir: string,
  tempDir?: string
): Promise<string | undefined> {
  const packed = shippedBuild(program, env, codeDir)?.packed
  if (
    packed === undefined ||
    !existsSync(packed) ||
    commandOnPath('zstd', env.PATH ?? '') === undefined
  )
    return undefined
  const executable = privatePlace(program, tempDir)
  if (!(await unpackWithCommand(packed, executable, env))) return undefined
  chmodSync(executable, 0o700)
  return executable
}

/** Where the compressed native build for this platform ships; undefined when none is used. */
function shippedBuild(
  program: RenderProgram,
  env: Readonly<Record<string, string | undefined>>,
  codeDir: string
): { artifact: string; packed: string } | undefined {
  if (env.TAZUNA_RENDER_NATIVE === 'off') return undefined
  const artifact = nativeArtifact(program)
  return artifact === undefined ? undefined : { artifact, packed: path.join(codeDir, artifact) }
}

/** A name for the program in a directory of this process's own, removed at its exit. */
function privatePlace(program: RenderProgram, tempDir: string | undefined): string {
  const dir = mkdtempSync(path.join(tempDir ?? tmpdir(), 'tazuna-render-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  return path.join(dir, `render-${program}-${randomBytes(4).toString('hex')}`)
}

/**
 * The program unpacked in `cacheDir`, under the sha256 of its compressed build: used when its
 * bytes still have the sha256 recorded when it was unpacked, otherwise (absent, cut short,
 * changed) unpacked again. Hashing Helm's 45 MB took 0.05–0.37 s of this thread on every run,
 * so the record also holds the file's identity as the file system keeps it (device, inode,
 * size, modification and change times in nanoseconds): while that is the same, no write has
 * reached the file since it was hashed, and it is used without hashing it again; any other
 * identity is hashed and, when the bytes are still right, recorded. Unpacked beside its place
 * and renamed into it, the record after it, so that a process racing this one sees a whole
 * program or none and renames the same bytes. Rejects when the cache cannot be written (the
 * caller unpacks privately then).
 */
async function cachedProgram(
  program: RenderProgram,
  packed: string,
  cacheDir: string,
  env: Readonly<Record<string, string | undefined>>
): Promise<string> {
  const dir = path.join(cacheDir, 'native', await packedDigest(packed, cacheDir))
  const executable = path.join(dir, `render-${program}`)
  const digestFile = `${executable}.sha256`
  let recorded: { digest: string; identity?: string } | undefined
  try {
    const [digest = '', identity] = readFileSync(digestFile, 'utf8').split('\n')
    recorded = { digest, ...(identity ? { identity } : {}) }
  } catch {
    // not unpacked yet
  }
  const record = (digest: string, file: string) => `${digest}\n${identityOf(file)}\n`
  if (recorded !== undefined) {
    const now = identityOf(executable)
    if (now !== undefined && now === recorded.identity) return executable
    if ((await sha256Of(executable).catch(() => '')) === recorded.digest) {
      // Touched (copied back, a new inode) but whole: recorded as it is now.
      replaceFile(digestFile, record(recorded.digest, executable))
      return executable
    }
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const partial = path.join(dir, `.render-${program}-${randomBytes(6).toString('hex')}`)
  try {
    if (!(await unpackWithCommand(packed, partial, env))) unpackInThisThread(packed, partial)
    chmodSync(partial, 0o700)
    const digest = await sha256Of(partial)
    renameSync(partial, executable)
    replaceFile(digestFile, record(digest, executable))
  } finally {
    rmSync(partial, { force: true })
  }
  return executable
}

/**
 * The sha256 of a compressed build, remembered in `cacheDir/native/builds` by the build's file
 * identity (as cachedProgram's record): a build no write has reached since it was hashed is
 * not hashed again (Helm's 8.5 MB and krusty's 4 MB on every run otherwise).
 */
async function packedDigest(packed: string, cacheDir: string): Promise<string> {
  const identity = identityOf(packed)
  const index = path.join(cacheDir, 'native', 'builds')
  let lines: string[] = []
  try {
    lines = readFileSync(index, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
  } catch {
    // none remembered yet
  }
  const known = lines.find((l) => l.startsWith(`${identity}\t`))
  if (identity !== undefined && known !== undefined) return known.slice(identity.length + 1)
  const digest = await sha256Of(packed)
  if (identity !== undefined) {
    mkdirSync(path.dirname(index), { recursive: true, mode: 0o700 })
    // The newest builds only: an entry per build this user ran, a line each.
    replaceFile(index, [...lines.slice(-31), `${identity}\t${digest}`].join('\n') + '\n')
  }
  return digest
}

/** A file's identity as the file system keeps it, or undefined when there is no such file. */
function identityOf(file: string): string | undefined {
  try {
    const s = statSync(file, { bigint: true })
    return `${s.dev}:${s.ino} ${s.size} ${s.mtimeNs} ${s.ctimeNs}`
  } catch {
    return undefined
  }
}

/** Writes `file` whole or not at all: beside it under a random name, then renamed into it. */
function replaceFile(file: string, text: string): void {
  const partial = `${file}.${randomBytes(6).toString('hex')}`
  try {
    writeFileSync(partial, text)
    renameSync(partial, file)
  } finally {
    rmSync(partial, { force: true })
  }
}

/**
 * The sha256 of a file, hex, read in pieces into one buffer: a program is tens of MB, and a
 * stream's pieces would stay allocated until the next collection (+32 MiB of peak memory).
 */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(1 << 20)
  const handle = await open(file, 'r')
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length)
      if (bytesRead === 0) break
      hash.update(buffer.subarray(0, bytesRead))
    }
  } finally {
    await handle.close()
  }
  return hash.digest('hex')
}

/**
 * Unpacks with the `zstd` command, where the runner has one (GitHub's Linux images do): it
 * decodes in its own process while the engine's thread goes on, at about twice the speed of
 * Node's binding, and writes the file in pieces (Helm's 36 MB in 0.11 s, where this thread took
 * 0.25 s to decode and 0.2 s more to write it in one piece; docs/renderers.md#native-programs).
 * False when there is no such command or it fails: this thread unpacks then, and reports a
 * damaged build itself.
 */
async function unpackWithCommand(
  packed: string,
  executable: string,
  env: Readonly<Record<string, string | undefined>>
): Promise<boolean> {
  const zstd = commandOnPath('zstd', env.PATH ?? '')
  if (zstd === undefined) return false
  try {
    await promisify(execFile)(zstd, ['-d', '-q', '-f', '-o', executable, '--', packed], {
      env: { ...env }
    })
    return true
  } catch {
    rmSync(executable, { force: true })
    return false
  }
}

/**
 * The command's file in the first absolute directory of `searchPath` that has it: an empty or
 * relative entry would find it in the working directory, a checkout a pull request controls.
 */
export function commandOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue
    const file = path.join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      if (statSync(file).isFile()) return file
    } catch {
      // not here
    }
  }
  return undefined
}

/**
 * Unpacks in this thread, at once, where the thread pool's callbacks would wait behind whatever
 * the engine evaluates meanwhile. Into one buffer of the frame's size: zstd then decodes in a
 * single pass, without its 8 MiB window and a copy of the 11 MB out of 16 KiB pieces (42 ms
 * and +11 MiB of peak memory instead of 110 ms and +25 MiB, docs/benchmarks.md).
 */
function unpackInThisThread(packed: string, executable: string): void {
  const packedBytes = readFileSync(packed)
  const size = zstdContentSize(packedBytes)
  const bytes = zstdDecompressSync(packedBytes, size ? { chunkSize: size } : {})
  writeFileSync(executable, bytes, { mode: 0o700 })
}

/**
 * The content size a zstd frame's header declares (RFC 8878, section 3.1.1.1), or undefined:
 * not a zstd frame, or one that does not say (a streamed one). Frames the build writes say.
 */
export function zstdContentSize(frame: Uint8Array): number | undefined {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength)
  if (frame.byteLength < 5 || view.getUint32(0, true) !== 0xfd2fb528) return undefined
  const descriptor = view.getUint8(4)
  const sizeFlag = descriptor >> 6
  const singleSegment = (descriptor & 0x20) !== 0
  const dictionaryFlag = descriptor & 3
  const dictionaryBytes = dictionaryFlag === 3 ? 4 : dictionaryFlag
  const sizeBytes = sizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << sizeFlag
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryBytes
  if (sizeBytes === 0 || frame.byteLength < at + sizeBytes) return undefined
  switch (sizeBytes) {
    case 1:
      return view.getUint8(at)
    case 2:
      return view.getUint16(at, true) + 256
    case 4:
      return view.getUint32(at, true)
    default: {
      const size = view.getBigUint64(at, true)
      return size <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(size) : undefined
    }
  }
}

/**
 * The programs running, ended when the engine's process exits: a render no call waits for any
 * more (RenderModule.letGo) must not outlive the engine, finishing on the machine's cores after
 * the command has returned. One listener for all of them.
 */
const running = new Set<ChildProcessWithoutNullStreams>()
process.once('exit', () => {
  for (const program of running) program.kill('SIGKILL')
})

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
    running.add(started)
    started.on('exit', (code, signal) => {
      running.delete(started)
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
    busy: pending.size,
    letGo: () => hold(false)
  }
}
