/**
 * Where the Go template engine's build artifacts live: next to the bundle in dist/ (put there
 * by scripts/bundle-extra.sh), or in the build cache that src/go/template/engine/build.sh prints.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { GoTemplateFiles } from './go-template-engine.js'

/** File name of the gzipped engine, in dist/ and in the build cache. */
export const GO_TEMPLATE_WASM = 'gotemplate.wasm.br'
/** File name of the matching wasm_exec.js, in dist/ and in the build cache. */
export const GO_TEMPLATE_WASM_EXEC = 'gotemplate-wasm_exec.js'

/** The engine files of a directory laid out like dist/ or a build-cache entry. */
export function goTemplateFilesIn(dir: string): GoTemplateFiles {
  return { wasm: join(dir, GO_TEMPLATE_WASM), wasmExec: join(dir, GO_TEMPLATE_WASM_EXEC) }
}

/**
 * The engine files for an explicit wasm path (`TAZUNA_GOTEMPLATE_WASM`): wasm_exec.js is taken
 * from the same directory, under our name or Go's own (`wasm_exec.js`).
 */
export function goTemplateFilesFor(wasm: string): GoTemplateFiles {
  const ours = join(dirname(wasm), GO_TEMPLATE_WASM_EXEC)
  return { wasm, wasmExec: existsSync(ours) ? ours : join(dirname(wasm), 'wasm_exec.js') }
}

/** The first directory of `dirs` that holds both engine files, if any. */
export function findGoTemplateFiles(dirs: readonly string[]): GoTemplateFiles | undefined {
  return dirs
    .map(goTemplateFilesIn)
    .find((files) => existsSync(files.wasm) && existsSync(files.wasmExec))
}
