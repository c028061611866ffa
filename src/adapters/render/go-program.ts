/**
 * One render program (src/go/render/module/cmd, docs/renderers.md) started in the current
 * thread: the main thread, or a render worker (src/adapters/render/worker.ts). The Go side reads
 * the disk through a bridge to node:fs that only reads, and refuses what resolves outside the
 * repository (src/config/confinement.ts) exactly as the file adapter does.
 */
import fs from 'node:fs'
import {
  confinementError,
  isWithin,
  owningPolicy,
  type PathPolicy,
  type ResolvedPolicy
} from '../../config/confinement.js'
import type { JsonObject } from '../../go/yaml.js'
import { resolvePolicy, resolveReal } from '../files/real-path.js'
import { startGoProgram, type CompiledGoWasm, type GoFs } from './go-wasm.js'

/** What a program answers: the rendered text, or Go's error text, or its versions. */
export interface ProgramResponse {
  output?: string
  /** The file-system questions the render asked, when the program tells (src/adapters/render/reuse.ts). */
  reads?: [string, string][]
  /** The output's documents decoded as Tazuna decodes them, when asked (the native program). */
  documents?: (JsonObject | null)[]
  /**
   * The Helm program's, with a successful render: the functions the release's chart calls whose
   * result is not a function of the render's inputs, an empty list when none
   * (docs/renderers.md#volatile-templates).
   */
  volatile?: string[]
  error?: string
  versions?: Record<string, string>
  /** The Go template engine's: where a template failed, `parse` or `execute`. */
  phase?: string
}

/** Sends one request (JSON) to a started program. */
export type ProgramCall = (requestJson: string) => Promise<ProgramResponse>

/**
 * Starts the program; reads are confined by `confine()` as it stands at each read (undefined:
 * anywhere). A read refused for confinement reaches Go as "permission denied"; the answer's
 * error then says why.
 */
export async function startRenderProgram(
  program: CompiledGoWasm,
  confine: (() => readonly PathPolicy[] | undefined) | undefined
): Promise<ProgramCall> {
  const refusals: string[] = []
  const render = await loadRenderCall(program, readOnlyFs(confine, refusals))
  return async (request) => {
    const seen = refusals.length
    const response = JSON.parse(await render(request)) as ProgramResponse
    if (response.error !== undefined) {
      const why = refusals.slice(seen).find((r) => response.error?.includes(r.split(' ')[0] ?? ''))
      if (why) response.error = `${response.error}: ${why}`
    }
    return response
  }
}

type RenderCall = (requestJson: string) => Promise<string>

/**
 * The program stopped (Go exited: it crashed, or ran out of the memory it may use): it serves
 * no more calls, and its thread should be replaced.
 */
export class RenderProgramStoppedError extends Error {
  override name = 'RenderProgramStoppedError'
  /** Go said it ran out of memory (input max-render-memory). */
  readonly outOfMemory: boolean
  /** `output`: what the program wrote; the message shows Go's fatal error or panic from it. */
  constructor(output: string) {
    // Renders before may have logged (kustomize's deprecation warnings): Go's last words win.
    const fatal = output.search(/^(fatal error|panic)\b/m)
    const last = fatal < 0 ? output : output.slice(fatal)
    const tail = last.split('\n').slice(0, 3).join(' ').slice(0, 500)
    super(`the render module stopped${tail ? `: ${tail}` : ''}`)
    this.outOfMemory = /out of memory/.test(last)
  }
}

async function loadRenderCall(compiled: CompiledGoWasm, fs: GoFs): Promise<RenderCall> {
  const program = await startGoProgram(compiled, 'the render module', fs)
  const render = program.lookup<RenderCall>('tazunaRender')
  if (render === undefined) throw new Error(`${compiled.wasm} did not register tazunaRender`)
  let stopped = false
  const exited = program.exited.then(() => {
    stopped = true
    throw new RenderProgramStoppedError(program.output())
  })
  exited.catch(() => undefined)
  return async (request) => {
    if (stopped) return exited
    try {
      // A call the program can no longer answer ends when the program does.
      return await Promise.race([render(request), exited])
    } catch (error) {
      if (error instanceof RenderProgramStoppedError) throw error
      const detail = program.output()
      throw new Error(
        `the render module failed: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
        { cause: error }
      )
    }
  }
}

type Callback = (error: NodeJS.ErrnoException | null, ...results: unknown[]) => void

/**
 * node:fs for Go's syscall package, reads only: opening for writing and every call that changes
 * the disk fail with EROFS; a path that resolves outside the policy fails with EACCES (and the
 * reason is kept in `refusals` for the error message).
 */
function readOnlyFs(
  confine: (() => readonly PathPolicy[] | undefined) | undefined,
  refusals: string[]
): GoFs {
  const { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND } = fs.constants
  const writeFlags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND
  // By content: a render worker gets the policies as copies with every request.
  const resolved = new Map<string, Promise<ResolvedPolicy>>()
  const resolve = (policy: PathPolicy): Promise<ResolvedPolicy> => {
    const key = JSON.stringify(policy)
    let real = resolved.get(key)
    if (real === undefined) {
      real = resolvePolicy(policy).then((done) => ({ written: policy, resolved: done }))
      resolved.set(key, real)
    }
    return real
  }
  const guard = async (
    file: string,
    metadataOnly = false
  ): Promise<NodeJS.ErrnoException | undefined> => {
    const policies = confine?.()
    if (policies === undefined) return undefined
    const real = await resolveReal(file)
    const all = await Promise.all(policies.map(resolve))
    for (const { resolved: policy } of all) {
      // Resolving symlinks (krusty does, for every path) looks at each ancestor of the root.
      const dirs = [policy.root, ...policy.allowed]
      if (metadataOnly && dirs.some((dir) => isWithin(dir, real))) return undefined
      if (confinementError(file, real, policy) === undefined) return undefined
    }
    const owner = owningPolicy(file, all)
    const message =
      (owner && confinementError(file, real, owner.resolved)?.message) ??
      `${file}: no repository to read from`
    refusals.push(`${file}: ${message}`)
    return Object.assign(new Error(message), { code: 'EACCES' })
  }
  const guarded =
    (fn: (file: string, ...rest: unknown[]) => void, metadataOnly = false) =>
    (file: string, ...rest: unknown[]): void => {
      const callback = rest.at(-1) as Callback
      void guard(file, metadataOnly).then(
        (error) => (error ? callback(error) : fn(file, ...rest)),
        callback
      )
    }
  const readOnly = (...args: unknown[]): void => {
    ;(args.at(-1) as Callback)(Object.assign(new Error('read-only'), { code: 'EROFS' }))
  }
  return {
    constants: fs.constants,
    open: guarded((file, flags, mode, callback) => {
      if (((flags as number) & writeFlags) !== 0) readOnly(callback)
      else fs.open(file, flags as number, mode as number, callback as Callback)
    }),
    stat: guarded((file, callback) => fs.stat(file, callback as Callback), true),
    lstat: guarded((file, callback) => fs.lstat(file, callback as Callback), true),
    readlink: guarded((file, callback) => fs.readlink(file, callback as Callback), true),
    readdir: guarded((file, callback) => fs.readdir(file, callback as Callback)),
    fstat: fs.fstat,
    read: fs.read,
    close: fs.close,
    fsync: (_fd: number, callback: Callback) => callback(null),
    ...Object.fromEntries(
      [
        'chmod',
        'chown',
        'fchmod',
        'fchown',
        'ftruncate',
        'lchown',
        'link',
        'mkdir',
        'rename',
        'rmdir',
        'symlink',
        'truncate',
        'unlink',
        'utimes'
      ].map((name) => [name, readOnly])
    )
  }
}
