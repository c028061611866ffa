// The interop corpus in both directions against the real Tazuna CLI (TAZUNA_BIN), on the test
// cluster: the action syncs and `tazuna state diff` sees no changes; `tazuna apply --sync`
// syncs and the action's Diff is empty; both write byte-identical State ConfigMaps (apart from
// lastSyncedAt); with pending changes both print byte-identical `state diff` texts. Skipped,
// with the reason in the suite title, when TAZUNA_BIN is not set.
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { adminSession } from '../../support/cluster.js'
import {
  applyPendingEdits,
  divergentFixtures,
  matchingFixtures,
  loadInteropFixture,
  prepareWorkspace,
  removeWorkspace,
  type Workspace
} from './corpus.js'
import {
  actionDiff,
  actionSync,
  assertApplied,
  deleteStateConfigMaps,
  describeWithTazuna,
  readStateConfigMaps,
  runTazuna,
  tazunaSkipReason
} from './tools.js'
import type { CliResult } from '../../support/cli.js'

// Jest does not print the titles of skipped suites; say once why these are skipped.
if (tazunaSkipReason !== '') process.stderr.write(`interop: CLI comparisons${tazunaSkipReason}\n`)

let admin: KubeSession | undefined
beforeAll(async () => {
  if (tazunaSkipReason === '') admin = await adminSession()
})
afterAll(() => admin?.close())

/** State ConfigMap data by manifest. */
type Snapshot = Record<string, Record<string, string>>

/** Every State ConfigMap's data, with `_metadata`'s lastSyncedAt blanked. */
async function stateSnapshot(ws: Workspace): Promise<Snapshot> {
  if (admin === undefined) throw new Error('no admin session')
  const out: Snapshot = {}
  for (const [manifest, cm] of await readStateConfigMaps(admin, ws.manifests)) {
    if (cm === undefined) continue
    const data = { ...cm.data }
    if (data._metadata !== undefined) {
      data._metadata = data._metadata.replace(/"lastSyncedAt":"[^"]*"/, '"lastSyncedAt":"*"')
    }
    out[manifest] = data
  }
  return out
}

/** Asserts a successful CLI run (showing its stderr otherwise) and returns stdout. */
function succeeded(run: CliResult): string {
  expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
    code: 0,
    stderr: ''
  })
  return run.stdout
}

/** The action syncs (with `tags`, if any); then both tools print `state diff`. */
async function actionSyncThenDiffs(
  ws: Workspace,
  tags: readonly string[]
): Promise<{ written: Snapshot; cli: string; action: string }> {
  assertApplied((await actionSync(ws, tags)).result)
  const written = await stateSnapshot(ws)
  const cli = succeeded(await runTazuna(ws, ['state', 'diff']))
  return { written, cli, action: (await actionDiff(ws)).result.text }
}

describeWithTazuna.each(matchingFixtures())(
  `interop fixture %s: the action and the Tazuna CLI${tazunaSkipReason}`,
  (name) => {
    const fixture = loadInteropFixture(name)
    const { taggedSync, sync, pendingDiff } = fixture.expected
    const tags = fixture.spec.tags ?? []
    let ws: Workspace
    let actionTagged: Snapshot | undefined
    let actionSynced: Snapshot
    beforeAll(() => {
      ws = prepareWorkspace(fixture)
    })
    afterAll(() => removeWorkspace(ws))

    let stateCleared = false
    const clearStateOnce = async (): Promise<void> => {
      if (admin === undefined) throw new Error('no admin session')
      if (!stateCleared) await deleteStateConfigMaps(admin, ws.manifests)
      stateCleared = true
    }

    if (taggedSync !== undefined) {
      it(`after the action syncs with -t ${tags.join(',')}, \`tazuna state diff\` prints what the action prints`, async () => {
        const { written, cli, action } = await actionSyncThenDiffs(ws, tags)
        actionTagged = written
        expect(cli).toBe(action)
        expect(cli).toBe(ws.expectedDiff(taggedSync.diff))
      })
    }

    it('after the action syncs, `tazuna state diff` prints what the action prints', async () => {
      const { written, cli, action } = await actionSyncThenDiffs(ws, [])
      actionSynced = written
      expect(cli).toBe(action)
      expect(cli).toBe(ws.expectedDiff(sync.diff))
    })

    if (taggedSync !== undefined) {
      it(`\`tazuna apply --sync -t ${tags.join(',')}\` writes State ConfigMaps byte-identical to the action’s, apart from lastSyncedAt`, async () => {
        await clearStateOnce()
        succeeded(await runTazuna(ws, ['apply', '--sync', '-t', tags.join(',')]))
        expect(await stateSnapshot(ws)).toEqual(actionTagged)
      })
    }

    it('`tazuna apply --sync` writes State ConfigMaps byte-identical to the action’s, apart from lastSyncedAt', async () => {
      await clearStateOnce()
      succeeded(await runTazuna(ws, ['apply', '--sync']))
      expect(await stateSnapshot(ws)).toEqual(actionSynced)
    })

    it('after `tazuna apply --sync`, the action’s Diff has no added, modified or removed entry', async () => {
      const { result } = await actionDiff(ws)
      const changes = result.diffs.flatMap((d) => d.entries.filter((e) => e.type !== 'always-sync'))
      expect(changes).toEqual([])
      expect(result.text).toBe(ws.expectedDiff(sync.diff))
    })

    it('with pending changes, the action’s `state diff` text is byte-identical to the CLI’s', async () => {
      applyPendingEdits(ws)
      const cli = succeeded(await runTazuna(ws, ['state', 'diff']))
      expect((await actionDiff(ws)).result.text).toBe(cli)
      expect(cli).toBe(ws.expectedDiff(pendingDiff))
    })
  }
)

// Where the action is known to differ, the CLI alone is held to the oracle: this also shows that
// the oracle's expectation (not the action) is what the CLI does.
// jest refuses `.each` over an empty table: with no known divergence, there is nothing to run.
if (divergentFixtures().length > 0)
  describeWithTazuna.each(divergentFixtures())(
    `interop fixture %s: the Tazuna CLI against the Go oracle (a known divergence of the action)${tazunaSkipReason}`,
    (name) => {
      const fixture = loadInteropFixture(name)
      const { sync, pendingDiff } = fixture.expected
      let ws: Workspace
      beforeAll(() => {
        ws = prepareWorkspace(fixture)
      })
      afterAll(() => removeWorkspace(ws))

      it('`tazuna apply --sync` writes the State the oracle computed', async () => {
        succeeded(await runTazuna(ws, ['apply', '--sync']))
        const snapshot = await stateSnapshot(ws)
        const entries = Object.fromEntries(
          Object.entries(snapshot).map(([m, { _metadata: _, ...rest }]) => [m, rest])
        )
        expect(entries).toEqual(ws.expectedState(sync))
        expect(succeeded(await runTazuna(ws, ['state', 'diff']))).toBe(ws.expectedDiff(sync.diff))
      })

      it('with the pending edits, `tazuna state diff` prints the text the oracle computed', async () => {
        applyPendingEdits(ws)
        expect(succeeded(await runTazuna(ws, ['state', 'diff']))).toBe(ws.expectedDiff(pendingDiff))
      })
    }
  )
