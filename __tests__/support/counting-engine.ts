// An engine on the real ports with render records on (the build identity of src/), whose
// kustomize renders (by directory) and Helm renders (`helm:<release>`) are counted: what the render-record tests observe
// (docs/renderers.md#skipping-unchanged-renders).
import path from 'node:path'
import { expect } from '@jest/globals'
import { processEnginePorts } from '../../src/adapters/engine-ports.js'
import type { KubeSession } from '../../src/adapters/kube/session.js'
import { createEngine, type Engine } from '../../src/engine/engine.js'
import type { ManifestDiff } from '../../src/report/model.js'
import { RENDER_RECORD_ANNOTATION } from '../../src/state/render-record.js'
import { stateConfigMapName, STATE_NAMESPACE } from '../../src/state/state.js'

const srcDir = path.join(import.meta.dirname, '..', '..', 'src')
const quiet = { info: () => undefined, warn: () => undefined }

/**
 * The engine for `file`, the directories (base names) kustomize rendered so far and the Helm
 * releases (`helm:<name>`), and in order
 * when the render programs were asked to start (`prepare`) and State was asked for (`read State`).
 */
export function countingEngine(
  file: string,
  env: Record<string, string | undefined>,
  renderAll = false,
  timing: EngineTiming = {}
): { engine: Engine; renders: string[]; events: string[] } {
  const renders: string[] = []
  const events: string[] = []
  const ports = processEnginePorts({ env, codeDir: srcDir, log: quiet })
  const { renderer } = ports
  const counted: typeof renderer = {
    ...renderer,
    kustomize: (dir: string) => {
      renders.push(path.basename(dir))
      events.push(`render ${path.basename(dir)}`)
      return renderer.kustomize(dir)
    },
    helm: (release) => {
      renders.push(`helm:${release.name}`)
      return renderer.helm(release)
    },
    prepare: (types) => {
      events.push('prepare')
      renderer.prepare?.(types)
    }
  }
  const openSession = async () => {
    const session = await ports.openSession()
    const { store } = session
    const counted: typeof store = {
      read: (manifest) => store.read(manifest),
      readMany: async (names) => {
        events.push('read State')
        if (timing.stateDelayMs !== undefined)
          await new Promise((resolve) => setTimeout(resolve, timing.stateDelayMs))
        const read = await store.readMany(names)
        events.push('State read')
        return read
      },
      save: (manifest, state, options) => store.save(manifest, state, options),
      ...(store.saveRecord && {
        saveRecord: (manifest, record, base) => store.saveRecord!(manifest, record, base)
      })
    }
    return { ...session, store: counted }
  }
  // Renders started early are off unless asked for: they render manifests whose record holds,
  // which the counts here would take for renders the run used.
  const settings = {
    file,
    environment: '',
    tags: [],
    version: '0.1.0',
    renderAll,
    earlyRenderWaitMs: timing.earlyRenderWaitMs ?? Infinity
  }
  const engine = createEngine(settings, { ...ports, renderer: counted, openSession })
  return { engine, renders, events }
}

/** When renders start early and how long the State read takes (docs/renderers.md#renders-started-early). */
export interface EngineTiming {
  earlyRenderWaitMs?: number
  /** Added to every State read. */
  stateDelayMs?: number
}

/** `apply --sync` (with prune when asked) of `file`; asserts success, returns the renders. */
export async function syncCounting(
  file: string,
  env: Record<string, string | undefined>,
  prune: boolean
): Promise<string[]> {
  return (await syncObserved(file, env, { prune })).renders
}

/**
 * `apply --sync` of `file` loaded as the command line loads it; asserts success, returns the
 * renders and the events of {@link countingEngine}.
 */
export async function syncObserved(
  file: string,
  env: Record<string, string | undefined>,
  options: { prune?: boolean; renderAll?: boolean; timing?: EngineTiming } = {}
): Promise<{ renders: string[]; events: string[] }> {
  const { engine, renders, events } = countingEngine(file, env, options.renderAll, options.timing)
  try {
    const run = await engine.loadForApply({ sync: true })
    const outcome = await engine.apply(run, {
      sync: true,
      prune: options.prune ?? false,
      atomic: false,
      gitCommitHash: '',
      log: quiet
    })
    expect(outcome.failure).toBeUndefined()
    return { renders, events }
  } finally {
    engine.close()
  }
}

/**
 * A Diff of `file` with records, the renders it made, and the Diff with every manifest rendered
 * (asserting that one rendered `everyRender`, sorted): what each render-record case compares.
 */
export async function diffBoth(
  file: string,
  env: Record<string, string | undefined>,
  everyRender: readonly string[]
): Promise<{ diffs: ManifestDiff[]; expected: ManifestDiff[]; renders: string[] }> {
  const withRecords = countingEngine(file, env)
  const everything = countingEngine(file, env, true)
  try {
    const diffs = await withRecords.engine.diff(await withRecords.engine.loadExpanded())
    const expected = await everything.engine.diff(await everything.engine.loadExpanded())
    expect(everything.renders.sort()).toEqual(everyRender)
    return { diffs, expected, renders: withRecords.renders.sort() }
  } finally {
    withRecords.engine.close()
    everything.engine.close()
  }
}

/** The render record annotation of `manifest`'s State ConfigMap, as the server has it. */
export async function recordAnnotation(
  session: KubeSession,
  manifest: string
): Promise<string | undefined> {
  const res = await session.client.request(
    {
      method: 'GET',
      path: `/api/v1/namespaces/${STATE_NAMESPACE}/configmaps/${stateConfigMapName(manifest)}`
    },
    'read State'
  )
  const cm = JSON.parse(res.body) as { metadata: { annotations?: Record<string, string> } }
  return cm.metadata.annotations?.[RENDER_RECORD_ANNOTATION]
}
