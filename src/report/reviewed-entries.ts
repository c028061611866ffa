/**
 * The reviewed Diff's entries, kept in the sticky comment as one hidden line after its visible
 * text, so that the merge run can name each entry it applies that was not reviewed
 * (README.md#gated-deploys). The marker holds only digests: it must stay one short line.
 *
 * Per entry: class, state key, recorded hash and new hash (what src/report/diff-gate.ts
 * compares). Whole manifests are kept in declaration order up to
 * {@link entriesBlockCap} characters; `complete` says whether every manifest with entries fits.
 * The line is trusted only inside a comment found by marker and author, like the marker.
 */
import type { DiffType } from '../state/diff.js'
import type { DigestInput } from '../state/diff-digest.js'

/** Characters of the comment the entries may take (GitHub allows 65,536 for the whole body). */
export const entriesBlockCap = 20_000

const prefix = '<!-- tazuna-action:reviewed-entries '
const suffix = ' -->'

/** One reviewed entry. */
export interface ReviewedEntry {
  type: DiffType
  key: string
  /** Absent for added and always-sync entries. */
  oldHash?: string
  /** Absent for removed entries. */
  newHash?: string
}

/** The reviewed entries the comment holds. */
export interface ReviewedEntries {
  /** True when every manifest with entries is in `manifests`. */
  complete: boolean
  manifests: Record<string, ReviewedEntry[]>
}

type Row = [DiffType, string, string, string]

/** The hidden line for a Diff; its length never exceeds `cap` plus the line's frame. */
export function renderEntriesBlock(diff: readonly DigestInput[], cap = entriesBlockCap): string {
  return `${prefix}${escaped(JSON.stringify(entriesValue(diff, cap)))}${suffix}`
}

/** The entries as the hidden line (and the command line's file) hold them: rows per manifest. */
export function entriesValue(
  diff: readonly DigestInput[],
  cap = entriesBlockCap
): { complete: boolean; manifests: Record<string, Row[]> } {
  const manifests: Record<string, Row[]> = {}
  let used = 0
  let complete = true
  for (const m of diff.filter((d) => d.entries.length > 0)) {
    const rows = m.entries.map((e): Row => [e.type, e.key, e.oldHash ?? '', e.newHash ?? ''])
    const size = escaped(JSON.stringify({ [m.manifest]: rows })).length
    if (used + size > cap) {
      complete = false
      continue
    }
    used += size
    manifests[m.manifest] = rows
  }
  return { complete, manifests }
}

/** The entries of the last well-formed hidden line in `body`, if there is one. */
export function parseEntriesBlock(body: string): ReviewedEntries | undefined {
  const line = body
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(prefix))
    ?.trimEnd()
  if (line === undefined || !line.endsWith(suffix)) return undefined
  try {
    return entriesOf(JSON.parse(line.slice(prefix.length, -suffix.length)))
  } catch {
    return undefined
  }
}

// `<`, `>` and `&` escaped so no key can close the HTML comment early.
const escaped = (json: string): string =>
  json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')

const types: readonly string[] = ['added', 'modified', 'removed', 'always-sync']

/** The entries of {@link entriesValue}'s shape, if `value` is well-formed. */
export function entriesOf(value: unknown): ReviewedEntries | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { complete, manifests } = value as Record<string, unknown>
  if (typeof complete !== 'boolean' || typeof manifests !== 'object' || manifests === null) {
    return undefined
  }
  const out: Record<string, ReviewedEntry[]> = {}
  for (const [manifest, rows] of Object.entries(manifests)) {
    if (!Array.isArray(rows)) return undefined
    const entries = rows.map(entryOf)
    if (entries.some((e) => e === undefined)) return undefined
    out[manifest] = entries as ReviewedEntry[]
  }
  return { complete, manifests: out }
}

function entryOf(row: unknown): ReviewedEntry | undefined {
  if (!Array.isArray(row) || row.length !== 4) return undefined
  const [type, key, oldHash, newHash] = row as unknown[]
  if (typeof type !== 'string' || !types.includes(type)) return undefined
  if (typeof key !== 'string' || typeof oldHash !== 'string' || typeof newHash !== 'string') {
    return undefined
  }
  return {
    type: type as DiffType,
    key,
    ...(oldHash === '' ? {} : { oldHash }),
    ...(newHash === '' ? {} : { newHash })
  }
}
