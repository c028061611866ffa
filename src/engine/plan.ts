/**
 * The plan step of the engine (docs/compatibility.md#plan): every object each manifest renders,
 * compared with the cluster. Tazuna's `plan` GETs each object and diffs it client-side, so
 * server defaults show as changes; we diff the live object with the server's dry-run apply of
 * the rendered one (what `kubectl diff` and the action's live content diff do), so only what
 * an apply would change shows. Read-only: GET and `dryRun=All` requests only.
 */
import { refOf } from '../apply/object-ref.js'
import { mapConcurrently } from '../apply/layered-apply.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import type { Cluster, ObjectRef } from '../apply/ports.js'
import { buildFailure, messageOf } from '../apply/sync-manifest.js'
import { NotServedError, warningsOfRefusal } from '../errors.js'
import type { Manifest } from '../config/schema.js'
import type { JsonObject } from '../go/yaml.js'
import { diffLines, type RenderedObjects } from '../report/content-diff.js'
import type { ManifestDiff } from '../report/model.js'
import { compareBytes } from '../state/byte-order.js'
import { formatStateKey, stateKeyOf } from '../state/key.js'
import { assessRisks } from '../risk/assess.js'
import type { Risk } from '../risk/model.js'
import type { ApiReview } from './api-review.js'
import type { EngineLog } from './ports.js'

/** One object that an apply would change: created, or updated with its diff lines. */
export interface PlanChange {
  kind: 'create' | 'update'
  /** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped object (Tazuna's key). */
  resource: string
  /** Unified-diff hunks live → dry-run result (`@@`, ` `, `-`, `+` lines); `[]` for create. */
  lines: string[]
}

/** One manifest's changes, creates first, then by resource in byte order. */
export interface ManifestPlan {
  manifest: string
  changes: PlanChange[]
  /** The risk pass over the changes, live object → dry-run result (docs/risks.md); absent: none. */
  risks?: Risk[]
}

/** One object's change with both sides, for the risk pass. */
interface ObjectPlan {
  change?: PlanChange
  key: string
  head: JsonObject
  /** The object as rendered (head is the dry run's result when there is one). */
  rendered: JsonObject
  live?: JsonObject
  refusal?: string
  /** The server's warnings of the dry run. */
  warnings?: readonly string[]
}

/** GETs and dry runs in flight at once (Tazuna's liveGetConcurrency). */
const LIVE_CONCURRENCY = 8

/**
 * Plans every named, non-genesissecret manifest in declaration order (GenesisSecret objects are
 * applied on every run, so they have no plan). Manifests without a change are left out. A GET
 * that fails (other than NotFound) fails the plan naming the manifest and the object; a dry run
 * the server refuses (the namespace is created by the same apply, an immutable field) shows the
 * rendered object instead, and its message goes with the risks the pass finds.
 */
export async function planManifests(
  manifests: readonly Manifest[],
  deps: {
    build: (m: Manifest) => Promise<DesiredState>
    cluster: Pick<Cluster, 'get' | 'dryRunApply'>
    log: EngineLog
    /** The run's key for Secret fingerprints (src/report/secret-fingerprint.ts). */
    fingerprintKey: Uint8Array
    /**
     * The review's API and schema checks (docs/risks.md#schema-findings) of a manifest's
     * created and updated objects, as rendered; absent: not checked.
     */
    review?: (diff: ManifestDiff, rendered: RenderedObjects) => Promise<ApiReview>
  }
): Promise<ManifestPlan[]> {
  const plans: ManifestPlan[] = []
  // Each notice once, though every manifest is checked apart.
  const noticed = new Set<string>()
  for (const m of manifests) {
    if (m.name === '') {
      deps.log.warn(`manifest has no name, skipping plan (type ${m.type})`)
      continue
    }
    if (m.type === 'genesissecret') continue
    const desired = await deps.build(m).catch((error: unknown) => {
      throw buildFailure(m.name, error)
    })
    const objects = await mapConcurrently([...desired.objects], LIVE_CONCURRENCY, (object) =>
      objectPlanOf(m.name, object, deps).catch((error: unknown) => {
        throw new Error(`failed to compute plan changes for "${m.name}": ${messageOf(error)}`, {
          cause: error
        })
      })
    )
    const found = objects.flatMap((o) => (o.change === undefined ? [] : [o.change]))
    if (found.length > 0) {
      const changed = objects.filter((o) => o.change !== undefined)
      const diff: ManifestDiff = {
        manifest: m.name,
        type: m.type,
        entries: changed.map((o) => ({
          type: o.live === undefined ? 'added' : 'modified',
          key: o.key
        }))
      }
      const review =
        deps.review === undefined
          ? {}
          : await deps.review(
              diff,
              new Map([[m.name, new Map(changed.map((o) => [o.key, o.rendered] as const))]])
            )
      for (const notice of review.notices ?? []) {
        if (!noticed.has(notice)) deps.log.warn(notice)
        noticed.add(notice)
      }
      const risks = risksOf(m.name, objects, review)
      plans.push({
        manifest: m.name,
        changes: found.sort(planOrder),
        ...(risks.length === 0 ? {} : { risks })
      })
    }
  }
  return plans
}

async function objectPlanOf(
  manifest: string,
  object: JsonObject,
  {
    cluster,
    fingerprintKey
  }: { cluster: Pick<Cluster, 'get' | 'dryRunApply'>; fingerprintKey: Uint8Array }
): Promise<ObjectPlan> {
  const ref = refOf(object)
  const key = formatStateKey(stateKeyOf(manifest, object))
  const resource = planResource(ref)
  const live = await cluster.get(ref).catch((error: unknown) => {
    // Nothing of a kind the server does not serve exists: the object is one to create, and
    // the review's API check says why that would fail (docs/risks.md#apis-the-cluster-does-not-serve).
    if (error instanceof NotServedError) return undefined
    throw new Error(`failed to get live resource for ${resource}: ${messageOf(error)}`, {
      cause: error
    })
  })
  if (live === undefined)
    return { key, head: object, rendered: object, change: { kind: 'create', resource, lines: [] } }
  let refusal: string | undefined
  let warnings: readonly string[] = []
  const proposed =
    cluster.dryRunApply === undefined
      ? object
      : await cluster.dryRunApply(object).then(
          (answer) => {
            warnings = answer.warnings
            return answer.object
          },
          (error: unknown) => {
            refusal = messageOf(error)
            warnings = warningsOfRefusal(error)
            return object
          }
        )
  const lines = diffLines(live, proposed, { fingerprintKey })
  const change: PlanChange | undefined =
    lines.length === 0 ? undefined : { kind: 'update', resource, lines }
  return {
    key,
    head: proposed,
    rendered: object,
    live,
    ...(change === undefined ? {} : { change }),
    ...(refusal === undefined ? {} : { refusal }),
    ...(warnings.length === 0 ? {} : { warnings })
  }
}

// The changed objects as Diff entries, the live objects before and the dry runs after; every
// object of the manifest is on the head side, so that its autoscalers are known.
function risksOf(manifest: string, objects: readonly ObjectPlan[], review: ApiReview): Risk[] {
  const changed = objects.filter((o) => o.change !== undefined)
  const side = (pick: (o: ObjectPlan) => JsonObject | undefined) =>
    new Map([
      [
        manifest,
        new Map(
          objects.flatMap((o) => {
            const v = pick(o)
            return v === undefined ? [] : [[o.key, v] as const]
          })
        )
      ]
    ])
  return assessRisks({
    manifests: [
      {
        manifest,
        entries: changed.map((o) => ({
          type: o.live === undefined ? 'added' : 'modified',
          key: o.key
        }))
      }
    ],
    before: side((o) => o.live),
    head: side((o) => o.head),
    refusals: new Map([
      [
        manifest,
        new Map(
          objects.flatMap((o) => (o.refusal === undefined ? [] : [[o.key, o.refusal] as const]))
        )
      ]
    ]),
    warnings: new Map([
      [
        manifest,
        new Map(
          objects.flatMap((o) => (o.warnings === undefined ? [] : [[o.key, o.warnings] as const]))
        )
      ]
    ]),
    ...(review.apis === undefined ? {} : { apis: review.apis }),
    ...(review.schema === undefined ? {} : { schema: review.schema })
  })
}

function planOrder(a: PlanChange, b: PlanChange): number {
  if (a.kind !== b.kind) return a.kind === 'create' ? -1 : 1
  return compareBytes(a.resource, b.resource)
}

/** Tazuna's display key: `Kind/namespace/name`, or `Kind/name` without a namespace. */
export function planResource(ref: ObjectRef): string {
  return ref.namespace ? `${ref.kind}/${ref.namespace}/${ref.name}` : `${ref.kind}/${ref.name}`
}
