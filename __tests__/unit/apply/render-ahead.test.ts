// Rendering ahead (src/apply/render-ahead.ts) and the Diff's renders beside the State read
// (src/apply/manifest-diffs.ts): the work starts early, but what renders and which failure is
// reported, and when, stay as they were.
import { describe, expect, it } from '@jest/globals'
import { computeManifestDiffs } from '../../../src/apply/manifest-diffs.js'
import type { DesiredState, ManifestUnit } from '../../../src/apply/manifest-unit.js'
import { renderingAhead, rendersFromFilesOnly } from '../../../src/apply/render-ahead.js'
import { runLayeredApply } from '../../../src/apply/layered-apply.js'
import { FakeCluster, fakeClock, FakeStore, memoryLog } from './fakes.js'

const unit = (name: string, type = 'kustomize'): ManifestUnit => ({ name, type })
const nothing = (): DesiredState => ({ objects: [], entries: new Map(), alwaysSync: new Set() })

/** A build whose renders finish when the test says, recording the order they started in. */
function controlledBuild() {
  const started: string[] = []
  const finish = new Map<string, { resolve: () => void; reject: (error: Error) => void }>()
  const build = (m: ManifestUnit) => {
    started.push(m.name)
    return new Promise<DesiredState>((resolve, reject) =>
      finish.set(m.name, { resolve: () => resolve(nothing()), reject })
    )
  }
  return { started, finish, build }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('renderingAhead', () => {
  it('renders only kustomize manifests ahead: Helm, genesissecret and oras read more than files', () => {
    expect(
      ['kustomize', 'helmfile', 'genesissecret', 'oras'].map((t) =>
        rendersFromFilesOnly(unit('m', t))
      )
    ).toEqual([true, false, false, false])
  })

  it('starts the given manifests at once, in order, at most `limit` at a time', async () => {
    const { started, finish, build } = controlledBuild()
    const ahead = ['a', 'b', 'c'].map((n) => unit(n))
    renderingAhead(ahead, build, 2)
    expect(started).toEqual(['a', 'b'])
    finish.get('a')!.resolve()
    await settle()
    expect(started).toEqual(['a', 'b', 'c'])
  })

  it('hands each early render out once, and renders the others when asked', async () => {
    const { started, finish, build } = controlledBuild()
    const [a, b] = [unit('a'), unit('b', 'helmfile')]
    const builder = renderingAhead([a], build, 4)
    const first = builder(a)
    expect(started).toEqual(['a'])
    finish.get('a')!.resolve()
    await expect(first).resolves.toEqual(nothing())
    void builder(b)
    void builder(a)
    expect(started).toEqual(['a', 'b', 'a'])
  })

  it('moves a queued manifest its layer asks for to the front, still within the limit', async () => {
    const { started, finish, build } = controlledBuild()
    const [a, b, c, d] = [unit('a'), unit('b'), unit('c'), unit('d')]
    const builder = renderingAhead([a, b, c, d], build, 1)
    const asked = [builder(d), builder(c)]
    // The renders share the cores: starting d beside a would only make both finish later.
    expect(started).toEqual(['a'])
    finish.get('a')!.resolve()
    await settle()
    expect(started).toEqual(['a', 'd'])
    finish.get('d')!.resolve()
    await settle()
    expect(started).toEqual(['a', 'd', 'c'])
    finish.get('c')!.resolve()
    await expect(Promise.all(asked)).resolves.toEqual([nothing(), nothing()])
    // Each is handed out once: asked again, it renders anew.
    void builder(d)
    expect(started).toEqual(['a', 'd', 'c', 'b', 'd'])
  })

  it('renders a manifest asked for twice while queued once more, not twice from the queue', async () => {
    const { started, finish, build } = controlledBuild()
    const [a, b] = [unit('a'), unit('b')]
    const builder = renderingAhead([a, b], build, 1)
    void builder(b)
    void builder(b)
    expect(started).toEqual(['a', 'b'])
    finish.get('a')!.resolve()
    await settle()
    expect(started).toEqual(['a', 'b', 'b'])
  })

  it('reports a failed early render in its own layer, after the layers before it applied', async () => {
    const store = new FakeStore()
    const cluster = new FakeCluster()
    const { finish, build } = controlledBuild()
    const [first, second] = [unit('first'), unit('second')]
    const builder = renderingAhead([first, second], build, 4)
    finish.get('second')!.reject(new Error('kustomize build second: boom'))
    await settle()
    finish.get('first')!.resolve()
    const report = await runLayeredApply(
      [[first], [second]],
      [],
      { sync: true, prune: false, atomic: false, gitCommitHash: 'abc' },
      { cluster, store, clock: fakeClock(), log: memoryLog(), build: builder }
    )
    expect(report.layers.map((l) => l.result)).toEqual(['succeeded', 'failed'])
    expect(report.error).toContain('kustomize build second: boom')
  })
})

describe('computeManifestDiffs renders while State is read', () => {
  it('starts the renders before State answers', async () => {
    const { started, finish, build } = controlledBuild()
    let answer: (() => void) | undefined
    const store = {
      readMany: () =>
        new Promise<Map<string, never>>(
          (resolve) => (answer = () => resolve(new Map<string, never>()))
        )
    }
    const diffs = computeManifestDiffs([unit('a'), unit('b')], { store, build, log: memoryLog() })
    await settle()
    expect(started).toEqual(['a', 'b'])
    finish.get('a')!.resolve()
    finish.get('b')!.resolve()
    answer!()
    await expect(diffs).resolves.toEqual([
      { manifest: 'a', type: 'kustomize', entries: [] },
      { manifest: 'b', type: 'kustomize', entries: [] }
    ])
  })

  it('reports a State failure before a render failure, without waiting for the renders', async () => {
    const { finish, build } = controlledBuild()
    const store = { readMany: () => Promise.reject(new Error('state: HTTP 403 Forbidden')) }
    const diffs = computeManifestDiffs([unit('a')], { store, build, log: memoryLog() })
    await expect(diffs).rejects.toThrow('state: HTTP 403 Forbidden')
    finish.get('a')!.reject(new Error('never reported'))
  })

  it('reports the first manifest in declaration order that failed to render, by name', async () => {
    const { finish, build } = controlledBuild()
    const store = { readMany: () => Promise.resolve(new Map()) }
    const diffs = computeManifestDiffs([unit('a'), unit('b')], { store, build, log: memoryLog() })
    finish.get('b')!.reject(new Error('b broke'))
    await settle()
    finish.get('a')!.reject(new Error('a broke'))
    await expect(diffs).rejects.toThrow('manifest "a": failed to build: a broke')
  })

  it('with keepFailures, gives each failed manifest its error and the others their Diff', async () => {
    const { finish, build } = controlledBuild()
    const store = { readMany: () => Promise.resolve(new Map()) }
    const diffs = computeManifestDiffs([unit('a'), unit('b')], {
      store,
      build,
      log: memoryLog(),
      keepFailures: true
    })
    finish.get('a')!.reject(new Error('a broke'))
    finish.get('b')!.resolve()
    await expect(diffs).resolves.toEqual([
      {
        manifest: 'a',
        type: 'kustomize',
        entries: [],
        error: 'manifest "a": failed to build: a broke'
      },
      { manifest: 'b', type: 'kustomize', entries: [] }
    ])
  })
})
