/**
 * The apply core's report in the shape the action's reports use (src/report/model.ts): Diff
 * counts with `removed` = pruned + kept, and the failing layer's index.
 */
import type { ApplyOutcome, ManifestApply } from '../report/model.js'
import type { ApplyReport, ManifestReport } from './layered-apply.js'

/** Maps a layered-apply report to the report model (layers in order, manifests in order). */
export function applyOutcomeOf(report: ApplyReport): ApplyOutcome {
  const failedLayer = report.layers.find((l) => l.result === 'failed')?.index
  return {
    layers: report.layers.map((layer) => layer.manifests.map(manifestApplyOf)),
    ...(report.error === undefined
      ? {}
      : {
          failure: {
            ...(failedLayer === undefined ? {} : { layer: failedLayer }),
            message: report.error
          }
        })
  }
}

function manifestApplyOf(r: ManifestReport): ManifestApply {
  const { added, modified, alwaysSync, pruned, kept } = r.counts
  return {
    manifest: r.manifest,
    result: r.result,
    counts: { added, modified, removed: pruned + kept, alwaysSync, pruned },
    durationMs: r.durationMs,
    ...(r.error === undefined ? {} : { error: r.error })
  }
}
