/**
 * The render module (src/go/render/module, docs/renderers.md) for tests: its WebAssembly build
 * from the cache (scripts/test.sh builds it before jest starts; a first build takes minutes).
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { createGoRenderModule } from '../../src/adapters/go-render-module.js'
import { goWasmFilesIn, RENDER_MODULE_PROGRAM } from '../../src/adapters/go-wasm-files.js'
import type { GoWasmFiles } from '../../src/adapters/go-wasm.js'
import type { PathPolicy } from '../../src/config/confinement.js'
import type { RenderModule } from '../../src/render/ports.js'

const repo = join(import.meta.dirname, '..', '..')

/** The module's files, built into the cache when missing. */
export function renderModuleFiles(): GoWasmFiles {
  const dir = execFileSync('bash', [join(repo, 'src/go/render/module/build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  }).trim()
  return goWasmFilesIn(dir, RENDER_MODULE_PROGRAM)
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
