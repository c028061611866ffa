/**
 * Rendered objects for content diffs (src/report/content-diff.ts): every named manifest's
 * objects indexed by state key. The engine memoizes renders per run, so the Diff and this
 * step render each manifest once between them.
 */
import type { Manifest } from '../config/schema.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import { mapConcurrently } from '../apply/layered-apply.js'
import { objectsByKey, type RenderedObjects } from '../report/content-diff.js'

/** Manifests rendered at once (as the Diff does). */
const RENDER_CONCURRENCY = 4

/** Every named manifest's objects by state key; unnamed manifests are left out (as the Diff). */
export async function renderObjectsOf(
  manifests: readonly Manifest[],
  build: (m: Manifest) => Promise<DesiredState>
): Promise<RenderedObjects> {
  const named = manifests.filter((m) => m.name !== '')
  const rendered = await mapConcurrently(named, RENDER_CONCURRENCY, async (m) => {
    const desired = await build(m)
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
