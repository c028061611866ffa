import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { run } from './main.js'

export { runCli } from './cli.js'

// One bundle serves both entry points: the runner starts dist/index.js (the action), while
// dist/cli.js imports it only for runCli. Two bundles would double dist/ for nothing.
const startedDirectly =
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
if (startedDirectly) await run()
