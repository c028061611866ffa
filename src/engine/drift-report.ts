/**
 * The drift step of the action: every recorded object of every named manifest read live once,
 * classified as Tazuna's `state drift` and `status` do, plus the quiet signal — the head
 * render's fields compared with the live object (src/state/field-drift.ts). Read-only: GET
 * requests and the renderers (no cluster write), so a read-only kubeconfig is enough.
 */
import type { DesiredState } from '../apply/manifest-unit.js'
import { messageOf } from '../apply/sync-manifest.js'
import type { Manifest } from '../config/schema.js'
import type { JsonObject } from '../go/yaml.js'
import type { DriftObject, ManifestDriftReport } from '../report/drift-model.js'
import { classifyDrift, statusRowOf, type LiveEntry, type LiveManifest } from '../state/drift.js'
import { fieldChanges } from '../state/field-drift.js'
import { computeContentHash } from '../state/hash.js'
import { formatStateKey, stateKeyOf } from '../state/key.js'

/** Builds the drift report of live manifests, rendering the head of each one with State. */
export async function driftReportOf(
  manifests: readonly Manifest[],
  live: readonly LiveManifest[],
  build: (m: Manifest) => Promise<DesiredState>
): Promise<ManifestDriftReport[]> {
  const byName = new Map(manifests.map((m) => [m.name, m]))
  const reports: ManifestDriftReport[] = []
  for (const lm of live) {
    const manifest = byName.get(lm.manifest)
    const alwaysSync = lm.type === 'genesissecret'
    let head: Map<string, JsonObject> | undefined
    let renderError: string | undefined
    if (manifest !== undefined && lm.hasState && !alwaysSync) {
      try {
        head = headObjects(lm.manifest, await build(manifest))
      } catch (error) {
        renderError = messageOf(error)
      }
    }
    reports.push({
      manifest: lm.manifest,
      type: lm.type,
      hasState: lm.hasState,
      objects: lm.entries.map((e) => driftObjectOf(e, alwaysSync, head)),
      ...(renderError === undefined ? {} : { renderError })
    })
  }
  return reports
}

function headObjects(manifest: string, desired: DesiredState): Map<string, JsonObject> {
  return new Map(desired.objects.map((o) => [formatStateKey(stateKeyOf(manifest, o)), o]))
}

function driftObjectOf(
  entry: LiveEntry,
  alwaysSync: boolean,
  head: Map<string, JsonObject> | undefined
): DriftObject {
  const row = statusRowOf(entry)
  const { read } = entry
  const live = read.kind === 'found' ? read.object : undefined
  // genesissecret manifests are always-sync: Tazuna skips them in `state drift`.
  const drift = alwaysSync || read.kind === 'error' ? undefined : classifyDrift(entry)
  const headObject = head?.get(entry.key)
  return {
    key: entry.key,
    storedHash: entry.storedHash,
    ...(live === undefined ? {} : { liveHash: computeContentHash(live) }),
    ...(drift === undefined ? {} : { drift: drift.type }),
    status: row.status,
    ...(row.error === undefined ? {} : { error: row.error }),
    ...(live !== undefined && headObject !== undefined
      ? { changes: fieldChanges(headObject, live) }
      : {}),
    hideValues: row.kind === 'Secret'
  }
}
