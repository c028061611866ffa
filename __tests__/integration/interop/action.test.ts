// The interop corpus against the Go oracle, on the test cluster: the action's engine syncs each
// fixture and must write exactly the State ConfigMaps (data keys and entry bytes) and print
// exactly the `state diff` texts that __tests__/oracle/interop computed with Tazuna's libraries
// (expected-state.json). Runs always; the comparison with the real CLI is tazuna-cli.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { adminSession } from '../../support/cluster.js'
import {
  applyPendingEdits,
  divergentFixtures,
  interopFixtures,
  matchingFixtures,
  loadInteropFixture,
  prepareWorkspace,
  removeWorkspace,
  type StateData,
  type Workspace
} from './corpus.js'
import {
  actionDiff,
  actionSync,
  assertApplied,
  metadataPattern,
  readStateConfigMaps,
  splitMetadata
} from './tools.js'

let admin: KubeSession
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

/** The workspace's State as stored, without `_metadata` (which is checked on the way). */
async function storedState(ws: Workspace): Promise<StateData> {
  const stored = await readStateConfigMaps(admin, ws.manifests)
  const out: StateData = {}
  for (const [manifest, cm] of stored) {
    if (cm === undefined) continue
    const { entries, metadata } = splitMetadata(cm.data)
    expect(metadata).toMatch(metadataPattern(ws.sha))
    out[manifest] = entries
  }
  return out
}

describe.each(matchingFixtures())(
  'interop fixture %s: the action against the Go oracle',
  (name) => {
    const fixture = loadInteropFixture(name)
    const { taggedSync, sync, pendingDiff } = fixture.expected
    let ws: Workspace
    beforeAll(() => {
      ws = prepareWorkspace(fixture)
    })
    afterAll(() => removeWorkspace(ws))

    if (taggedSync !== undefined) {
      const tags = fixture.spec.tags ?? []
      it(`a sync with tags ${tags.join(',')} writes only the selected manifests' State`, async () => {
        assertApplied((await actionSync(ws, tags)).result)
        expect(await storedState(ws)).toEqual(ws.expectedState(taggedSync))
        expect((await actionDiff(ws)).result.text).toBe(ws.expectedDiff(taggedSync.diff))
      })
    }

    it('a sync writes the State the oracle computed, byte for byte apart from lastSyncedAt', async () => {
      assertApplied((await actionSync(ws)).result)
      expect(await storedState(ws)).toEqual(ws.expectedState(sync))
    })

    it('state diff after the sync prints the text the oracle computed', async () => {
      expect((await actionDiff(ws)).result.text).toBe(ws.expectedDiff(sync.diff))
    })

    // State's data stays byte for byte as Tazuna's second sync leaves it. The ConfigMap may be
    // written once more for its render record alone (docs/compatibility.md#sync-mode step 4):
    // a helmfile that installs its own CRDs rendered, the first time, with capabilities that did
    // not list them yet, so its first record no longer holds. A third sync writes nothing.
    it('a second sync applies no added, modified or removed entry and rewrites no State data', async () => {
      const first = await readStateConfigMaps(admin, ws.manifests)
      for (const run of ['second', 'third']) {
        const before = run === 'second' ? first : await readStateConfigMaps(admin, ws.manifests)
        const { result } = await actionSync(ws)
        assertApplied(result)
        const counts = result.layers.flat().map((m) => ({
          manifest: m.manifest,
          changes: m.counts.added + m.counts.modified + m.counts.removed
        }))
        expect(counts.filter((c) => c.changes > 0)).toEqual([])
        const after = await readStateConfigMaps(admin, ws.manifests)
        const alwaysSync = new Set(
          result.layers.flat().flatMap((m) => (m.counts.alwaysSync > 0 ? [m.manifest] : []))
        )
        for (const manifest of ws.manifests) {
          if (alwaysSync.has(manifest)) continue
          const [b, a] = [before.get(manifest), after.get(manifest)]
          expect([run, manifest, a?.data]).toEqual([run, manifest, b?.data])
          // Written only for a new record, and only by the second sync.
          const recordOnly = run === 'second' && a?.record !== b?.record
          const unwritten = a?.resourceVersion === b?.resourceVersion
          expect([run, manifest, unwritten || recordOnly]).toEqual([run, manifest, true])
        }
      }
      expect(await storedState(ws)).toEqual(ws.expectedState(sync))
    })

    it('with the pending edits, state diff prints the text the oracle computed', async () => {
      applyPendingEdits(ws)
      expect((await actionDiff(ws)).result.text).toBe(ws.expectedDiff(pendingDiff))
    })
  }
)

// jest refuses `.each` over an empty table: with no known divergence, there is nothing to run.
if (divergentFixtures().length > 0)
  describe.each(divergentFixtures())('interop fixture %s: a known divergence', (name) => {
    const fixture = loadInteropFixture(name)
    it('the action still fails to sync it with the documented error (see the README)', async () => {
      const ws = prepareWorkspace(fixture)
      try {
        const { result } = await actionSync(ws)
        expect(result.failure?.message).toContain(fixture.spec.knownDivergence?.actionError)
      } finally {
        removeWorkspace(ws)
      }
    })
  })

describe('the corpus', () => {
  it('has at least 15 fixtures', () => {
    expect(interopFixtures.length).toBeGreaterThanOrEqual(15)
  })

  it.each(interopFixtures)(
    '%s: after a sync the oracle expects no changes, or always-sync rows only',
    (name) => {
      const { diff } = loadInteropFixture(name).expected.sync
      const rows = diff.split('\n').filter((line) => /^ {2}[a-z]/.test(line))
      const onlyAlwaysSync = rows.length > 0 && rows.every((r) => r.startsWith('  always-sync '))
      expect(diff === 'No changes detected.\n' || onlyAlwaysSync).toBe(true)
    }
  )
})
