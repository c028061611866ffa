/**
 * The render module (src/go/render/module, docs/renderers.md) for tests: its two WebAssembly
 * programs from the cache (scripts/test.sh builds them before jest starts; a first build takes
 * minutes, longer than one test may wait).
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { cacheDir } from '../cluster/tool-paths.js'
import { createGoRenderModule, type RenderProgram } from '../../src/adapters/render/module.js'
import { goWasmFilesIn, RENDER_PROGRAMS } from '../../src/adapters/render/go-wasm-files.js'
import type { GoWasmFiles } from '../../src/adapters/render/go-wasm.js'
import type { PathPolicy } from '../../src/config/confinement.js'
import type { RenderModule } from '../../src/render/ports.js'

const repo = join(import.meta.dirname, '..', '..')

/** A program's files, built into the cache when missing. */
export function renderModuleFiles(program: RenderProgram): GoWasmFiles {
  const dir = execFileSync('bash', [join(repo, 'src/go/render/module/build.sh'), program], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  }).trim()
  return goWasmFilesIn(dir, RENDER_PROGRAMS[program])
}

/**
 * The environment that points an engine built from source at the cached programs. It names
 * the cache too: the native kustomize program has no variable of its own and is found (or
 * built) under `$TAZUNA_ACTION_CACHE`, else under `~` — and a test that gives the engine a
 * HOME of its own would otherwise build it from scratch inside the test, for minutes.
 */
export function renderModuleEnv(): Record<string, string> {
  return {
    TAZUNA_ACTION_CACHE: cacheDir(),
    TAZUNA_RENDER_KUSTOMIZE_WASM: renderModuleFiles('kustomize').wasm,
    TAZUNA_RENDER_HELM_WASM: renderModuleFiles('helm').wasm
  }
}

let shared: RenderModule | undefined

/** One module per test file (loading costs about a second), optionally confined. */
export function testRenderModule(confine?: PathPolicy): RenderModule {
  if (confine !== undefined) {
    return createGoRenderModule({ locate: renderModuleFiles, confine: () => [confine] })
  }
  shared ??= createGoRenderModule({ locate: renderModuleFiles })
  return shared
}
