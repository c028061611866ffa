import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isMainThread, workerData } from 'node:worker_threads'
import { run } from './main.js'
import { isRenderWorkerData, serveRenderWorker } from './adapters/render-worker.js'

export { runCli } from './cli.js'

// One bundle serves both entry points: the runner starts dist/index.js (the action), while
// dist/cli.js imports it only for runCli. Two bundles would double dist/ for nothing.
const startedDirectly =
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
// The bundle is also the script of its render workers (src/adapters/render-worker.ts).
if (!isMainThread && isRenderWorkerData(workerData)) await serveRenderWorker(workerData)
else if (startedDirectly && isMainThread) await run()
