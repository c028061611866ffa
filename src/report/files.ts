/**
 * The machine-readable report (report.json) and the text report (report.txt) the action
 * writes under RUNNER_TEMP, and the step outputs derived from them. Outputs carry only counts,
 * names and paths: a job's outputs are limited to 1 MB (docs/compatibility.md#step-outputs).
 */
import { formatProblem } from '../errors.js'
import { formatDuration } from './markdown.js'
import {
  countEntries,
  hasChanges,
  sortEntries,
  sumCounts,
  type ApplyOutcome,
  type ApplyReport,
  type DiffCounts,
  type DiffReport
} from './model.js'

/** Version of report.json's shape. */
export const reportSchema = 1

/**
 * report.json of a Diff run (check problems included). `pullRequest` is the number of the pull
 * request the run is about: mode publish (docs/fork-pull-requests.md) checks it against the
 * pull request GitHub names for the run.
 */
export function diffReportJson(report: DiffReport, options: { pullRequest?: number } = {}): string {
  const manifests = report.manifests.map((m) => ({
    manifest: m.manifest,
    type: m.type,
    counts: countEntries(m.entries),
    entries: sortEntries(m.entries),
    ...(m.error === undefined ? {} : { error: m.error })
  }))
  const document = {
    schema: reportSchema,
    kind: 'diff',
    config: report.config,
    environment: report.environment,
    ...(report.target ? { target: report.target } : {}),
    sha: report.sha,
    pullRequest: options.pullRequest ?? null,
    renderers: report.renderers ?? null,
    counts: sumCounts(manifests.map((m) => m.counts)),
    layers: report.plan?.layers ?? [],
    manifests,
    problems: report.problems,
    risks: (report.risks ?? []).map((r) => ({
      kind: r.kind,
      manifest: r.manifest,
      key: r.key,
      path: r.path,
      message: r.message,
      accepted: r.accepted === true,
      ...(r.server === undefined ? {} : { server: r.server }),
      ...(r.serverWarnings === undefined ? {} : { serverWarnings: r.serverWarnings })
    })),
    snapshot: report.snapshot ?? null,
    notCompared: report.notCompared ?? []
  }
  return `${JSON.stringify(document, null, 2)}\n`
}

/** report.json of an apply run. */
export function applyReportJson(report: ApplyReport): string {
  const document = {
    schema: reportSchema,
    kind: 'apply',
    config: report.config,
    environment: report.environment,
    ...(report.target ? { target: report.target } : {}),
    sha: report.sha,
    renderers: report.renderers ?? null,
    counts: sumCounts(report.layers.flat().map((m) => m.counts)),
    layers: report.layers,
    health: report.health ?? null,
    failure: report.failure ?? null,
    cancelled: report.cancelled ?? null
  }
  return `${JSON.stringify(document, null, 2)}\n`
}

/** Check problems as `file:line: message` lines, the way `tazuna check` words them. */
export function problemsText(report: DiffReport): string {
  return report.problems.map((p) => `${formatProblem(p)}\n`).join('')
}

/** report.txt of an apply run: one table per layer in `tazuna state diff`'s column style. */
export function applyReportText(report: ApplyReport): string {
  const lines: string[] = []
  report.layers.forEach((layer, index) => {
    lines.push(`Layer: ${index + 1}`)
    lines.push(row('MANIFEST', 'RESULT', 'COUNTS', 'DURATION'))
    for (const m of layer) {
      const c = m.counts
      const counts = `+${c.added} ~${c.modified} -${c.removed} =${c.alwaysSync}`
      const pruned = c.pruned === 0 ? '' : ` (${c.pruned} pruned)`
      lines.push(row(m.manifest, m.result, counts + pruned, formatDuration(m.durationMs)))
    }
    lines.push('')
  })
  if (report.failure !== undefined) lines.push(`error: ${report.failure.message}`)
  return lines.map((line) => `${line}\n`).join('')
}

const row = (manifest: string, result: string, counts: string, duration: string): string =>
  `  ${manifest.padEnd(40)} ${result.padEnd(10)} ${counts.padEnd(24)} ${duration}`

/** The step outputs other than paths and the comment URL. */
export interface CountOutputs {
  'has-changes': string
  added: string
  modified: string
  removed: string
  'always-sync': string
  'changed-manifests': string
}

/** Outputs from per-manifest counts; a manifest "changed" when it has any entry. */
export function countOutputs(
  manifests: readonly { manifest: string; counts: DiffCounts }[]
): CountOutputs {
  const total = sumCounts(manifests.map((m) => m.counts))
  const changed = manifests.filter((m) => hasAnyEntry(m.counts))
  return {
    'has-changes': String(hasChanges(total)),
    added: String(total.added),
    modified: String(total.modified),
    removed: String(total.removed),
    'always-sync': String(total.alwaysSync),
    'changed-manifests': changed.map((m) => m.manifest).join(',')
  }
}

const hasAnyEntry = (c: DiffCounts): boolean => c.added + c.modified + c.removed + c.alwaysSync > 0

/**
 * Outputs `healthy` and `unhealthy` (docs/health.md#reporting): with `wait`, 'true' when every
 * applied object became Current, and how many did not; without `wait` both are empty.
 */
export function healthOutputs(outcome: ApplyOutcome): { healthy: string; unhealthy: string } {
  if (outcome.health === undefined) return { healthy: '', unhealthy: '' }
  const all = outcome.health.flatMap((h) => h?.objects ?? [])
  const unhealthy = all.filter((o) => o.status !== 'Current').length
  const complete = outcome.health.every((h) => h === null || h.healthy)
  return {
    healthy: String(outcome.failure === undefined && unhealthy === 0 && complete),
    unhealthy: String(unhealthy)
  }
}
