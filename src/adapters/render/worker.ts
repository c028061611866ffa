/**
 * A render worker: one render program in a worker thread of its own, so that a render that
 * runs too long can be stopped (the thread is terminated; Go's WebAssembly cannot be
 * interrupted in the thread it runs in) and renders of the two programs run beside each other
 * and beside the engine. Started by src/adapters/render/module.ts with the bundle itself as
 * the worker's script (src/index.ts hands over to serveRenderWorker).
 */
import { parentPort } from 'node:worker_threads'
import type { PathPolicy } from '../../config/confinement.js'
import { RenderProgramStoppedError, startRenderProgram } from './go-program.js'
import { startTemplateProgram } from './template-engine.js'
import type {
  RenderWorkerAnswer,
  RenderWorkerData,
  RenderWorkerRequest
} from './worker-protocol.js'

/** Serves render requests from the parent thread until it terminates this one. */
export async function serveRenderWorker(data: RenderWorkerData): Promise<void> {
  const port = parentPort
  if (port === null) throw new Error('serveRenderWorker runs in a worker thread only')
  let policies: readonly PathPolicy[] | undefined
  const { program, kind } = data.tazunaRenderWorker
  const starting =
    kind === 'template'
      ? startTemplateProgram(program)
      : startRenderProgram(program, () => policies)
  port.on('message', (message: RenderWorkerRequest) => {
    policies = message.policies
    void starting
      .then((call) => call(message.request))
      .then(
        (response) => port.postMessage({ id: message.id, response } satisfies RenderWorkerAnswer),
        (error: unknown) =>
          port.postMessage({
            id: message.id,
            failure: error instanceof Error ? error.message : String(error),
            ...(error instanceof RenderProgramStoppedError
              ? { stopped: { outOfMemory: error.outOfMemory } }
              : {})
          } satisfies RenderWorkerAnswer)
      )
  })
  await starting
}
