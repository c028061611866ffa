// Render records (docs/renderers.md#skipping-unchanged-renders) beside the real Tazuna CLI
// (TAZUNA_BIN) on one cluster: the CLI reads State the action wrote with a record and finds no
// changes; the CLI's own save keeps the annotation but records other entries, and the action
// then renders again and prints the same `state diff` text as the CLI. Skipped, with the reason
// in the suite title, when TAZUNA_BIN is not set.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube-session.js'
import { processEnginePorts } from '../../../src/adapters/engine-ports.js'
import { createEngine, type Engine } from '../../../src/engine/engine.js'
import { RENDER_RECORD_ANNOTATION } from '../../../src/state/render-record.js'
import { renderDiffText } from '../../../src/state/text.js'
import { runCliProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { describeWithTazuna, tazunaBin, tazunaSkipReason } from './tools.js'

const srcDir = path.join(import.meta.dirname, '..', '..', '..', 'src')
const quiet = { info: () => undefined, warn: () => undefined }

let admin: KubeSession | undefined
let env: Record<string, string | undefined> = {}
beforeAll(() => {
  if (tazunaSkipReason !== '') return
  admin = adminSession()
  env = {
    ...process.env,
    KUBECONFIG: adminKubeconfig(),
    TAZUNA_GOTEMPLATE_WASM: goTemplateEngineFiles().wasm,
    ...renderModuleEnv()
  }
}, 300_000)
afterAll(() => admin?.close())

interface Project {
  dir: string
  file: string
  ns: string
  manifest: string
}

function writeProject(): Project {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'records-interop-'))
  const ns = uniqueName('rri')
  const manifest = uniqueName('rri')
  mkdirSync(path.join(dir, 'app'))
  writeFileSync(path.join(dir, 'app', 'kustomization.yaml'), 'resources:\n  - objects.yaml\n')
  writeValue({ dir, ns }, '1')
  const file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    `spec:\n  manifests:\n    - name: ${manifest}\n      type: kustomize\n      path: ./app\n`
  )
  return { dir, file, ns, manifest }
}

function writeValue(p: Pick<Project, 'dir' | 'ns'>, value: string): void {
  writeFileSync(
    path.join(p.dir, 'app', 'objects.yaml'),
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${p.ns}\n---\n` +
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: ${p.ns}\n` +
      `data:\n  v: "${value}"\n`
  )
}

/** An engine with records on (the build identity of src/), its kustomize renders counted. */
function engineAt(file: string): { engine: Engine; renders: string[] } {
  const renders: string[] = []
  const ports = processEnginePorts({ env, codeDir: srcDir, log: quiet })
  const { renderer } = ports
  const counted = {
    ...renderer,
    kustomize: (dir: string) => {
      renders.push(dir)
      return renderer.kustomize(dir)
    }
  }
  const settings = { file, environment: '', tags: [], version: '0.1.0' }
  return { engine: createEngine(settings, { ...ports, renderer: counted }), renders }
}

async function actionSync(file: string): Promise<void> {
  const { engine } = engineAt(file)
  try {
    const { run } = await engine.check()
    const outcome = await engine.apply(run!, {
      sync: true,
      prune: false,
      atomic: false,
      gitCommitHash: '',
      log: quiet
    })
    expect(outcome.failure).toBeUndefined()
  } finally {
    engine.close()
  }
}

async function actionDiffText(file: string): Promise<{ text: string; renders: number }> {
  const { engine, renders } = engineAt(file)
  try {
    const diffs = await engine.diff(await engine.loadExpanded())
    return { text: renderDiffText(diffs), renders: renders.length }
  } finally {
    engine.close()
  }
}

function tazuna(p: Project, args: readonly string[]): Promise<CliResult> {
  return runCliProcess(tazunaBin ?? 'tazuna', [...args, '-f', p.file], {
    cwd: p.dir,
    env: { ...process.env, KUBECONFIG: adminKubeconfig() }
  })
}

async function stateConfigMap(manifest: string) {
  const res = await admin!.client.request(
    { method: 'GET', path: `/api/v1/namespaces/tazuna/configmaps/tazuna-state-${manifest}` },
    'read State'
  )
  return JSON.parse(res.body) as {
    metadata: { resourceVersion: string; annotations?: Record<string, string> }
    data: Record<string, string>
  }
}

describeWithTazuna(`render records beside the Tazuna CLI${tazunaSkipReason}`, () => {
  it('the CLI finds no changes in State the action wrote with a record, and leaves it', async () => {
    const p = writeProject()
    await actionSync(p.file)
    const written = await stateConfigMap(p.manifest)
    expect(written.metadata.annotations?.[RENDER_RECORD_ANNOTATION]).toBeDefined()
    expect(await tazuna(p, ['state', 'diff'])).toMatchObject({
      code: 0,
      stdout: 'No changes detected.\n'
    })
    expect((await tazuna(p, ['apply', '--sync'])).code).toBe(0)
    expect((await stateConfigMap(p.manifest)).metadata.resourceVersion).toBe(
      written.metadata.resourceVersion
    )
    expect(await actionDiffText(p.file)).toEqual({ text: 'No changes detected.\n', renders: 0 })
    rmSync(p.dir, { recursive: true })
  })

  it("renders again when the CLI's save left the record but recorded other entries", async () => {
    const p = writeProject()
    await actionSync(p.file)
    const record = (await stateConfigMap(p.manifest)).metadata.annotations?.[
      RENDER_RECORD_ANNOTATION
    ]
    // The CLI syncs a change: its save replaces data and keeps the annotation as it was.
    writeValue(p, '2')
    expect((await tazuna(p, ['apply', '--sync'])).code).toBe(0)
    expect(
      (await stateConfigMap(p.manifest)).metadata.annotations?.[RENDER_RECORD_ANNOTATION]
    ).toBe(record)
    // Back to the files the record was made from: its key holds again, its entries do not.
    writeValue(p, '1')
    const cli = await tazuna(p, ['state', 'diff'])
    expect(cli.code).toBe(0)
    expect(cli.stdout).toContain('modified')
    expect(await actionDiffText(p.file)).toEqual({ text: cli.stdout, renders: 1 })
    rmSync(p.dir, { recursive: true })
  })
})
