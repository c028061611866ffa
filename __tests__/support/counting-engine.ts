// An engine on the real ports with render records on (the build identity of src/), whose
// kustomize renders are counted: what the render-record tests observe
// (docs/renderers.md#skipping-unchanged-renders).
import path from 'node:path'
import { expect } from '@jest/globals'
import { processEnginePorts } from '../../src/adapters/engine-ports.js'
import { createEngine, type Engine } from '../../src/engine/engine.js'

const srcDir = path.join(import.meta.dirname, '..', '..', 'src')
const quiet = { info: () => undefined, warn: () => undefined }

/** The engine for `file`, and the directories (base names) kustomize rendered so far. */
export function countingEngine(
  file: string,
  env: Record<string, string | undefined>,
  renderAll = false
): { engine: Engine; renders: string[] } {
  const renders: string[] = []
  const ports = processEnginePorts({ env, codeDir: srcDir, log: quiet })
  const { renderer } = ports
  const counted = {
    ...renderer,
    kustomize: (dir: string) => {
      renders.push(path.basename(dir))
      return renderer.kustomize(dir)
    }
  }
  const settings = { file, environment: '', tags: [], version: '0.1.0', renderAll }
  return { engine: createEngine(settings, { ...ports, renderer: counted }), renders }
}

/** `apply --sync` (with prune when asked) of `file`; asserts success, returns the renders. */
export async function syncCounting(
  file: string,
  env: Record<string, string | undefined>,
  prune: boolean
): Promise<string[]> {
  const { engine, renders } = countingEngine(file, env)
  try {
    const { run } = await engine.check()
    const outcome = await engine.apply(run!, {
      sync: true,
      prune,
      atomic: false,
      gitCommitHash: '',
      log: quiet
    })
    expect(outcome.failure).toBeUndefined()
    return renders
  } finally {
    engine.close()
  }
}
