/**
 * Rendered objects for content diffs (src/report/content-diff.ts): every named manifest's
 * objects indexed by state key. The engine memoizes renders per run, so the Diff and this
 * step render each manifest once between them.
 */
import type { Manifest } from '../config/schema.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import { mapConcurrently } from '../apply/layered-apply.js'
import { objectsByKey, type RenderedObjects } from '../report/content-diff.js'
import type { ManifestDiff } from '../report/model.js'
import type { Cluster } from '../apply/ports.js'
import { buildFailure, ManifestError, messageOf, refOfKey } from '../apply/sync-manifest.js'
import { NotServedError, warningsOfRefusal } from '../errors.js'
import type { JsonObject } from '../go/yaml.js'

/** Manifests rendered at once (as the Diff does). */
const RENDER_CONCURRENCY = 4

/** Every named manifest's objects by state key; unnamed manifests are left out (as the Diff). */
export async function renderObjectsOf(
  manifests: readonly Manifest[],
  build: (m: Manifest) => Promise<DesiredState>
): Promise<RenderedObjects> {
  const named = manifests.filter((m) => m.name !== '')
  const rendered = await mapConcurrently(named, RENDER_CONCURRENCY, async (m) => {
    const desired = await build(m).catch((error: unknown) => {
      throw buildFailure(m.name, error)
    })
    return [m.name, objectsByKey(m.name, desired.objects)] as const
  })
  return new Map(rendered)
}

/** A renderer that renders each manifest of a run at most once (the first call's promise). */
export function memoizedRenderer(
  build: (m: Manifest) => Promise<DesiredState>
): (m: Manifest) => Promise<DesiredState> {
  const renders = new Map<Manifest, Promise<DesiredState>>()
  return (m) => {
    let render = renders.get(m)
    if (render === undefined) {
      render = build(m)
      renders.set(m, render)
    }
    return render
  }
}

/** Live mode's two sides: the live objects, and what the server would make of the head's. */
export interface LiveObjects {
  live: RenderedObjects
  proposed: RenderedObjects
  /** The server's message for each object whose dry run it refused (by manifest, key). */
  refusals: ReadonlyMap<string, ReadonlyMap<string, string>>
  /** The server's warnings of each object's dry run that had any (by manifest, key). */
  warnings: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>
}

/** Reads and dry-run-applies this many objects at once. */
const LIVE_CONCURRENCY = 8

/**
 * For every added, modified and removed entry: the live object (`get`) and the server's
 * dry-run result of the head object (what `kubectl diff` compares). An object whose dry run
 * the server refuses (its namespace is created by the same change, an immutable field) is
 * shown as rendered, and its message kept for the risk pass, as are the warnings a dry run
 * answered with, refused or not. Writes nothing.
 */
export async function liveObjectsOf(
  diffs: readonly ManifestDiff[],
  head: RenderedObjects,
  cluster: Pick<Cluster, 'get' | 'dryRunApply'>
): Promise<LiveObjects> {
  const dryRun = cluster.dryRunApply?.bind(cluster)
  if (dryRun === undefined) throw new Error('this cluster connection cannot dry-run an apply')
  const wanted = diffs.flatMap((m) =>
    m.entries
      .filter((e) => e.type !== 'always-sync')
      .map((e) => ({ manifest: m.manifest, key: e.key }))
  )
  const pairs = await mapConcurrently(wanted, LIVE_CONCURRENCY, async ({ manifest, key }) => {
    const object = head.get(manifest)?.get(key)
    let refusal: string | undefined
    let warnings: readonly string[] | undefined
    const [live, proposed] = await Promise.all([
      cluster.get(refOfKey(key)).catch((error: unknown) => {
        // Nothing of a kind the server does not serve exists; the API check flags the object.
        if (error instanceof NotServedError) return undefined
        throw new ManifestError(manifest, messageOf(error), { cause: error })
      }),
      object === undefined
        ? undefined
        : dryRun(object).then(
            (answer) => {
              if (answer.warnings.length > 0) warnings = answer.warnings
              return answer.object
            },
            (error: unknown) => {
              refusal = messageOf(error)
              const said = warningsOfRefusal(error)
              if (said.length > 0) warnings = said
              return object
            }
          )
    ])
    return { manifest, key, live, proposed, refusal, warnings }
  })
  const live = new Map<string, Map<string, JsonObject>>()
  const proposed = new Map<string, Map<string, JsonObject>>()
  const refusals = new Map<string, Map<string, string>>()
  const warnings = new Map<string, Map<string, readonly string[]>>()
  const put = <T>(into: Map<string, Map<string, T>>, manifest: string, key: string, v?: T) => {
    if (v === undefined) return
    if (!into.has(manifest)) into.set(manifest, new Map())
    into.get(manifest)!.set(key, v)
  }
  for (const p of pairs) {
    put(live, p.manifest, p.key, p.live)
    put(proposed, p.manifest, p.key, p.proposed)
    put(refusals, p.manifest, p.key, p.refusal)
    put(warnings, p.manifest, p.key, p.warnings)
  }
  return { live, proposed, refusals, warnings }
}
