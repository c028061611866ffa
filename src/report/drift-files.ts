/**
 * report.json and report.txt of a drift run. report.txt is what the Tazuna CLI prints for the
 * same cluster: `state drift` (whole-object hashes, docs/compatibility.md#state-drift) followed by
 * `status` (docs/compatibility.md#status).
 */
import { renderDriftText, renderStatusText } from '../state/drift-text.js'
import { sortDrift, type ManifestDrift, type ManifestStatus } from '../state/drift.js'
import { parseStateKey } from '../state/key.js'
import { countDrift, type DriftReport } from './drift-model.js'
import { reportSchema } from './files.js'

/** report.json of a drift run. */
export function driftReportJson(report: DriftReport): string {
  const document = {
    schema: reportSchema,
    kind: 'drift',
    config: report.config,
    environment: report.environment,
    ...(report.target ? { target: report.target } : {}),
    sha: report.sha,
    counts: countDrift(report.manifests),
    manifests: report.manifests,
    problems: report.problems
  }
  return `${JSON.stringify(document, null, 2)}\n`
}

/** report.txt: Tazuna's `state drift` text, then its `status` text. */
export function driftReportText(report: DriftReport): string {
  const drift: ManifestDrift[] = report.manifests
    .filter((m) => m.hasState && m.type !== 'genesissecret')
    .map((m) => ({
      manifest: m.manifest,
      entries: sortDrift(
        m.objects.flatMap((o) =>
          o.drift === undefined
            ? []
            : [
                {
                  key: o.key,
                  type: o.drift,
                  storedHash: o.storedHash,
                  ...(o.liveHash === undefined ? {} : { liveHash: o.liveHash })
                }
              ]
        )
      )
    }))
  const status: ManifestStatus[] = report.manifests.map((m) => ({
    manifest: m.manifest,
    hasState: m.hasState,
    rows: m.objects.map((o) => {
      const k = parseStateKey(o.key)
      return { key: o.key, status: o.status, kind: k.kind, namespace: k.namespace, name: k.name }
    })
  }))
  return `${renderDriftText(drift)}\n${renderStatusText(status)}`
}

/** The step outputs of a drift run (counts only). */
export function driftOutputs(report: DriftReport): Record<string, string> {
  const c = countDrift(report.manifests)
  return {
    drifted: String(c.drifted),
    missing: String(c.missing),
    'not-ready': String(c.notReady),
    'hash-drifted': String(c.hashDrifted),
    'has-drift': String(c.drifted + c.missing > 0)
  }
}
