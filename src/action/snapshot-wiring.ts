/**
 * The action's State snapshot inputs wired to the engine (docs/state-snapshots.md): where a
 * Diff reads State (input `state-source`), the engine ports that read it from a snapshot, what
 * the comment says of it, and what a merge run publishes (input `state-snapshot`). Git, the file
 * system and the environment come in as a {@link SnapshotWorld}, which main.ts binds.
 */
import path from 'node:path'
import type { EnginePorts } from '../engine/ports.js'
import { snapshotSession } from '../engine/snapshot-session.js'
import type { Settings } from '../inputs.js'
import type { SnapshotSource } from '../report/model.js'
import type { SnapshotConfig } from '../state/snapshot.js'
import type { PullRequest, Runner } from './ports.js'
import type { SnapshotPublishing } from './snapshot-flow.js'
import {
  chooseStateSource,
  type ChosenStateSource,
  type FetchedSnapshotText
} from './state-source.js'

/** Snapshots on hidden refs of a repository's origin (src/adapters/git-snapshot.ts). */
export interface SnapshotRefsPort {
  fetch(ref: string): Promise<FetchedSnapshotText | undefined>
  publish(ref: string, text: string, message: string): Promise<string>
}

/** What the wiring needs from the world. */
export interface SnapshotWorld {
  /** The nearest directory holding `.git` at or above `dir`, as git finds it. */
  repositoryRootOf(dir: string): string | undefined
  /** The snapshot refs of the repository at `root`. */
  refsOf(root: string): SnapshotRefsPort
  /** Whether the run has a kubeconfig (the input, KUBECONFIG, ~/.kube/config or in-cluster). */
  kubeconfigGiven(): boolean
}

/** Input `state-source`, for Diff runs only: a merge or drift run always needs the cluster. */
export async function stateSourceOf(
  settings: Settings,
  world: SnapshotWorld,
  runner: Runner
): Promise<ChosenStateSource> {
  if (settings.mode !== 'diff') return { source: 'cluster' }
  const { root, config } = snapshotConfigOf(settings, world)
  return chooseStateSource(settings.stateSource, settings.stateSnapshotRef, {
    kubeconfigGiven: world.kubeconfigGiven(),
    fetch: (ref) => world.refsOf(root).fetch(ref),
    expected: config,
    runner
  })
}

/**
 * Against a snapshot, every engine of the run (the base commit's too) has the snapshot as its
 * cluster session: State from the snapshot, and no request to any cluster.
 */
export function withStateSource(state: ChosenStateSource, ports: EnginePorts): EnginePorts {
  if (state.source === 'cluster') return ports
  const session = snapshotSession(state.snapshot, state.describe)
  return { ...ports, openSession: () => Promise.resolve(session) }
}

/** What the comment and the job summary say of the snapshot a Diff read, when it read one. */
export function snapshotSourceOf(
  state: ChosenStateSource,
  pullRequest: PullRequest | undefined
): { snapshot?: SnapshotSource } {
  if (state.source === 'cluster') return {}
  const { commit, createdAt, writtenBy } = state.snapshot
  const baseSha = pullRequest?.baseSha
  return {
    snapshot: { ref: state.ref, commit, createdAt, writtenBy, ...(baseSha ? { baseSha } : {}) }
  }
}

/**
 * Input `state-snapshot` of a merge run: published from the repository that holds tazuna.yaml,
 * whose path in it (and the environment) names the configuration
 * (docs/state-snapshots.md#the-format).
 */
export function snapshotPublishingOf(
  settings: Settings,
  world: SnapshotWorld,
  origin: { commit: string; writtenBy: string; version: string; now: () => number }
): SnapshotPublishing | undefined {
  const ref = settings.stateSnapshotRef
  if (ref === undefined) return undefined
  const { root, config } = snapshotConfigOf(settings, world)
  return {
    ref,
    origin: { config, commit: origin.commit, writtenBy: origin.writtenBy, version: origin.version },
    now: origin.now,
    publish: (name, text, message) => world.refsOf(root).publish(name, text, message)
  }
}

/** The repository that holds tazuna.yaml, and the configuration's identity in snapshots. */
export function snapshotConfigOf(
  settings: Pick<Settings, 'config' | 'environment'>,
  world: Pick<SnapshotWorld, 'repositoryRootOf'>
): { root: string; config: SnapshotConfig } {
  const file = path.resolve(settings.config)
  const root = world.repositoryRootOf(path.dirname(file)) ?? path.dirname(file)
  const relative = path.relative(root, file).split(path.sep).join('/')
  return { root, config: { path: relative, environment: settings.environment } }
}
