/**
 * The Diff's entries as a reviewer reads them: per manifest a heading, then each entry as its
 * class and object (`**modified** /v1/ConfigMap/ns/settings`) with its content diff right
 * under it; and the content hashes, which matter to Tazuna's State rather than to a reviewer,
 * in one collapsed technical block of rows as `tazuna state diff` prints them. Pure pieces:
 * src/report/changes-markdown.ts chooses which of them fit.
 */
import type { ObjectContentDiff, ContentSource } from './content-diff.js'
import {
  noDiffNote,
  relationMark,
  renderObjectDiff,
  type ContentOptions
} from './content-diff-markdown.js'
import { codeBlock, describeCounts, details, escapeHtml, inlineCode } from './markdown.js'
import { countEntries, sortEntries, type DiffEntry, type ManifestDiff } from './model.js'
import { riskLabels } from './risks-markdown.js'
import type { Risk } from '../risk/model.js'
import { resourceOf } from '../state/key.js'

/** One entry: its list line, and the `<details>` with its diff when it has diff lines. */
export interface EntryPiece {
  /** The list line shown when the diff is not (or there is none). */
  plain: string
  /** The entry with its diff under it, open or collapsed; absent without diff lines. */
  withDiff?: (open: boolean) => string
}

/** What the entry pieces are built from besides the Diff. */
export interface EntryContext {
  /** Content diffs by {@link entryId}; absent when content diffs are off or failed. */
  diffs?: ReadonlyMap<string, ObjectContentDiff>
  source?: ContentSource
  content?: Pick<ContentOptions, 'linesPerObject' | 'fullDiff'>
  /** Risk labels by {@link entryId}. */
  risks: ReadonlyMap<string, readonly string[]>
}

/** The key entries, content diffs and risks share: manifest and state key. */
export const entryId = (manifest: string, key: string): string => `${manifest}\u0000${key}`

/** Indexes content diffs by {@link entryId}. */
export function diffsById(diffs: readonly ObjectContentDiff[]): Map<string, ObjectContentDiff> {
  return new Map(diffs.map((d) => [entryId(d.manifest, d.key), d]))
}

/** The labels of each object's risks (`will fail on apply`, …) by {@link entryId}. */
export function riskLabelsById(risks: readonly Risk[]): Map<string, string[]> {
  const byId = new Map<string, string[]>()
  for (const r of risks) {
    const id = entryId(r.manifest, r.key)
    const labels = byId.get(id) ?? []
    if (!labels.includes(riskLabels[r.kind])) labels.push(riskLabels[r.kind])
    byId.set(id, labels)
  }
  return byId
}

/** `##### `web` (kustomize): 1 added, 1 modified` — a manifest's heading. */
export function manifestHeading(m: ManifestDiff): string {
  return `##### ${inlineCode(m.manifest)} (${escapeHtml(m.type)}): ${describeCounts(countEntries(m.entries))}\n\n`
}

/** A manifest's entries in Tazuna's order (added, modified, removed, always-sync; by key). */
export function entryPieces(m: ManifestDiff, context: EntryContext): EntryPiece[] {
  return sortEntries(m.entries).map((e) => entryPiece(m.manifest, e, context))
}

function entryPiece(manifest: string, e: DiffEntry, context: EntryContext): EntryPiece {
  const id = entryId(manifest, e.key)
  const labels = context.risks.get(id) ?? []
  const risk = labels.length === 0 ? '' : ` — ⚠ ${labels.join(', ')}`
  const resource = resourceOf(e.key)
  const line = (suffix: string): string =>
    `- **${e.type}** ${inlineCode(resource)}${risk}${suffix}\n`
  const d = context.diffs?.get(id)
  if (d === undefined || context.content === undefined || context.source === undefined) {
    return { plain: line('') }
  }
  const note = noDiffNote(d)
  if (note !== undefined) return { plain: line(`: ${escapeHtml(note)}`) }
  const summaryHtml = `<b>${e.type}</b> <code>${escapeHtml(resource)}</code>${relationMark(d)}${escapeHtml(risk)}`
  const { linesPerObject, fullDiff } = context.content
  const source = context.source
  return {
    plain: line(' _(diff left out to fit)_'),
    withDiff: (open) => renderObjectDiff(d, source, { linesPerObject, fullDiff, summaryHtml, open })
  }
}

const diffMarks: Record<DiffEntry['type'], string> = {
  added: '+',
  modified: '!',
  removed: '-',
  'always-sync': '#'
}

/**
 * A manifest's rows of content hashes (`! modified     /v1/ConfigMap/ns/a 1a2b… -> 3c4d…`),
 * `hashLength` hex digits each, under its name.
 */
export function hashRows(m: ManifestDiff, hashLength: number): string {
  const entries = sortEntries(m.entries)
  const width = Math.min(60, Math.max(...entries.map((e) => resourceOf(e.key).length)))
  const hash = (h: string | undefined): string => (h ?? '').slice(0, hashLength)
  const rows = entries.map((e) => {
    const hashes =
      e.type === 'modified'
        ? `${hash(e.oldHash)} -> ${hash(e.newHash)}`
        : e.type === 'removed'
          ? `(was: ${hash(e.oldHash)})`
          : hash(e.newHash)
    const line = `${diffMarks[e.type]} ${e.type.padEnd(12)} ${resourceOf(e.key).padEnd(width)} ${hashes}`
    return line.trimEnd()
  })
  return `${inlineCode(m.manifest)} (${escapeHtml(m.type)}):\n\n${codeBlock(rows.join('\n'), 'diff')}\n`
}

/** The one collapsed block of hash rows; `left` manifests' rows did not fit. */
export function hashesBlock(rows: readonly string[], left: number): string {
  const rest =
    left === 0
      ? ''
      : `…and the hashes of ${left} more manifest${left === 1 ? '' : 's'} (the job summary has them).\n`
  return `\n${details('Content hashes (what Tazuna records in State)', `${rows.join('')}${rest}`)}`
}
