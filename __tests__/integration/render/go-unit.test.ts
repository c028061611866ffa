/**
 * The render module's own Go tests (src/go/render/module: `go test ./...`), run here so that
 * `npm test`, which CI runs, runs them too: among them the volatile-function scan of Helm charts
 * and the check that the pinned sprig has no clock- or random-looking function left
 * unclassified (docs/renderers.md#volatile-templates). scripts/test.sh puts Go on PATH and
 * compiles them first.
 */
import { describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import path from 'node:path'

const module = path.resolve(import.meta.dirname, '../../../src/go/render/module')

describe('the render module', () => {
  it('passes its Go unit tests', () => {
    const run = spawnSync('go', ['test', './...'], {
      cwd: module,
      encoding: 'utf8',
      env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly', CGO_ENABLED: '0' },
      timeout: 540_000
    })
    const output = `${run.stdout}${run.stderr}`
    expect({ status: run.status, output }).toEqual({ status: 0, output: expect.any(String) })
    expect(output).toMatch(/^ok\s+tazuna-action\/render\/internal\/helm\b/m)
  }, 600_000)
})
