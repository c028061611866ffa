/**
 * The plain data of a drift run (the action's `mode: drift`): per manifest, every recorded
 * object with Tazuna's classification (hash drift, readiness) and the quiet signal (fields of
 * the head render changed outside tazuna, src/state/field-drift.ts). Renderers are pure
 * functions of it.
 */
import type { ConfigProblem } from '../errors.js'
import type { DriftType, ResourceStatus } from '../state/drift.js'
import { isOutsideChange, type FieldChange } from '../state/field-drift.js'
import type { ReportTarget } from './model.js'

/** One recorded object as the drift run saw it. */
export interface DriftObject {
  key: string
  storedHash: string
  /** ContentHash of the live object; absent when it is missing or unreadable. */
  liveHash?: string
  /** Tazuna's `state drift` classification; absent when the hashes agree. */
  drift?: DriftType
  status: ResourceStatus
  /** Why the status is `Error`. */
  error?: string
  /**
   * Fields of the head render that differ live. Absent when there was nothing to compare:
   * the object is missing, no longer rendered, or its manifest is always-sync (genesissecret).
   */
  changes?: FieldChange[]
  /** Secret values are never shown: changes carry paths only. */
  hideValues: boolean
}

/** One manifest of a drift run. */
export interface ManifestDriftReport {
  manifest: string
  type: string
  hasState: boolean
  objects: DriftObject[]
  /** The head render failed: no quiet signal for this manifest (the message says why). */
  renderError?: string
}

/** Everything the drift summary and the drift issue show. */
export interface DriftReport extends ReportTarget {
  manifests: readonly ManifestDriftReport[]
  problems: readonly ConfigProblem[]
}

/** The counts behind the outputs and the headline. */
export interface DriftCounts {
  /** Objects with a field changed outside tazuna (the quiet signal). */
  drifted: number
  /** Recorded objects that no longer exist. */
  missing: number
  /**
   * Objects that exist but are not Ready (docs/compatibility.md#readiness), or could not be read.
   */
  notReady: number
  /** Objects Tazuna's `state drift` marks live-drifted (server defaults included). */
  hashDrifted: number
}

/** True when the object has a field changed outside tazuna. */
export function isChangedOutside(o: DriftObject): boolean {
  return (o.changes ?? []).some(isOutsideChange)
}

/** Counts a report's objects. */
export function countDrift(manifests: readonly ManifestDriftReport[]): DriftCounts {
  const objects = manifests.flatMap((m) => m.objects)
  return {
    drifted: objects.filter(isChangedOutside).length,
    missing: objects.filter((o) => o.status === 'Missing').length,
    notReady: objects.filter((o) => o.status === 'NotReady' || o.status === 'Error').length,
    hashDrifted: objects.filter((o) => o.drift === 'live-drifted').length
  }
}

/** Drift is a field changed outside tazuna or a missing object; readiness is reported apart. */
export function hasDrift(counts: DriftCounts): boolean {
  return counts.drifted + counts.missing > 0
}

/** True when an object deserves a row: drifted, missing, not ready or unreadable. */
export function needsAttention(o: DriftObject): boolean {
  return isChangedOutside(o) || o.status !== 'Ready'
}
