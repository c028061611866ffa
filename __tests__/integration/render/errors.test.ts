// What a user sees when a build cannot succeed: the manifest, the release, the file, the tool.
import { describe, expect, it } from '@jest/globals'
import path from 'node:path'
import { buildManifest, renderManifestText } from '../../../src/render/manifest.js'
import type { BuildManifestSpec } from '../../../src/render/context.js'
import { fixturesDir, loadFixture } from './harness.js'

const helmfileLocal = loadFixture('build-helmfile-local')
const local = (overrides: Partial<BuildManifestSpec>): BuildManifestSpec => ({
  ...helmfileLocal.case.manifest,
  ...overrides
})

describe('build errors', () => {
  it('names the release and the values file that does not exist', async () => {
    const m = local({
      helmfile: { ...helmfileLocal.case.manifest.helmfile, extraValueFiles: ['extra/missing.yaml'] }
    })
    await expect(buildManifest(m, helmfileLocal.ctx)).rejects.toThrow(
      `manifest apps: release web-staging: values file extra/missing.yaml not found at ${path.join(helmfileLocal.dir, 'extra/missing.yaml')}`
    )
  })

  it('names the release and the chart that cannot be resolved', async () => {
    const f = loadFixture('build-helmfile-kubeversion')
    const m = { ...f.case.manifest, path: 'helmfiles/missing-chart.yaml' }
    await expect(buildManifest(m, f.ctx)).rejects.toThrow(
      /^manifest caps: release missing: chart \.\/no-such-chart not found at .*helmfiles\/no-such-chart \(not an oci:\/\/ reference/
    )
  })

  it('names the directory when it holds no helmfile', async () => {
    await expect(buildManifest(local({ path: 'charts' }), helmfileLocal.ctx)).rejects.toThrow(
      /manifest apps: no helmfile in .*charts \(looked for helmfile.yaml.gotmpl, helmfile.yaml, helmfile.yml.gotmpl, helmfile.yml\)/
    )
  })

  it('reports a helmfile template error with the file and line Go names (no env function)', async () => {
    const file = path.join(helmfileLocal.dir, 'broken/helmfile.yaml.gotmpl')
    await expect(buildManifest(local({ path: 'broken' }), helmfileLocal.ctx)).rejects.toThrow(
      `${file}:4: template: broken/helmfile.yaml.gotmpl:4: function "env" not defined`
    )
  })

  it('names the missing env var of a `from: env` var', async () => {
    const f = loadFixture('build-helmfile-local', { lookupEnv: () => undefined })
    await expect(buildManifest(f.case.manifest, f.ctx)).rejects.toThrow(
      "manifest apps: helmfile var 'tier': environment variable APP_TIER is not set"
    )
  })

  it('renders helmfile and kustomize manifests with neither helm nor kustomize on PATH', async () => {
    const saved = process.env.PATH
    process.env.PATH = path.join(fixturesDir, 'no-such-dir')
    try {
      for (const name of ['build-helmfile-local', 'build-kustomize-overlays']) {
        const f = loadFixture(name)
        const built = await buildManifest(f.case.manifest, f.ctx)
        expect([...built.entries.keys()]).toEqual(f.expected.objects.map((o) => o.key))
      }
    } finally {
      process.env.PATH = saved
    }
  })

  it("reports a failing kustomize build with krusty's own error", async () => {
    const f = loadFixture('build-kustomize-overlays')
    const m = { ...f.case.manifest, path: 'base/deployment.yaml' }
    await expect(buildManifest(m, f.ctx)).rejects.toThrow(
      /^kustomize build .*base\/deployment\.yaml: must build at directory: .*deployment\.yaml': file is not directory$/
    )
  })

  it('says an oras manifest without the artifact cache cannot be pulled, naming it', async () => {
    const f = loadFixture('build-kustomize-overlays')
    await expect(
      renderManifestText(
        {
          name: 'bundle',
          type: 'oras',
          path: 'x',
          oras: { reference: '127.0.0.1:1/b:v1', delegate: { type: 'kustomize' } }
        },
        f.ctx
      )
    ).rejects.toThrow('manifest bundle: type oras needs the artifact cache')
  })

  it('rejects an unknown manifest type with Tazuna’s wording', async () => {
    const f = loadFixture('build-kustomize-overlays')
    await expect(buildManifest({ name: 'p', type: 'parallel', path: 'x' }, f.ctx)).rejects.toThrow(
      'manifest p: unsupported manifest type: parallel'
    )
  })

  it('names an undeclared provider', async () => {
    const f = loadFixture('build-genesissecret-envfile', { providers: [] })
    await expect(buildManifest(f.case.manifest, f.ctx)).rejects.toThrow(
      'manifest app-secrets: provider "local-env" is not declared in spec.providers'
    )
  })
})
