// The review's API and schema checks (docs/risks.md#schema-findings) over every fixture of the
// interop corpus, valid manifests all: `state diff --content` on a fresh copy (every object is
// added: the manifest names are new) against the test API server finds no `rejected-by-schema`
// and no API finding, and leaves no notice that a check was skipped. The corpus is
// __tests__/fixtures/interop-*; its divergent fixtures fail to load or render by design and are
// left out.
import { describe, expect, it } from '@jest/globals'
import { runCliInProcess } from '../../support/cli.js'
import { adminKubeconfig } from '../../support/cluster.js'
import {
  loadInteropFixture,
  matchingFixtures,
  prepareWorkspace,
  removeWorkspace
} from './corpus.js'

describe('the API and schema checks over the interop corpus', () => {
  it.each(matchingFixtures())('find nothing in %s', async (name) => {
    const fixture = loadInteropFixture(name)
    const ws = prepareWorkspace(fixture)
    try {
      const env = fixture.spec.environment
      const r = await runCliInProcess(
        ['state', 'diff', '--content', '-f', ws.file, ...(env === undefined ? [] : ['-e', env])],
        { KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN, KUBECONFIG: adminKubeconfig() }
      )
      expect(r.code).toBe(0)
      expect(r.stderr).not.toMatch(/checks (of custom resources )?were skipped/)
      const findings = r.stdout
        .split('\n')
        .filter((l) => /^# {3}(rejected-by-schema|deprecated-api|will-fail) /.test(l))
      expect(findings).toEqual([])
      // The objects were checked: the Diff lists them as added.
      expect(r.stdout).toMatch(/added/)
    } finally {
      removeWorkspace(ws)
    }
  })
})
