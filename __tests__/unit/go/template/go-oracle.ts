/**
 * Test access to Go: the engine's WebAssembly build (src/go/template/engine/build.sh, cached) and
 * the native oracles under __tests__/oracle/template (`go run`). Suites that need Go are
 * skipped, with the reason in their title, when `go` is not installed.
 */
import { describe } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import {
  GO_TEMPLATE_PROGRAM,
  goWasmFilesIn
} from '../../../../src/adapters/render/go-wasm-files.js'
import type { GoTemplateFiles } from '../../../../src/adapters/render/template-engine.js'

const repo = join(import.meta.dirname, '..', '..', '..', '..')
const oracleDir = join(repo, '__tests__', 'oracle', 'template')

function findGo(): string | undefined {
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    try {
      execFileSync(candidate, ['version'], { stdio: 'ignore' })
      return candidate
    } catch {
      // try the next one
    }
  }
  return undefined
}

/** The go binary, or undefined when Go is not installed. */
export const go = findGo()

/** Appended to the title of suites that need Go, so a skip says why. */
export const needsGo = go === undefined ? ' (SKIPPED: go is not installed)' : ''

/** `describe` when Go is installed, `describe.skip` otherwise. */
export const describeWithGo = go === undefined ? describe.skip : describe

/** Timeout for hooks that build Go code (the first build of the engine takes about a minute). */
export const goTimeout = 600_000

/** Builds (or reuses from the cache) the engine's WebAssembly and returns its files. */
export function goTemplateEngineFiles(): GoTemplateFiles {
  const dir = execFileSync('bash', [join(repo, 'src/go/template/engine/build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  }).trim()
  return goWasmFilesIn(dir, GO_TEMPLATE_PROGRAM)
}

/** Runs an oracle command of __tests__/oracle/template (`render`, `decode`) on a JSON input. */
export function runOracle<T>(command: string, input: unknown): T {
  const out = execFileSync(go ?? 'go', ['run', `./${command}`], {
    cwd: oracleDir,
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=readonly', GOTOOLCHAIN: 'local' },
    maxBuffer: 64 * 1024 * 1024
  })
  return JSON.parse(out) as T
}
