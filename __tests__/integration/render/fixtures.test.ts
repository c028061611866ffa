// Every build fixture rendered with the real tools must equal what the Go oracle produced with
// Tazuna's libraries (krusty, the Helm SDK, sigs.k8s.io/yaml): the same objects, the same state
// keys and ContentHashes in the same order, and the same `tazuna build` text.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import path from 'node:path'
import { buildManifest, renderManifestText } from '../../../src/render/manifest.js'
import { fixturesDir, loadFixture } from './harness.js'

const fixtures = [
  'build-kustomize-overlays',
  'build-helmfile-local',
  'build-helmfile-kubeversion',
  'build-genesissecret-envfile',
  'build-genesissecret-op'
]

// The 1Password fixture answers through its stand-in `op` script, found on PATH like the real one.
const originalPath = process.env.PATH
beforeAll(() => {
  process.env.PATH = `${path.join(fixturesDir, 'build-genesissecret-op', 'bin')}:${originalPath}`
})
afterAll(() => {
  process.env.PATH = originalPath
})

describe.each(fixtures)('fixture %s', (name) => {
  it('builds the objects, keys and ContentHashes the Go oracle built', async () => {
    const f = loadFixture(name)
    const built = await buildManifest(f.case.manifest, f.ctx)
    expect(built.objects).toEqual(f.expected.objects.map((o) => o.object))
    expect([...built.entries]).toEqual(f.expected.objects.map((o) => [o.key, o.hash]))
    expect([...built.alwaysSync]).toEqual(f.expected.alwaysSync ? [...built.entries.keys()] : [])
  })

  it('prints the text `tazuna build` prints', async () => {
    const f = loadFixture(name)
    const text = await renderManifestText(f.case.manifest, f.ctx)
    expect(`${text}\n`).toBe(f.expectedBuildText)
  })
})
