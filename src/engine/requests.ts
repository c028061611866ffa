/**
 * What an apply is asked to do: its switches, the commit State records, the run lock and the
 * stale-commit guard. Types only, shared by the engine's interface and its apply step.
 */
import type { CommitAncestry } from '../apply/commit-guard.js'
import type { GateManifest } from '../report/diff-gate.js'
import type { EnginePorts } from './ports.js'

/** The review gate (src/engine/review-gate.ts): throws to refuse the apply. */
export type ReviewGate = (diff: readonly GateManifest[]) => Promise<void> | void

/** The switches of an apply: `prune` and `atomic` need `sync` (inputs and flags enforce it). */
export interface ApplySwitches {
  sync: boolean
  prune: boolean
  atomic: boolean
  /**
   * `wait` (docs/health.md#wait): after each layer every object it applied must be Current
   * within `timeoutMs` (`timeout` as written); absent: health is not checked.
   */
  wait?: { timeoutMs: number; timeout: string }
}

/** The run lock an apply takes (src/apply/lease-lock.ts), named after the configuration. */
export interface LockRequest {
  /** Who holds it (run id and host), shown to whoever waits. */
  holder: string
  /** How long to wait for another holder. */
  waitSeconds: number
  /** How long the Lease lives without renewal (default 60 s). */
  ttlSeconds?: number
}

/** One apply: its switches, the commit State records, the lock, and where progress goes. */
export interface ApplyRequest extends ApplySwitches {
  /** Recorded as `_metadata.gitCommitHash` (docs/compatibility.md#entry-and-metadata-bytes). */
  gitCommitHash: string
  /** Absent: no lock (the command line's `--no-lock`). */
  lock?: LockRequest
  /**
   * The stale-commit guard (src/apply/commit-guard.ts): how to tell ancestry, and whether an
   * older commit is applied anyway (with a warning). Absent: no guard.
   */
  commitGuard?: { ancestry: CommitAncestry; allowOlderCommit: boolean }
  /**
   * The review gate (README.md#gated-deploys): called under the lock, after the commit guard,
   * with every selected manifest's Diff from the State read the apply uses, before any object
   * is sent; when it throws, nothing is applied and the error is the apply's. Absent: no gate.
   */
  reviewGate?: ReviewGate
  log: EnginePorts['log']
}
