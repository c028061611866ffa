/**
 * Where our WebAssembly programs' build artifacts live (src/go/build-go.sh): next to the
 * bundle in dist/ (put there by scripts/bundle-extra.sh), where an environment variable points,
 * or — running from a checkout — in the build cache, built on first use.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import type { GoWasmFiles } from './go-wasm.js'

/** One of our Go programs: its artifact name and where its build script is below src/. */
export interface GoWasmProgram {
  /** `gotemplate`, `render-kustomize` or `render-helm`: NAME.wasm.br and its glue. */
  name: string
  /** Its build script, relative to src/, and the script's arguments (running from source). */
  buildScript: string
  buildArgs?: readonly string[]
  /** An environment variable naming a .wasm to use instead. */
  override: string
  /** What errors call it. */
  what: string
}

/** The Go template engine (src/go/template). */
export const GO_TEMPLATE_PROGRAM: GoWasmProgram = {
  name: 'gotemplate',
  buildScript: 'go/template/engine/build.sh',
  override: 'TAZUNA_GOTEMPLATE_WASM',
  what: 'the Go template engine'
}

/** The render module's programs (src/go/render/module, docs/renderers.md). */
export const RENDER_PROGRAMS: Readonly<Record<'kustomize' | 'helm', GoWasmProgram>> = {
  kustomize: {
    name: 'render-kustomize',
    buildScript: 'go/render/module/build.sh',
    buildArgs: ['kustomize'],
    override: 'TAZUNA_RENDER_KUSTOMIZE_WASM',
    what: 'the render module (kustomize)'
  },
  helm: {
    name: 'render-helm',
    buildScript: 'go/render/module/build.sh',
    buildArgs: ['helm'],
    override: 'TAZUNA_RENDER_HELM_WASM',
    what: 'the render module (Helm)'
  }
}

/** Go's glue in dist/, shared by every program (scripts/bundle-extra.sh checks they agree). */
export const SHARED_WASM_EXEC = 'go-wasm_exec.js'

/**
 * The program's files in a directory laid out like a build-cache entry (NAME-wasm_exec.js) or
 * like dist/ (one shared go-wasm_exec.js).
 */
export function goWasmFilesIn(dir: string, program: GoWasmProgram): GoWasmFiles {
  const own = path.join(dir, `${program.name}-wasm_exec.js`)
  return {
    wasm: path.join(dir, `${program.name}.wasm.br`),
    wasmExec: existsSync(own) ? own : path.join(dir, SHARED_WASM_EXEC)
  }
}

/**
 * The program's files: its override variable (wasm_exec.js from the same directory, under our
 * name or Go's own), else next to the running code, else the build cache.
 */
export async function locateGoWasm(
  program: GoWasmProgram,
  env: Readonly<Record<string, string | undefined>>,
  codeDir: string
): Promise<GoWasmFiles> {
  const override = env[program.override]
  if (override) {
    const ours = path.join(path.dirname(override), `${program.name}-wasm_exec.js`)
    return {
      wasm: override,
      wasmExec: existsSync(ours) ? ours : path.join(path.dirname(override), 'wasm_exec.js')
    }
  }
  const bundled = goWasmFilesIn(codeDir, program)
  if (existsSync(bundled.wasm) && existsSync(bundled.wasmExec)) return bundled
  const build = path.join(codeDir, program.buildScript)
  if (!existsSync(build)) throw new Error(`${program.what} is missing from ${codeDir}`)
  const { stdout } = await promisify(execFile)('bash', [build, ...(program.buildArgs ?? [])], {
    env: { ...env }
  })
  return goWasmFilesIn(stdout.trim(), program)
}
