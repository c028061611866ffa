/**
 * Where a pull request's Diff reads State (input `state-source`,
 * docs/state-snapshots.md#pull-requests-without-cluster-credentials): the cluster, or the State
 * snapshot on the ref of input `state-snapshot`. A snapshot that is fetched is used whole or the
 * run fails: one that does not parse, has another schema or digest, or belongs to another
 * configuration never yields a Diff.
 */
import type { StateSourceMode } from '../inputs.js'
import { readSnapshot } from '../state/snapshot-read.js'
import type { SnapshotConfig, StateSnapshot } from '../state/snapshot.js'
import { InputError } from '../errors.js'
import type { Runner } from './ports.js'

/** A snapshot commit fetched from origin (src/adapters/git-snapshot.ts). */
export interface FetchedSnapshotText {
  commit: string
  text: string
}

/** What choosing a State source needs from the world. */
export interface StateSourceDeps {
  /** Whether the run has a kubeconfig (the input, KUBECONFIG, ~/.kube/config or in-cluster). */
  kubeconfigGiven: boolean
  /** Fetches a ref from origin; undefined when origin has no such ref. */
  fetch: (ref: string) => Promise<FetchedSnapshotText | undefined>
  /** The configuration of this run, which the snapshot must belong to. */
  expected: SnapshotConfig
  runner: Pick<Runner, 'info' | 'notice'>
}

/** The State source chosen: the cluster, or a verified snapshot and where it came from. */
export type ChosenStateSource =
  | { source: 'cluster' }
  | { source: 'snapshot'; ref: string; snapshot: StateSnapshot; describe: string }

/**
 * `cluster`: the cluster. `snapshot`: the snapshot on `ref`, failing when no ref is named or origin
 * has none. `auto`: the cluster when a kubeconfig is given; else the snapshot when `ref` is named
 * and can be fetched; else the cluster (whose error says how to give cluster access). A fetched
 * snapshot that does not verify fails in every mode.
 */
export async function chooseStateSource(
  mode: StateSourceMode,
  ref: string | undefined,
  deps: StateSourceDeps
): Promise<ChosenStateSource> {
  if (mode === 'cluster' || (mode === 'auto' && deps.kubeconfigGiven)) return { source: 'cluster' }
  if (ref === undefined) {
    if (mode === 'auto') return { source: 'cluster' }
    throw new InputError(
      'input "state-source" is snapshot, but input "state-snapshot" names no ref to read it from'
    )
  }
  const fetched = await fetchFor(mode, ref, deps)
  if (fetched === undefined) return { source: 'cluster' }
  const describe = `the State snapshot on ${ref} (commit ${fetched.commit})`
  return {
    source: 'snapshot',
    ref,
    snapshot: readSnapshot(fetched.text, `on ${ref} (commit ${fetched.commit})`, deps.expected),
    describe
  }
}

async function fetchFor(
  mode: StateSourceMode,
  ref: string,
  deps: StateSourceDeps
): Promise<FetchedSnapshotText | undefined> {
  let fetched: FetchedSnapshotText | undefined
  try {
    fetched = await deps.fetch(ref)
  } catch (error) {
    if (mode !== 'auto') throw error
    deps.runner.notice(
      `No kubeconfig, and the State snapshot on ${ref} could not be fetched (${(error as Error).message}): the Diff reads the cluster`
    )
    return undefined
  }
  if (fetched !== undefined) return fetched
  if (mode !== 'auto') {
    throw new InputError(
      `input "state-source" is snapshot, but origin has no ref ${ref} (input "state-snapshot"): a merge run with state-snapshot publishes it after its first apply with State sync`
    )
  }
  deps.runner.notice(
    `No kubeconfig, and origin has no State snapshot on ${ref} yet: the Diff reads the cluster`
  )
  return undefined
}
