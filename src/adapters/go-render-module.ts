/**
 * The render module (src/go/render/module, docs/renderers.md) in this process: loaded on the
 * first kustomize or helmfile render, never by `check`. The Go side reads the disk through a
 * bridge to node:fs that only reads, and refuses what resolves outside the repository
 * (src/config/confinement.ts) exactly as the file adapter does.
 */
import fs from 'node:fs'
import { performance } from 'node:perf_hooks'
import { confinementError, isWithin, type PathPolicy } from '../config/confinement.js'
import {
  RenderModuleError,
  type HelmReleaseRender,
  type RenderModule,
  type RendererVersions
} from '../render/ports.js'
import { resolvePolicy, resolveReal } from './real-path.js'
import { startGoProgram, type GoFs, type GoWasmFiles } from './go-wasm.js'

type RenderCall = (requestJson: string) => Promise<string>

interface ModuleResponse {
  output?: string
  error?: string
  versions?: Record<string, string>
}

/** The two render programs (src/go/render/module/cmd): krusty, and the Helm SDK. */
export type RenderProgram = 'kustomize' | 'helm'

/** Where the programs' files are, and which reads they may make. */
export interface RenderModuleOptions {
  locate: (program: RenderProgram) => GoWasmFiles | Promise<GoWasmFiles>
  /**
   * Where reads may resolve: the policies of every engine sharing the module (a read is allowed
   * when one of them allows it); undefined: every path is readable (the renderers' own tests).
   */
  confine?: () => readonly PathPolicy[] | undefined
  /** Told once per program, when it has loaded, what it renders with and how long that took. */
  onLoad?: (versions: RendererVersions, loadMs: number) => void
}

/**
 * A RenderModule over the two WebAssembly programs, each loaded on its first render (a failure
 * to load is reported by that call and retried by the next): a repository of kustomize
 * manifests never loads Helm. Renders may overlap: each runs on its own goroutine.
 */
export function createGoRenderModule(options: RenderModuleOptions): RenderModule {
  const refusals: string[] = []
  const loading = new Map<RenderProgram, Promise<RenderCall>>()
  const loaded = new Map<RenderProgram, RendererVersions>()
  const load = async (program: RenderProgram): Promise<RenderCall> => {
    const started = performance.now()
    const files = await options.locate(program)
    const render = await loadRenderCall(files, readOnlyFs(options.confine, refusals))
    const response = JSON.parse(await render('{"op":"versions"}')) as ModuleResponse
    const versions = response.versions ?? {}
    loaded.set(program, versions)
    options.onLoad?.(versions, performance.now() - started)
    return render
  }
  const call = async (program: RenderProgram, request: object): Promise<ModuleResponse> => {
    let pending = loading.get(program)
    if (pending === undefined) loading.set(program, (pending = load(program)))
    let render: RenderCall
    try {
      render = await pending
    } catch (error) {
      loading.delete(program)
      throw error
    }
    const seen = refusals.length
    const response = JSON.parse(await render(JSON.stringify(request))) as ModuleResponse
    if (response.error !== undefined) {
      // A read refused for confinement reaches Go as "permission denied"; say why.
      const why = refusals.slice(seen).find((r) => response.error?.includes(r.split(' ')[0] ?? ''))
      throw new RenderModuleError(why ? `${response.error}: ${why}` : response.error)
    }
    return response
  }
  const merged = (): RendererVersions | undefined =>
    loaded.size === 0 ? undefined : Object.fromEntries([...loaded.values()].flatMap(Object.entries))
  return {
    kustomize: async (dir) =>
      (await call('kustomize', { op: 'kustomize', input: { dir } })).output ?? '',
    helm: async (release) =>
      (await call('helm', { op: 'helm', input: helmRequest(release) })).output ?? '',
    versions: async (): Promise<RendererVersions> => {
      await Promise.all(
        (['kustomize', 'helm'] as const).map((program) => call(program, { op: 'versions' }))
      )
      return merged() ?? {}
    },
    loaded: merged
  }
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

async function loadRenderCall(files: GoWasmFiles, fs: GoFs): Promise<RenderCall> {
  const program = await startGoProgram(files, 'the render module', fs)
  const render = program.lookup<RenderCall>('tazunaRender')
  if (render === undefined) throw new Error(`${files.wasm} did not register tazunaRender`)
  return async (request) => {
    try {
      return await render(request)
    } catch (error) {
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
  const resolved = new Map<PathPolicy, Promise<PathPolicy>>()
  const resolve = (policy: PathPolicy): Promise<PathPolicy> => {
    let real = resolved.get(policy)
    if (real === undefined) resolved.set(policy, (real = resolvePolicy(policy)))
    return real
  }
  const guard = async (
    file: string,
    metadataOnly = false
  ): Promise<NodeJS.ErrnoException | undefined> => {
    const policies = confine?.()
    if (policies === undefined) return undefined
    const real = await resolveReal(file)
    let refused: Error | undefined
    for (const policy of await Promise.all(policies.map(resolve))) {
      // Resolving symlinks (krusty does, for every path) looks at each ancestor of the root.
      const dirs = [policy.root, ...policy.allowed]
      if (metadataOnly && dirs.some((dir) => isWithin(dir, real))) return undefined
      refused = confinementError(file, real, policy)
      if (refused === undefined) return undefined
    }
    const message = refused?.message ?? `${file}: no repository to read from`
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
