/**
 * Plain-text reports byte-identical to the Go CLI's `state drift` (docs/compatibility.md#state-drift) and
 * `status` (docs/compatibility.md#status), in the column style of `state diff`
 * (docs/compatibility.md#state-diff-text): Go's `%-Ns` pads by code points and never truncates.
 */
import type { DriftEntry, ManifestDrift, ManifestStatus } from './drift.js'
import { resourceOf } from './key.js'
import { padRight } from './text.js'

/**
 * Renders `tazuna state drift`: per manifest with entries a `Manifest:` line, a
 * `STATUS RESOURCE HASH` table (`%-14s %-60s %s`) whose hash column is
 * `<live> (stored: <stored>)` or `(stored: <stored>)`, and a blank line;
 * `No drift detected.` when no manifest has entries.
 */
export function renderDriftText(results: readonly ManifestDrift[]): string {
  const blocks = results
    .filter((r) => r.entries.length > 0)
    .map((r) => {
      const rows = r.entries.map((e) => driftRow(e.type, resourceOf(e.key), hashColumn(e)))
      return `Manifest: ${r.manifest}\n${driftRow('STATUS', 'RESOURCE', 'HASH')}${rows.join('')}\n`
    })
  return blocks.length === 0 ? 'No drift detected.\n' : blocks.join('')
}

/**
 * Renders `tazuna status`: per named manifest `Manifest: <name>` then either `  (no state)` or
 * a `STATUS KIND NAMESPACE/NAME` table (`%-9s %-20s %s`), each block ending with a blank line.
 * Nothing at all when there are no named manifests.
 */
export function renderStatusText(results: readonly ManifestStatus[]): string {
  return results
    .map((r) => {
      if (!r.hasState) return `Manifest: ${r.manifest}\n  (no state)\n\n`
      const rows = r.rows.map((row) =>
        statusRow(
          row.status,
          row.kind,
          row.namespace === '' ? row.name : `${row.namespace}/${row.name}`
        )
      )
      return `Manifest: ${r.manifest}\n${statusRow('STATUS', 'KIND', 'NAMESPACE/NAME')}${rows.join('')}\n`
    })
    .join('')
}

function driftRow(status: string, resource: string, hash: string): string {
  return `  ${padRight(status, 14)} ${padRight(resource, 60)} ${hash}\n`
}

function statusRow(status: string, kind: string, name: string): string {
  return `  ${padRight(status, 9)} ${padRight(kind, 20)} ${name}\n`
}

function hashColumn(e: DriftEntry): string {
  const stored = `(stored: ${e.storedHash})`
  return e.type === 'live-missing' ? stored : `${e.liveHash ?? ''} ${stored}`
}
