import { describe, expect, it, beforeAll, afterAll } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Builds a fresh bundle with the same script as dist/ (never trusts the committed one) and
// starts it the way the runner and a developer do.
const root = join(import.meta.dirname, '..', '..', '..')
let out: string

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'tazuna-bundle-'))
  execFileSync('bash', [join(root, 'scripts', 'bundle.sh'), out], { cwd: root, stdio: 'pipe' })
}, 180_000)

afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('the bundle', () => {
  it('is an ES module bundle with its licenses file', () => {
    expect(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'))).toEqual({ type: 'module' })
    expect(readFileSync(join(out, 'licenses.txt'), 'utf8')).toContain('@actions/core')
  })

  it('stays under the 8 MB dist/ budget', () => {
    expect(statSync(join(out, 'index.js')).size).toBeLessThan(8 * 1024 * 1024)
  })

  it('starts under Node 24 as the runner starts it and reports a wrong input by name', () => {
    const r = spawnSync(process.execPath, [join(out, 'index.js')], {
      env: { PATH: process.env.PATH, INPUT_MODE: 'nonsense', GITHUB_EVENT_NAME: 'push' },
      encoding: 'utf8'
    })
    expect(process.versions.node.split('.')[0]).toBe('24')
    expect(r.stdout).toMatch(/::error::.*mode/)
    expect(r.status).toBe(1)
  })

  it('serves the command line from the same bundle', () => {
    const r = spawnSync(process.execPath, [join(out, 'cli.js'), 'no-such-command'], {
      encoding: 'utf8'
    })
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^error: /)
  })
})
