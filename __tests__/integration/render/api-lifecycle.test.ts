/**
 * The API lifecycle table is current: Kubernetes' own API packages (src/go/api-lifecycle, built
 * against the render module's k8s.io/api pin and against v0.35.4 for the kinds that pin no longer
 * holds) print exactly the committed src/risk/api-lifecycle.json the review's API checks read,
 * and the generator's pin is the render module's. scripts/test.sh puts Go on PATH.
 */
import { describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../../..')
const pinOf = (goMod: string): string | undefined =>
  /^\s*k8s\.io\/api (v\S+)/m.exec(readFileSync(path.join(root, goMod), 'utf8'))?.[1]

describe('the API lifecycle table', () => {
  it('is pinned where the render module pins k8s.io/api', () => {
    expect(pinOf('src/go/api-lifecycle/go.mod')).toBe(pinOf('src/go/render/module/go.mod'))
  })

  it('is what k8s.io/api declares today', () => {
    const run = spawnSync('bash', ['src/go/api-lifecycle/generate.sh', '--check'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 540_000
    })
    // Go reports the modules it fetches into an empty module cache (a fresh machine): nothing else.
    const stderr = run.stderr.replace(/^go: downloading \S+ \S+\n/gm, '')
    expect({ status: run.status, stderr }).toEqual({ status: 0, stderr: '' })
    expect(run.stdout).toEqual(readFileSync(path.join(root, 'src/risk/api-lifecycle.json'), 'utf8'))
  }, 600_000)
})
