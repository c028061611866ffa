/**
 * Plain-text reports byte-identical to the Go CLI's `state diff`
 * (docs/compatibility.md#state-diff-text) and `state list` (docs/compatibility.md#state-list-text),
 * so existing notifiers that grep them keep working.
 */
import { compareBytes } from './byte-order.js'
import type { DiffEntry } from './diff.js'
import { resourceOf } from './key.js'
import type { State } from './state.js'

/** One manifest's diff as `state diff` reports it. */
export interface ManifestDiff {
  manifest: string
  entries: readonly DiffEntry[]
}

/** One manifest's recorded state as `state list` reports it. */
export interface ManifestState {
  manifest: string
  state: State
}

/**
 * Renders `tazuna state diff` output: per manifest with entries a `Manifest:` line, a
 * `STATUS RESOURCE HASH` table (`%-14s %-60s %s`) and a blank line; removed rows show
 * `(was: <old>)`. `No changes detected.` when no manifest has entries.
 */
export function renderDiffText(results: readonly ManifestDiff[]): string {
  const blocks = results
    .filter((r) => r.entries.length > 0)
    .map((r) => {
      const rows = r.entries.map((e) => diffRow(e.type, resourceOf(e.key), hashColumn(e)))
      return `Manifest: ${r.manifest}\n${diffRow('STATUS', 'RESOURCE', 'HASH')}${rows.join('')}\n`
    })
  return blocks.length === 0 ? 'No changes detected.\n' : blocks.join('')
}

/**
 * Renders `tazuna state list` output: per manifest a `Manifest:` line, then `No state found` or
 * the optional `Last synced:`/`Git commit:` lines and a `RESOURCE HASH` table (`%-60s %s`)
 * sorted by state key in Go byte order; each block ends with a blank line.
 */
export function renderStateListText(results: readonly ManifestState[]): string {
  return results.map(stateListBlock).join('')
}

function stateListBlock({ manifest, state }: ManifestState): string {
  let out = `Manifest: ${manifest}\n`
  if (state.entries.size === 0) return `${out}  No state found\n\n`
  if (state.metadata.lastSyncedAt !== '') out += `  Last synced: ${state.metadata.lastSyncedAt}\n`
  if (state.metadata.gitCommitHash !== '') out += `  Git commit: ${state.metadata.gitCommitHash}\n`
  out += `  ${padRight('RESOURCE', 60)} HASH\n`
  for (const key of [...state.entries.keys()].sort(compareBytes)) {
    out += `  ${padRight(resourceOf(key), 60)} ${state.entries.get(key) ?? ''}\n`
  }
  return `${out}\n`
}

function diffRow(status: string, resource: string, hash: string): string {
  return `  ${padRight(status, 14)} ${padRight(resource, 60)} ${hash}\n`
}

function hashColumn(e: DiffEntry): string {
  return e.type === 'removed' ? `(was: ${e.oldHash ?? ''})` : (e.newHash ?? '')
}

/** Go's `%-Ns`: pads with spaces to N Unicode code points, never truncates. */
export function padRight(s: string, width: number): string {
  const length = [...s].length
  return length >= width ? s : s + ' '.repeat(width - length)
}
