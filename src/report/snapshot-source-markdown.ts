/**
 * What a Diff computed against a State snapshot says about its State
 * (docs/state-snapshots.md#pull-requests-without-cluster-credentials): which snapshot, whether the
 * base branch moved on since it was written, and the Secret entries it could not compare.
 */
import { inlineCode } from './markdown.js'
import type { DiffReport, SnapshotSource } from './model.js'
import { resourceOf } from '../state/key.js'
import type { NotComparedEntry } from '../state/snapshot-diff.js'
import { compareBytes } from '../state/byte-order.js'

/** The section under the Diff's title; `''` when the Diff read the cluster. */
export function renderSnapshotSection(report: DiffReport): string {
  const snapshot = report.snapshot
  if (snapshot === undefined) return ''
  return (
    [sourceLine(snapshot), staleLine(snapshot), notComparedLines(report.notCompared ?? [])]
      .filter((part) => part !== '')
      .join('>\n') + '\n'
  )
}

/** Whether the snapshot is of another commit than the pull request's base. */
export function isStale(snapshot: SnapshotSource): boolean {
  return (snapshot.baseSha ?? '') !== '' && snapshot.commit !== snapshot.baseSha
}

function sourceLine(s: SnapshotSource): string {
  // writtenBy comes from the ref's file: a run URL is linked, anything else stays code.
  const by = /^https:\/\/[^\s<>()[\]]+$/.test(s.writtenBy) ? s.writtenBy : inlineCode(s.writtenBy)
  return (
    `> Diff computed against the State snapshot of ${inlineCode(s.commit.slice(0, 12) || 'an unknown commit')}, ` +
    `${inlineCode(s.createdAt)}, written by ${by} (ref ${inlineCode(s.ref)}), not the cluster.\n`
  )
}

function staleLine(s: SnapshotSource): string {
  if (!isStale(s)) return ''
  return (
    `> :warning: **Stale snapshot:** the base branch is at ${inlineCode(s.baseSha!.slice(0, 12))}, ` +
    'not the commit the snapshot is of: the base branch moved on since it was written (a merge ' +
    'run failed or has not finished), so this Diff may show or hide changes of other merges.\n'
  )
}

function notComparedLines(entries: readonly NotComparedEntry[]): string {
  if (entries.length === 0) return ''
  const sorted = [...entries].sort(
    (a, b) => compareBytes(a.manifest, b.manifest) || compareBytes(a.key, b.key)
  )
  const shown = sorted.slice(0, 50)
  const more = sorted.length - shown.length
  return (
    '> **Not compared without cluster access** (a State snapshot holds no Secret hashes, and ' +
    'these Secrets render differently at the base and the head, or the base was not rendered):\n' +
    shown.map((e) => `> - ${inlineCode(e.manifest)}: ${inlineCode(resourceOf(e.key))}\n`).join('') +
    (more > 0 ? `> - and ${more} more (report.txt lists them all)\n` : '')
  )
}
