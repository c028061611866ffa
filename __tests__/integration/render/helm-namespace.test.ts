// Why releases render in-process (docs/compatibility.md#empty-release-namespace, docs/renderers.md):
// the Helm CLI cannot render an empty .Release.Namespace — `--namespace ''` falls back to the
// kubeconfig's namespace or `default` — while Tazuna (Helm SDK, Namespace "") renders it empty.
// The render module calls the same SDK with the namespace as written. The oracle's objects for
// build-helmfile-local show Tazuna's result.
import { describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createExecRunner } from '../../../src/adapters/command-runner.js'
import { fixturesDir, loadFixture, testTools } from './harness.js'
import { buildManifest } from '../../../src/render/manifest.js'

const chart = path.join(fixturesDir, 'build-helmfile-local', 'charts', 'nsless')

describe('omitted release namespace', () => {
  it("is not empty with `helm template --namespace ''`: Helm falls back to default", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-kubeconfig-'))
    const kubeconfig = path.join(dir, 'config')
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n',
      { mode: 0o600 }
    )
    try {
      const result = await createExecRunner().run(
        testTools().helm!,
        ['template', 'shared', chart, '--namespace', '', '--no-hooks'],
        { env: { KUBECONFIG: kubeconfig, HELM_NAMESPACE: '' } }
      )
      expect(result.exitCode).toBe(0)
      expect(result.stdout).toContain('  namespace: default\n')
      expect(result.stdout).toContain('  namespace: "default"\n')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('renders like Tazuna in-process: null (default namespace applies) and ""', async () => {
    const f = loadFixture('build-helmfile-local')
    const { objects } = await buildManifest(f.case.manifest, f.ctx)
    const byName = new Map(objects.map((o) => [(o.metadata as { name: string }).name, o]))
    expect(byName.get('shared-unquoted')).toMatchObject({
      metadata: { namespace: 'fallback' },
      data: { svc: 'db..svc' }
    })
    expect(byName.get('shared-quoted')).toMatchObject({ metadata: { namespace: '' } })
  })
})
