/**
 * A render worker: one render program in a worker thread of its own, so that a render that
 * runs too long can be stopped (the thread is terminated; Go's WebAssembly cannot be
 * interrupted in the thread it runs in) and renders of the two programs run beside each other
 * and beside the engine. Started by src/adapters/go-render-module.ts with the bundle itself as
 * the worker's script (src/index.ts hands over to serveRenderWorker).
 */
import { parentPort } from 'node:worker_threads'
import type { PathPolicy } from '../config/confinement.js'
import type { CompiledGoWasm } from './go-wasm.js'
import {
  RenderProgramStoppedError,
  startRenderProgram,
  type ProgramResponse
} from './go-render-program.js'
import { startTemplateProgram } from './go-template-engine.js'

/**
 * workerData of a render worker: the program, compiled once by the parent thread; `template`:
 * the Go template engine (src/adapters/go-template-engine.ts) instead of a render program.
 */
export interface RenderWorkerData {
  tazunaRenderWorker: { program: CompiledGoWasm; kind?: 'template' }
}

/** One request to the worker; `policies` are the reads allowed as of now (undefined: any). */
export interface RenderWorkerRequest {
  id: number
  request: string
  policies: readonly PathPolicy[] | undefined
}

/** The worker's answer to request `id`. */
export type RenderWorkerAnswer =
  | { id: number; response: ProgramResponse }
  | { id: number; failure: string; stopped?: { outOfMemory: boolean } }

/** Whether `data` (a thread's workerData) asks for a render worker. */
export function isRenderWorkerData(data: unknown): data is RenderWorkerData {
  return typeof data === 'object' && data !== null && 'tazunaRenderWorker' in data
}

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
