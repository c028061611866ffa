import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isMainThread, workerData } from 'node:worker_threads'
import { isRenderWorkerData } from './adapters/render/worker-protocol.js'
import { serveRenderWorker } from './adapters/render/worker.js'

/**
 * The command line (src/cli.ts), loaded on first use: dist/cli.js imports this bundle for it.
 * Returns the process exit code.
 */
export async function runCli(args: readonly string[]): Promise<number> {
  const cli = await import('./cli.js')
  return cli.runCli(args)
}

// One bundle serves both entry points: the runner starts dist/index.js (the action), while
// dist/cli.js imports it only for runCli. Two bundles would double dist/ for nothing.
// The bundle is also the script of its render workers (src/adapters/render/worker.ts), which is
// why the action and the command line are imported lazily: a worker evaluates only the render
// bridge, not the engine (docs/benchmarks.md).
if (!isMainThread && isRenderWorkerData(workerData)) await serveRenderWorker(workerData)
else if (isMainThread && startedDirectly()) await (await import('./main.js')).run()

function startedDirectly(): boolean {
  return (
    process.argv[1] !== undefined &&
    realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
  )
}
