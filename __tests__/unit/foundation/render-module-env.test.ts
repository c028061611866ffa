// The render programs' environment for engines built from source (support/render-module.ts):
// scripts/test.sh builds the programs before jest starts, and a test that runs the engine with
// a HOME of its own must find them there, not build them again inside its own time limit.
import { describe, expect, it } from '@jest/globals'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { renderModuleEnv } from '../../support/render-module.js'

const build = path.join(import.meta.dirname, '../../../src/go/render/module/build.sh')

describe('renderModuleEnv', () => {
  it('finds the built native kustomize program under a HOME of the test’s own', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'tazuna-home-'))
    // The same call the engine makes from source (src/adapters/render/native-program.ts);
    // a build from scratch would take minutes, so 60 s is a clear verdict either way.
    const { stdout } = await promisify(execFile)('bash', [build, 'kustomize', 'native'], {
      env: { PATH: process.env.PATH, TMPDIR: os.tmpdir(), HOME: home, ...renderModuleEnv() },
      timeout: 60_000
    })
    expect(readdirSync(stdout.trim())).toContain('render-kustomize-linux-x64.zst')
    // Nothing built under it: no build cache, no Go module download (`go version` may leave
    // its telemetry settings in .config).
    expect(readdirSync(home).filter((name) => name !== '.config')).toEqual([])
  })
})
