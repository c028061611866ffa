// The render-parity corpus (__tests__/fixtures/render-parity/README.md): every case rendered by
// the action must equal what the Go oracle rendered with krusty and the Helm SDK as Tazuna calls
// them — the same objects, state keys and ContentHashes in the same order and the same `tazuna
// build` text — and a case the oracle could not render must fail here too, with the Go error text.
import { describe, expect, it } from '@jest/globals'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { buildManifest, renderManifestText } from '../../../src/render/manifest.js'
import { fixturesDir, loadFixture, type FixtureExpectation } from './harness.js'

const corpus = 'render-parity'
const cases = readdirSync(path.join(fixturesDir, corpus), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort()

/** expected.json of a case whose render fails: the library's Go error text. */
interface ErrorExpectation {
  error: string
}

/** Where the oracle wrote the case's absolute directory in an error text. */
const CASE_DIR_PLACEHOLDER = '<case>'

function expectation(name: string): FixtureExpectation | ErrorExpectation {
  const file = path.join(fixturesDir, corpus, name, 'expected.json')
  return JSON.parse(readFileSync(file, 'utf8')) as FixtureExpectation | ErrorExpectation
}

it('holds at least 40 cases, each with an oracle expectation', () => {
  expect(cases.length).toBeGreaterThanOrEqual(40)
  for (const name of cases) expect(expectation(name)).toBeDefined()
})

describe.each(cases)('render-parity %s', (name) => {
  const expected = expectation(name)

  if ('error' in expected) {
    it('fails with the Go error text the oracle got', async () => {
      const f = loadFixture(`${corpus}/${name}`)
      const message = expected.error.split(CASE_DIR_PLACEHOLDER).join(f.dir)
      const failure = await buildManifest(f.case.manifest, f.ctx).then(
        () => new Error('rendered without an error'),
        (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
      )
      expect(failure.message).toContain(message)
    })
    return
  }

  it('builds the objects, keys and ContentHashes the Go oracle built', async () => {
    const f = loadFixture(`${corpus}/${name}`)
    const built = await buildManifest(f.case.manifest, f.ctx)
    expect(built.objects).toEqual(expected.objects.map((o) => o.object))
    expect([...built.entries]).toEqual(expected.objects.map((o) => [o.key, o.hash]))
    expect([...built.alwaysSync]).toEqual([])
  })

  it('prints the text `tazuna build` prints', async () => {
    const f = loadFixture(`${corpus}/${name}`)
    const text = await renderManifestText(f.case.manifest, f.ctx)
    expect(`${text}\n`).toBe(f.expectedBuildText)
  })
})
