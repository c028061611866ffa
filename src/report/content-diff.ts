/**
 * What changes inside each object of the Diff: a unified diff of the reviewable form
 * (src/report/content-form.ts) from a "before" render — the pull request's base commit, or the
 * live object — to the head render, matched by state key, and tied to State: whether the base
 * is what State records (the diff is then exactly "deployed → proposed") or not.
 */
import { structuredPatch } from 'diff'
import type { JsonObject } from '../go/yaml.js'
import { computeContentHash } from '../state/hash.js'
import { formatStateKey, resourceOf, stateKeyOf } from '../state/key.js'
import { renderContentYaml } from './content-form.js'
import { sortEntries, type DiffEntry } from '../state/diff.js'

/** Objects of one render: manifest → state key → object (duplicates: last wins, as State). */
export type RenderedObjects = ReadonlyMap<string, ReadonlyMap<string, JsonObject>>

/** Where the "before" side of a content diff comes from. */
export type ContentSource = 'base' | 'live'

/**
 * How the before side relates to State:
 * - `deployed`: it is what State records, so the diff is exactly deployed → proposed;
 * - `base-differs`: the base render is not what State records (drift, a manual apply, a merge
 *   not applied yet) — the diff is from the base, with a warning;
 * - `not-applied`: base and head are identical; State differs because the base is not applied;
 * - `live`: the before side is the live object (no State tie).
 */
export type StateRelation = 'deployed' | 'base-differs' | 'not-applied' | 'live'

/** One object's content diff. */
export interface ObjectContentDiff {
  manifest: string
  key: string
  type: Exclude<DiffEntry['type'], 'always-sync'>
  relation: StateRelation
  /** Hunks of the unified diff before → head (`@@` lines, then ` `/`-`/`+` lines); redacted. */
  lines: string[]
}

/** Indexes objects by state key; a later object with the same key replaces the earlier. */
export function objectsByKey(
  manifest: string,
  objects: readonly JsonObject[]
): Map<string, JsonObject> {
  return new Map(objects.map((obj) => [formatStateKey(stateKeyOf(manifest, obj)), obj]))
}

/** Options of {@link computeContentDiffs}. */
export interface ContentDiffOptions {
  source: ContentSource
  /** Replaces every secret value the run knows (applied to every diff line). */
  redact: (text: string) => string
  /** The run's key for Secret fingerprints (src/report/secret-fingerprint.ts). */
  fingerprintKey: Uint8Array
  /** Context lines around each change (3, as `diff -u`). */
  context?: number
}

/**
 * Content diffs of every added, modified and removed entry (always-sync entries are
 * GenesisSecret objects whose values change on every render: none is shown), in the Diff's
 * order. `before` holds the base render or the live objects; `head` the head render.
 */
export function computeContentDiffs(
  diffs: readonly { manifest: string; entries: readonly DiffEntry[] }[],
  renders: { before: RenderedObjects; head: RenderedObjects },
  options: ContentDiffOptions
): ObjectContentDiff[] {
  return diffs.flatMap((m) =>
    sortEntries(m.entries).flatMap((entry): ObjectContentDiff[] => {
      if (entry.type === 'always-sync') return []
      const before = renders.before.get(m.manifest)?.get(entry.key)
      const head =
        entry.type === 'removed' ? undefined : renders.head.get(m.manifest)?.get(entry.key)
      const relation = options.source === 'live' ? 'live' : relationToState(entry, before)
      const lines = relation === 'not-applied' ? [] : diffLines(before, head, options)
      return [
        {
          manifest: m.manifest,
          key: entry.key,
          type: entry.type,
          relation,
          lines: lines.map(options.redact)
        }
      ]
    })
  )
}

/**
 * Compares the base render's ContentHash with State's: equal is deployed; the head's hash is
 * not-applied (base and head alike); anything else, including an object State records but the
 * base lacks, is base-differs.
 */
export function relationToState(entry: DiffEntry, base: JsonObject | undefined): StateRelation {
  const baseHash = base === undefined ? undefined : computeContentHash(base)
  if (baseHash === entry.oldHash) return 'deployed'
  if (baseHash !== undefined && baseHash === entry.newHash) return 'not-applied'
  return 'base-differs'
}

/**
 * Unified-diff hunks of the reviewable forms, Secret values fingerprinted under one key on both
 * sides; `[]` when they are equal. `context` lines around each change (3, as `diff -u`).
 */
export function diffLines(
  before: JsonObject | undefined,
  head: JsonObject | undefined,
  options: Pick<ContentDiffOptions, 'fingerprintKey' | 'context'>
): string[] {
  const key = options.fingerprintKey
  const patch = structuredPatch(
    '',
    '',
    renderContentYaml(before, key),
    renderContentYaml(head, key),
    '',
    '',
    { context: options.context ?? 3 }
  )
  return patch.hunks.flatMap((hunk) => [
    `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`,
    // "\ No newline at end of file" cannot occur (the forms end in a newline) but is noise.
    ...hunk.lines.filter((line) => !line.startsWith('\\'))
  ])
}

// The unified format's quirk, as jsdiff's formatPatch writes it: an empty range starts one
// line lower.
const range = (start: number, count: number): string =>
  `${count === 0 ? start - 1 : start},${count}`

/** `--- base/<resource>` / `+++ head/<resource>` file headers of one object's diff. */
export function fileHeaders(d: ObjectContentDiff, source: ContentSource): string[] {
  const resource = `${d.manifest}: ${resourceOf(d.key)}`
  const before = d.type === 'added' && d.lines.every((l) => !l.startsWith('-'))
  const after = d.type === 'removed'
  return [
    before ? '--- /dev/null' : `--- ${source}/${resource}`,
    after ? '+++ /dev/null' : `+++ head/${resource}`
  ]
}

/**
 * `report.diff`: one unified diff of every object, each with its file headers, whole. Objects
 * that State calls modified but whose base and head are equal get a comment line instead.
 */
export function renderReportDiff(
  diffs: readonly ObjectContentDiff[],
  source: ContentSource
): string {
  return diffs
    .map((d) =>
      d.lines.length === 0
        ? `# ${d.manifest}: ${resourceOf(d.key)}: ${relationNote(d.relation) ?? 'no content change'}\n`
        : [...fileHeaders(d, source), ...d.lines].map((line) => `${line}\n`).join('')
    )
    .join('')
}

/** The per-object note a relation calls for (none for `deployed` and `live`). */
export function relationNote(relation: StateRelation): string | undefined {
  switch (relation) {
    case 'base-differs':
      return 'the base render differs from what State records (drift, a manual apply or a merge not applied yet): this diff is from the base branch, not from what is deployed'
    case 'not-applied':
      return 'the same in base and head; State differs because the base branch is not applied yet'
    default:
      return undefined
  }
}

/** The content part of a Diff report. */
export interface ContentReport {
  source: ContentSource
  /** The base commit compared with (base mode). */
  baseSha?: string
  diffs: readonly ObjectContentDiff[]
  /** Why no content is shown (the base could not be rendered): one line instead of diffs. */
  notice?: string
  /** How long the head and the before side took to render, in milliseconds. */
  timings?: { headMs: number; beforeMs: number }
}
