// The e2e runs start `node index.js` with pathWithoutRenderers() as PATH: this proves that PATH
// really has no helm, kustomize or kubectl, so every e2e mode (diff, apply, drift, check) is
// shown to render with the action's own renderers (docs/renderers.md).
import { describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import { pathWithoutRenderers, RENDERER_PROGRAMS } from '../support/runner-path.js'

describe('the e2e runner PATH', () => {
  it.each(RENDERER_PROGRAMS)('does not find %s', (program) => {
    const found = spawnSync('sh', ['-c', `command -v ${program}`], {
      env: { PATH: pathWithoutRenderers() },
      encoding: 'utf8'
    })
    expect(found.stdout).toBe('')
    expect(found.status).not.toBe(0)
  })

  it('still finds git and node, which the action uses', () => {
    for (const program of ['git', 'node']) {
      const found = spawnSync('sh', ['-c', `command -v ${program}`], {
        env: { PATH: pathWithoutRenderers() },
        encoding: 'utf8'
      })
      expect(found.status).toBe(0)
    }
  })
})
