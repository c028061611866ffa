/**
 * The review gate's place in an apply (README.md#gated-deploys): under the run lock, from the
 * State read the apply uses, every selected manifest renders and its Diff goes to the gate
 * before any object is sent. The layered apply then takes those same renders, so what it applies
 * is what the gate compared. Rendering every manifest first means a Helm release renders with
 * the API versions the cluster had before this run, as the pull request's Diff job rendered it,
 * not after an earlier layer installed CRDs.
 */
import { mapConcurrently } from '../apply/layered-apply.js'
import type { DesiredState } from '../apply/manifest-unit.js'
import type { StateStore, StoredState } from '../apply/ports.js'
import { messageOf } from '../apply/sync-manifest.js'
import type { Manifest } from '../config/schema.js'
import { selectedByTags } from '../plan/tags.js'
import type { GateManifest } from '../report/diff-gate.js'
import { computeDiff } from '../state/diff.js'
import type { ConfigRun } from './load.js'
import type { EngineSettings } from './ports.js'
import type { ReviewGate } from './requests.js'

/** Renders at once while the gate computes the Diff (as the Diff job does). */
const GATE_CONCURRENCY = 8

/** What the gate takes of an apply's deps (src/engine/apply.ts ApplyDeps). */
interface GateDeps {
  settings: Pick<EngineSettings, 'tags'>
  session: { store: Pick<StateStore, 'readMany'> }
  build: (m: Manifest) => Promise<DesiredState>
}

/**
 * Computes every selected named manifest's Diff from the run's State read and hands it to
 * `gate`; returns the deps whose `build` answers with the renders the gate used.
 */
export async function passReviewGate<D extends GateDeps>(
  run: ConfigRun,
  gate: ReviewGate,
  deps: D
): Promise<D> {
  const build = rendersOnce(deps.build)
  const selected = run.manifests.filter(
    (m) => m.name !== '' && selectedByTags(m.tags, deps.settings.tags)
  )
  const stored = await deps.session.store.readMany(selected.map((m) => m.name))
  const diff = await mapConcurrently(selected, GATE_CONCURRENCY, (m) =>
    gateManifestOf(m, build, stored.get(m.name))
  )
  await gate(diff)
  return { ...deps, build }
}

async function gateManifestOf(
  m: Manifest,
  build: (m: Manifest) => Promise<DesiredState>,
  stored: StoredState | undefined
): Promise<GateManifest> {
  const recorded = stored?.state.entries ?? new Map<string, string>()
  try {
    let desired = await build(m)
    // Skipped against another State than this run's: the layered apply renders it after all.
    if (desired.skipped !== undefined && desired.skipped.stored !== stored) {
      desired = await desired.skipped.render()
    }
    const entries = computeDiff(recorded, desired.entries, desired.alwaysSync)
    return { manifest: m.name, entries, recorded }
  } catch (error) {
    return { manifest: m.name, error: messageOf(error), recorded }
  }
}

/** `build`, rendering each manifest once however often it is asked (a failure included). */
function rendersOnce(
  build: (m: Manifest) => Promise<DesiredState>
): (m: Manifest) => Promise<DesiredState> {
  const renders = new Map<Manifest, Promise<DesiredState>>()
  return (m) => {
    let render = renders.get(m)
    if (render === undefined) {
      render = build(m)
      render.catch(() => undefined)
      renders.set(m, render)
    }
    return render
  }
}
