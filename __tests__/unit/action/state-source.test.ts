import { describe, expect, it } from '@jest/globals'
import {
  chooseStateSource,
  type FetchedSnapshotText,
  type StateSourceDeps
} from '../../../src/action/state-source.js'
import { InputError } from '../../../src/errors.js'
import {
  serializeSnapshot,
  SnapshotError,
  type StateSnapshot
} from '../../../src/state/snapshot.js'

const ref = 'refs/tazuna-state/production'
const config = { path: 'deploy/tazuna.yaml', environment: 'production' }
const snapshot: StateSnapshot = {
  config,
  commit: 'c'.repeat(40),
  createdAt: '2026-01-02T03:04:05Z',
  writtenBy: 'https://github.com/acme/deploy/actions/runs/1',
  version: '1.0.0',
  manifests: new Map()
}
const good: FetchedSnapshotText = { commit: 'd'.repeat(40), text: serializeSnapshot(snapshot) }

/** Deps whose fetch answers `fetched` (or throws it) and which record notices. */
function deps(
  fetched: FetchedSnapshotText | undefined | Error,
  kubeconfigGiven = false
): StateSourceDeps & { notices: string[]; fetches: string[] } {
  const notices: string[] = []
  const fetches: string[] = []
  return {
    kubeconfigGiven,
    expected: config,
    notices,
    fetches,
    fetch: (r) => {
      fetches.push(r)
      return fetched instanceof Error ? Promise.reject(fetched) : Promise.resolve(fetched)
    },
    runner: { info: () => undefined, notice: (m) => notices.push(m) }
  }
}

describe('chooseStateSource', () => {
  it('reads the cluster in auto mode when a kubeconfig is given, fetching nothing', async () => {
    const d = deps(good, true)
    expect(await chooseStateSource('auto', ref, d)).toEqual({ source: 'cluster' })
    expect(d.fetches).toEqual([])
  })

  it('reads the verified snapshot in auto mode without a kubeconfig', async () => {
    const chosen = await chooseStateSource('auto', ref, deps(good))
    expect(chosen).toMatchObject({ source: 'snapshot', ref, snapshot: { commit: snapshot.commit } })
  })

  it('falls back to the cluster in auto mode when origin has no such ref, with a notice', async () => {
    const d = deps(undefined)
    expect(await chooseStateSource('auto', ref, d)).toEqual({ source: 'cluster' })
    expect(d.notices).toEqual([
      `No kubeconfig, and origin has no State snapshot on ${ref} yet: the Diff reads the cluster`
    ])
  })

  it('falls back to the cluster in auto mode when no ref is named', async () => {
    expect(await chooseStateSource('auto', undefined, deps(good))).toEqual({ source: 'cluster' })
  })

  it('reads the snapshot in snapshot mode even with a kubeconfig', async () => {
    const chosen = await chooseStateSource('snapshot', ref, deps(good, true))
    expect(chosen.source).toBe('snapshot')
  })

  it('fails in snapshot mode when origin has no such ref', async () => {
    await expect(chooseStateSource('snapshot', ref, deps(undefined))).rejects.toThrow(
      `input "state-source" is snapshot, but origin has no ref ${ref} (input "state-snapshot")`
    )
  })

  it('fails in snapshot mode when no ref is named', async () => {
    await expect(chooseStateSource('snapshot', undefined, deps(good))).rejects.toThrow(InputError)
  })

  it('fails in snapshot mode when the fetch fails, with its message', async () => {
    const failed = deps(new Error('git fetch failed (exit 128): no network'))
    await expect(chooseStateSource('snapshot', ref, failed)).rejects.toThrow('no network')
  })

  it.each([
    ['not JSON', '{', 'not valid JSON'],
    ['a changed value', good.text.replace('2026-01-02', '2026-01-03'), 'its digest does not match'],
    [
      'another environment',
      serializeSnapshot({ ...snapshot, config: { ...config, environment: 'staging' } }),
      'it belongs to config "deploy/tazuna.yaml", environment "staging"'
    ]
  ])(
    'refuses a snapshot that is %s, naming the ref and commit, in auto mode too',
    async (_, text, problem) => {
      const chosen = chooseStateSource('auto', ref, deps({ commit: good.commit, text }))
      await expect(chosen).rejects.toThrow(SnapshotError)
      await expect(
        chooseStateSource('auto', ref, deps({ commit: good.commit, text }))
      ).rejects.toThrow(`State snapshot on ${ref} (commit ${good.commit}): ${problem}`)
    }
  )
})
