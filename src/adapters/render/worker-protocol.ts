/**
 * What a render worker (src/adapters/render/worker.ts) and its host
 * (src/adapters/render/module.ts) say to each other, apart from either, so that neither
 * needs the other's code.
 */
import type { PathPolicy } from '../../config/confinement.js'
import type { CompiledGoWasm } from './go-wasm.js'
import type { ProgramResponse } from './go-program.js'

/**
 * workerData of a render worker: the program, compiled once by the parent thread; `template`:
 * the Go template engine (src/adapters/render/template-engine.ts) instead of a render program.
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
