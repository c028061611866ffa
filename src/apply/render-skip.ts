/**
 * Skipping unchanged renders (docs/renderers.md#skipping-unchanged-renders): a manifest whose
 * State carries a render record that holds — the same engine, the same settings, every question
 * its last render asked the files answered the same, and the State's entries the ones that
 * render produced — would render to exactly its State, so its Diff is empty and it is not
 * rendered. A record can only make a manifest count as unchanged; whatever is applied always
 * comes from a render.
 */
import { entriesDigest, type RenderRecord } from '../state/render-record.js'
import type { BuildDesired, DesiredState, ManifestUnit } from './manifest-unit.js'
import type { StoredState } from './ports.js'

/**
 * `build`, except for a candidate manifest whose State (from `stored`, the run's one State read)
 * has a record that `holds`: that one resolves to its State's entries, marked `skipped`. A
 * failed State read or check renders as usual (the read's own failure is reported by its
 * reader).
 */
export function skippingUnchanged<M extends ManifestUnit>(
  build: BuildDesired<M>,
  stored: Promise<ReadonlyMap<string, StoredState>>,
  check: { candidate: (m: M) => boolean; holds: (m: M, record: RenderRecord) => Promise<boolean> }
): BuildDesired<M> {
  return async (m) => {
    if (m.name === '' || !check.candidate(m)) return build(m)
    const state = await stored.then(
      (read) => read.get(m.name),
      () => undefined
    )
    const record = state?.record
    if (
      state === undefined ||
      record === undefined ||
      entriesDigest(state.state.entries) !== record.entries ||
      !(await check.holds(m, record).catch(() => false))
    ) {
      return build(m)
    }
    const skipped: DesiredState = {
      objects: [],
      entries: state.state.entries,
      alwaysSync: new Set(),
      skipped: { stored: state, render: () => build(m) }
    }
    return skipped
  }
}
