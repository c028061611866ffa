/**
 * The review gate (README.md#gated-deploys): compares the Diff a merge run is about to apply
 * with the Diff reviewed on the pull request that produced the commit.
 *
 * What "the same" means: the merge run computes its Diff for the merge commit, not for the
 * reviewed head, so commits are not compared; entries are, by (manifest, class, state key, new
 * hash) AND recorded hash. The recorded hash must match too: when another merge applied since
 * the review, an entry with the reviewed new hash but another recorded hash would replace that
 * merge's change, which nobody reviewed (the two-PR race on one ConfigMap). An always-sync entry
 * is sent on every sync and records no old hash; it matches by class and key. A reviewed entry
 * the apply no longer has because State already records its new hash (or, for a removal, no
 * longer has the key) was applied by an earlier run — a re-run after a failed layer — and is not
 * a difference.
 */
import type { DiffEntry, DiffType } from '../state/diff.js'
import { diffDigests } from '../state/diff-digest.js'
import type { MarkerDiff } from './marker.js'
import type { ReviewedEntries, ReviewedEntry } from './reviewed-entries.js'

/** Input `reviewed-diff`: apply and say what was not reviewed, refuse, or do not compare. */
export type ReviewedDiffMode = 'warn' | 'require' | 'off'

/** The Diff recorded on a pull request. */
export interface ReviewedDiff {
  /** Where it was reviewed, as messages name it: `#12`, or the command line's file. */
  where: string
  /** The pull request, when it was reviewed on one. */
  pullRequest?: number
  /** The pull request's page, for links. */
  url?: string
  /** The pull request's last head commit. */
  lastHead: string
  /** The commit the recorded Diff was computed for. */
  computedFor: string
  digests: MarkerDiff
  entries?: ReviewedEntries
}

/** Where the reviewed Diff comes from: found, or why none was. */
export type ReviewSource = { found: ReviewedDiff } | { missing: string; pullRequest?: number }

/** One manifest's Diff as the apply computed it under the lock; `error` when it did not render. */
export interface GateManifest {
  manifest: string
  entries?: readonly DiffEntry[]
  error?: string
  /** State's recorded hashes by state key. */
  recorded: ReadonlyMap<string, string>
}

/** An entry of the apply that was not reviewed, or a reviewed entry the apply lacks. */
export interface EntryDifference {
  manifest: string
  key: string
  type: DiffType
  /** added: not in the reviewed Diff; changed: its key is, otherwise; missing: only reviewed. */
  change: 'added' | 'changed' | 'missing'
  /** The reviewed entry's recorded and new hash. */
  reviewed?: { oldHash?: string; newHash?: string }
  /** The entry to apply's recorded and new hash. */
  apply?: { oldHash?: string; newHash?: string }
}

/** The comparison's result. */
export interface GateVerdict {
  /** True when the Diff to apply is the one reviewed on the pull request's last head. */
  reviewed: boolean
  /** The digest of the Diff to apply. */
  digest: string
  found?: ReviewedDiff
  /** Why no reviewed Diff was found. */
  missing?: string
  pullRequest?: number
  /** The reviewed Diff was computed for an older head than the pull request's last. */
  staleHead: boolean
  differences: EntryDifference[]
  /** Manifests that differ by digest whose entries the comment does not hold. */
  unnamed: string[]
  /** Manifests whose Diff could not be computed (their render failed). */
  failed: string[]
}

/** Compares the Diff to apply (the selected manifests) with the reviewed one. */
export function compareWithReviewed(
  source: ReviewSource,
  current: readonly GateManifest[]
): GateVerdict {
  const computed = current.filter((m) => m.error === undefined)
  const digests = diffDigests(computed.map((m) => ({ manifest: m.manifest, entries: m.entries! })))
  const failed = current.filter((m) => m.error !== undefined).map((m) => m.manifest)
  const base = { digest: digests.digest, staleHead: false, differences: [], unnamed: [], failed }
  if ('missing' in source) {
    return {
      ...base,
      reviewed: false,
      missing: source.missing,
      ...(source.pullRequest === undefined ? {} : { pullRequest: source.pullRequest })
    }
  }
  const found = source.found
  const staleHead = found.computedFor !== found.lastHead
  const same = failed.length === 0 && digests.digest === found.digests.digest
  const differences: EntryDifference[] = []
  const unnamed: string[] = []
  if (!same) {
    for (const m of computed) {
      const reviewed = reviewedEntriesOf(found, m.manifest)
      if (reviewed !== undefined) differences.push(...compareManifest(m, reviewed))
      else if (found.digests.manifests?.[m.manifest] !== digests.manifests[m.manifest]) {
        unnamed.push(m.manifest)
      }
    }
  }
  const unexplained =
    !same && differences.length === 0 && unnamed.length === 0 && !comparable(found)
  if (unexplained) unnamed.push('(manifests the comment holds no entries for)')
  return {
    ...base,
    reviewed: !staleHead && failed.length === 0 && differences.length === 0 && unnamed.length === 0,
    found,
    ...(found.pullRequest === undefined ? {} : { pullRequest: found.pullRequest }),
    staleHead,
    differences,
    unnamed
  }
}

// Whether every manifest can be compared by entries or by digest.
const comparable = (found: ReviewedDiff): boolean =>
  found.entries?.complete === true || found.digests.manifests !== undefined

// The reviewed entries of a manifest: those the comment holds; none when the comment holds every
// manifest with entries and not this one; undefined when it cannot tell.
function reviewedEntriesOf(found: ReviewedDiff, manifest: string): ReviewedEntry[] | undefined {
  const entries = found.entries
  if (entries === undefined) return undefined
  return entries.manifests[manifest] ?? (entries.complete ? [] : undefined)
}

function compareManifest(m: GateManifest, reviewed: readonly ReviewedEntry[]): EntryDifference[] {
  const current = m.entries ?? []
  const differences: EntryDifference[] = []
  for (const c of current) {
    if (reviewed.some((r) => sameEntry(r, c))) continue
    const other = reviewed.find((r) => r.key === c.key)
    differences.push({
      manifest: m.manifest,
      key: c.key,
      type: c.type,
      change: other === undefined ? 'added' : 'changed',
      ...(other === undefined ? {} : { reviewed: hashesOf(other) }),
      apply: hashesOf(c)
    })
  }
  for (const r of reviewed) {
    if (current.some((c) => c.key === r.key) || alreadyApplied(r, m.recorded)) continue
    differences.push({
      manifest: m.manifest,
      key: r.key,
      type: r.type,
      change: 'missing',
      reviewed: hashesOf(r)
    })
  }
  return differences
}

const hashesOf = (e: { oldHash?: string; newHash?: string }) => ({
  ...(e.oldHash === undefined ? {} : { oldHash: e.oldHash }),
  ...(e.newHash === undefined ? {} : { newHash: e.newHash })
})

const sameEntry = (r: ReviewedEntry, c: DiffEntry): boolean =>
  r.type === c.type &&
  r.key === c.key &&
  (r.type === 'always-sync' || (r.oldHash === c.oldHash && r.newHash === c.newHash))

function alreadyApplied(r: ReviewedEntry, recorded: ReadonlyMap<string, string>): boolean {
  if (r.type === 'removed') return !recorded.has(r.key)
  if (r.type === 'always-sync') return false
  return recorded.get(r.key) === r.newHash
}
