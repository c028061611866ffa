// Render records (docs/renderers.md#skipping-unchanged-renders) against the real API server with
// the real render module: a sync keeps a record with each kustomize manifest's State, a later
// Diff or sync does not render a manifest whose record holds, and every change a render would
// see — a file it read, a file it only looked for, the manifest's settings, State written by
// someone else — makes it render again. The expected Diffs are those of a run with every
// manifest rendered (`renderAll`), computed beside each case.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { stateConfigMapName, STATE_NAMESPACE } from '../../../src/state/state.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import {
  countingEngine,
  diffBoth,
  recordAnnotation,
  syncCounting,
  syncObserved
} from '../../support/counting-engine.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'

let env: Record<string, string | undefined>
let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  env = {
    ...process.env,
    KUBECONFIG: adminKubeconfig(),
    TAZUNA_GOTEMPLATE_WASM: goTemplateEngineFiles().wasm,
    ...renderModuleEnv()
  }
  admin = await adminSession()
}, 300_000)
afterAll(() => admin.close())

const engineAt = (file: string, renderAll = false) => countingEngine(file, env, renderAll)

interface Project {
  dir: string
  file: string
  ns: string
  names: [string, string]
}

/** Two kustomize manifests `a` and `b`, each a ConfigMap with `data` in namespace `ns`. */
function writeProject(): Project {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'render-records-'))
  const ns = uniqueName('rr')
  const names: [string, string] = [uniqueName('rra'), uniqueName('rrb')]
  for (const sub of ['a', 'b']) {
    mkdirSync(path.join(dir, sub))
    writeFileSync(path.join(dir, sub, 'kustomization.yaml'), 'resources:\n  - objects.yaml\n')
    writeObjects(dir, sub, ns, '1')
  }
  const file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    [
      'spec:',
      '  manifests:',
      `    - name: ${names[0]}`,
      '      type: kustomize',
      '      path: ./a',
      `    - name: ${names[1]}`,
      '      type: kustomize',
      '      path: ./b',
      ''
    ].join('\n')
  )
  return { dir, file, ns, names }
}

function writeObjects(dir: string, sub: string, ns: string, value: string): void {
  const docs = [
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`,
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${sub}\n  namespace: ${ns}\ndata:\n  v: "${value}"\n`
  ]
  writeFileSync(path.join(dir, sub, 'objects.yaml'), docs.join('---\n'))
}

const sync = (file: string) => syncCounting(file, env, true)

/** A Diff with records, its renders, and the Diff with every manifest rendered. */
const diffRendered = (file: string, diffEnv = env) => diffBoth(file, diffEnv, ['a', 'b'])

describe('render records', () => {
  it('a sync keeps a record with each State; a Diff and a sync after it render nothing', async () => {
    const p = writeProject()
    expect((await sync(p.file)).sort()).toEqual(['a', 'b'])
    for (const name of p.names) {
      const record = JSON.parse((await recordAnnotation(admin, name))!) as { reads: string[][] }
      // Every question is kept relative to tazuna.yaml's directory.
      expect(record.reads).toContainEqual(['file', expect.stringMatching(/^(a|b)\/objects\.yaml$/)])
      expect(record.reads.every(([, file]) => !path.isAbsolute(file!))).toBe(true)
    }
    const { diffs, expected, renders } = await diffRendered(p.file)
    expect(renders).toEqual([])
    expect(diffs).toEqual(expected)
    expect(diffs.every((d) => d.entries.length === 0)).toBe(true)
    expect(await sync(p.file)).toEqual([])
    rmSync(p.dir, { recursive: true })
  })

  it('renders a manifest again when a file its render read changed', async () => {
    const p = writeProject()
    await sync(p.file)
    writeObjects(p.dir, 'b', p.ns, '2')
    const { diffs, expected, renders } = await diffRendered(p.file)
    expect(renders).toEqual(['b'])
    expect(diffs).toEqual(expected)
    expect(diffs[1]!.entries.map((e) => e.type)).toEqual(['modified'])
    // The sync applies it and records the new render; the next Diff renders nothing.
    expect(await sync(p.file)).toEqual(['b'])
    expect((await diffRendered(p.file)).renders).toEqual([])
    rmSync(p.dir, { recursive: true })
  })

  it('keeps an overlay its own reads when it renders the same text as its base', async () => {
    // b is a and nothing more: the two renders have one text, and b's record must still hold
    // b's kustomization.yaml among its questions, whichever render finished last.
    const p = writeProject()
    writeFileSync(path.join(p.dir, 'b', 'kustomization.yaml'), 'resources:\n  - ../a\n')
    expect((await sync(p.file)).sort()).toEqual(['a', 'b'])
    for (const name of p.names) {
      const record = JSON.parse((await recordAnnotation(admin, name))!) as { reads: string[][] }
      expect(record.reads).toContainEqual(['file', 'a/objects.yaml'])
    }
    const overlay = JSON.parse((await recordAnnotation(admin, p.names[1]))!) as {
      reads: string[][]
    }
    expect(overlay.reads).toContainEqual(['file', 'b/kustomization.yaml'])
    writeFileSync(
      path.join(p.dir, 'b', 'kustomization.yaml'),
      'resources:\n  - ../a\ncommonLabels:\n  overlay: b\n'
    )
    const { diffs, expected, renders } = await diffRendered(p.file)
    expect(renders).toContain('b')
    expect(diffs).toEqual(expected)
    expect(diffs[1]!.entries.length).toBeGreaterThan(0)
    rmSync(p.dir, { recursive: true })
  })

  it('renders again when a file appears where kustomize only looked for one', async () => {
    const p = writeProject()
    await sync(p.file)
    // krusty looked for kustomization.yml too: now there are two, which it refuses.
    writeFileSync(path.join(p.dir, 'a', 'kustomization.yml'), 'resources: []\n')
    const { engine, renders } = engineAt(p.file)
    try {
      await expect(engine.diff(await engine.loadExpanded())).rejects.toThrow(
        /manifest "rra-[0-9a-f]+": failed to build: .*Found multiple kustomization files/
      )
      expect(renders).toContain('a')
    } finally {
      engine.close()
    }
    rmSync(p.dir, { recursive: true })
  })

  it("renders again when the manifest's settings changed", async () => {
    const p = writeProject()
    await sync(p.file)
    // A default namespace is part of the conversion, so the record no longer holds.
    writeFileSync(
      p.file,
      [
        'spec:',
        '  manifests:',
        `    - name: ${p.names[0]}`,
        '      type: kustomize',
        '      path: ./a',
        '      kustomize:',
        '        defaultNamespace: elsewhere',
        `    - name: ${p.names[1]}`,
        '      type: kustomize',
        '      path: ./b',
        ''
      ].join('\n')
    )
    const { diffs, expected, renders } = await diffRendered(p.file)
    expect(renders).toEqual(['a'])
    expect(diffs).toEqual(expected)
    rmSync(p.dir, { recursive: true })
  })

  it('renders again when State no longer holds what the recorded render produced', async () => {
    const p = writeProject()
    await sync(p.file)
    // Someone else (another tool, the Go CLI) recorded another hash for b's ConfigMap; the
    // record stays on the ConfigMap, but its entries digest no longer matches State.
    const store = admin.store
    const stored = await store.read(p.names[1])
    const entries = new Map(stored.state.entries)
    const key = [...entries.keys()].find((k) => k.includes('/ConfigMap/'))!
    entries.set(key, '0'.repeat(64))
    await store.save(
      p.names[1],
      { ...stored.state, entries },
      { touchedKeys: new Set([key]), base: stored }
    )
    expect(await recordAnnotation(admin, p.names[1])).toBeDefined()
    const { diffs, expected, renders } = await diffRendered(p.file)
    expect(renders).toEqual(['b'])
    expect(diffs).toEqual(expected)
    expect(diffs[1]!.entries.map((e) => e.type)).toEqual(['modified'])
    rmSync(p.dir, { recursive: true })
  })

  it('keeps a record with a State that has none, leaving its data as it is', async () => {
    const p = writeProject()
    await sync(p.file)
    // As the Go CLI leaves it: the same data, no annotation.
    const name = stateConfigMapName(p.names[0])
    const cmPath = `/api/v1/namespaces/${STATE_NAMESPACE}/configmaps/${name}`
    const before = JSON.parse(
      (await admin.client.request({ method: 'GET', path: cmPath }, 'read')).body
    ) as { metadata: Record<string, unknown>; data: Record<string, string> }
    const { annotations: _, ...metadata } = before.metadata as { annotations?: unknown }
    await admin.client.request(
      { method: 'PUT', path: cmPath, body: { ...before, metadata: { ...metadata } } },
      'drop the record'
    )
    expect(await recordAnnotation(admin, p.names[0])).toBeUndefined()
    // A sync with nothing to apply renders a (it has no record) and keeps its record.
    expect(await sync(p.file)).toEqual(['a'])
    const after = JSON.parse(
      (await admin.client.request({ method: 'GET', path: cmPath }, 'read')).body
    ) as { data: Record<string, string> }
    expect(after.data).toEqual(before.data)
    expect(await recordAnnotation(admin, p.names[0])).toBeDefined()
    expect((await diffRendered(p.file)).renders).toEqual([])
    rmSync(p.dir, { recursive: true })
  })

  it('never records a render during which a request went out (a remote resource)', async () => {
    const server = http.createServer((_, res) => {
      res.end('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: remote\ndata:\n  v: "1"\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const p = writeProject()
      const port = (server.address() as AddressInfo).port
      writeFileSync(
        path.join(p.dir, 'a', 'kustomization.yaml'),
        `namespace: ${p.ns}\nresources:\n  - objects.yaml\n  - http://127.0.0.1:${port}/remote.yaml\n`
      )
      expect((await sync(p.file)).sort()).toEqual(['a', 'b'])
      expect(await recordAnnotation(admin, p.names[0])).toBeUndefined()
      // b's render may have overlapped a's request, and is then (conservatively) not recorded
      // either: only a is certain to render again.
      const { diffs, expected, renders } = await diffRendered(p.file)
      expect(renders).toContain('a')
      expect(diffs).toEqual(expected)
      rmSync(p.dir, { recursive: true })
    } finally {
      server.close()
    }
  })

  // With records a sync starts no program up front: unpacking one costs more than the State
  // read's wait it could fill (docs/benchmarks.md#program-on-demand); a manifest whose record
  // does not hold starts it with its render. Without records the program starts at once.
  it.each([
    ['with records, only for a render', false, ['read State']],
    ['with renderAll, at once', true, ['prepare', 'read State']]
  ])('a sync starts the render program %s', async (_, renderAll, order) => {
    const p = writeProject()
    await sync(p.file)
    writeObjects(p.dir, 'b', p.ns, '2')
    const { renders, events } = await syncObserved(p.file, env, { renderAll })
    const steps = events.filter((e) => e === 'prepare' || e === 'read State')
    expect(steps.filter((e, i) => steps.indexOf(e) === i)).toEqual(order)
    expect(renders.sort()).toEqual(renderAll ? ['a', 'b'] : ['b'])
    rmSync(p.dir, { recursive: true })
  })

  // State read 300 ms late, as across a network, and renders started 40 ms into that wait
  // (docs/renderers.md#renders-started-early): `a` starts rendering before State is read, `b`
  // (changed) is applied from the render started for it, rendered once and not again, and what
  // the sync leaves is what a sync without them leaves: the next Diff renders nothing and equals
  // the Diff with every manifest rendered, all empty.
  it('starts renders while a slow State read is awaited, and renders each manifest once', async () => {
    const p = writeProject()
    await sync(p.file)
    writeObjects(p.dir, 'b', p.ns, '2')
    const { renders, events } = await syncObserved(p.file, env, {
      timing: { earlyRenderWaitMs: 40, stateDelayMs: 300 }
    })
    expect(renders.sort()).toEqual(['a', 'b'])
    expect(events.indexOf('render a')).toBeGreaterThan(-1)
    expect(events.indexOf('render a')).toBeLessThan(events.indexOf('State read'))
    const { diffs, expected, renders: after } = await diffRendered(p.file)
    expect(after).toEqual([])
    expect(diffs).toEqual(expected)
    expect(diffs.every((d) => d.entries.length === 0)).toBe(true)
    rmSync(p.dir, { recursive: true })
  })

  it('renders every manifest with renderAll', async () => {
    const p = writeProject()
    await sync(p.file)
    const { engine, renders } = engineAt(p.file, true)
    try {
      await engine.diff(await engine.loadExpanded())
      expect(renders.sort()).toEqual(['a', 'b'])
    } finally {
      engine.close()
    }
    rmSync(p.dir, { recursive: true })
  })
})
