#!/usr/bin/env node
import module from 'node:module'
import os from 'node:os'
import path from 'node:path'
const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
module.enableCompileCache?.(path.join(cache, 'tazuna-action', 'compile-cache'))
const { runCli } = await import('./index.js')
process.exitCode = await runCli(process.argv.slice(2))
