// Render records (docs/renderers.md#skipping-unchanged-renders) beside the real Tazuna CLI
// (TAZUNA_BIN) on one cluster: the CLI reads State the action wrote with a record and finds no
// changes; the CLI's own save keeps the annotation but records other entries, and the action
// then renders again and prints the same `state diff` text as the CLI. The same for a helmfile
// (docs/renderers.md#helm-records), and a chart calling randAlphaNum is modified on every run for
// both. Skipped, with the reason in the suite title, when TAZUNA_BIN is not set.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { RENDER_RECORD_ANNOTATION } from '../../../src/state/render-record.js'
import { renderDiffText } from '../../../src/state/text.js'
import { runCliProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import { countingEngine, syncCounting } from '../../support/counting-engine.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { describeWithTazuna, tazunaBin, tazunaSkipReason } from './tools.js'

let admin: KubeSession | undefined
let env: Record<string, string | undefined> = {}
beforeAll(async () => {
  if (tazunaSkipReason !== '') return
  admin = await adminSession()
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

/**
 * One helmfile manifest of one release of a local chart: a ConfigMap, and with `volatile` one
 * more value from `randAlphaNum` (docs/renderers.md#volatile-templates).
 */
function writeHelmProject(volatile: boolean): Project {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'records-interop-helm-'))
  const ns = uniqueName('rrh')
  const manifest = uniqueName('rrh')
  const chart = path.join(dir, 'helm', 'chart')
  mkdirSync(path.join(chart, 'templates'), { recursive: true })
  writeFileSync(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: app\nversion: 1.0.0\n')
  writeFileSync(
    path.join(chart, 'templates', 'objects.yaml'),
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n---\n` +
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  v: "1"\n' +
      (volatile ? '  token: {{ randAlphaNum 16 | quote }}\n' : '')
  )
  writeFileSync(
    path.join(dir, 'helm', 'helmfile.yaml'),
    `releases:\n  - name: app\n    namespace: ${ns}\n    chart: ./chart\n`
  )
  const file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    `spec:\n  manifests:\n    - name: ${manifest}\n      type: helmfile\n` +
      `      path: helm/helmfile.yaml\n      helmfile:\n        kubeVersion: v1.30.0\n` +
      `        defaultNamespace: ${ns}\n`
  )
  return { dir, file, ns, manifest }
}

const engineAt = (file: string) => countingEngine(file, env)
const actionSync = (file: string) => syncCounting(file, env, false)

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
  it.each([
    ['kustomize', () => writeProject()],
    ['helmfile', () => writeHelmProject(false)]
  ])(
    'the CLI finds no changes in State the action wrote with a %s record, and leaves it',
    async (_, write) => {
      const p = write()
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
    }
  )

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

  it('a chart calling randAlphaNum is never recorded: modified every run, as for the CLI', async () => {
    const p = writeHelmProject(true)
    await actionSync(p.file)
    expect(
      (await stateConfigMap(p.manifest)).metadata.annotations?.[RENDER_RECORD_ANNOTATION]
    ).toBeUndefined()
    const cli = await tazuna(p, ['state', 'diff'])
    expect(cli.code).toBe(0)
    const modifiedKeys = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.includes('modified'))
        .map((line) => line.split(/\s+/).find((word) => word.includes('ConfigMap')))
    expect(modifiedKeys(cli.stdout)).toEqual([expect.stringContaining('ConfigMap')])
    const action = await actionDiffText(p.file)
    expect(action.renders).toBe(1)
    expect(modifiedKeys(action.text)).toEqual(modifiedKeys(cli.stdout))
    rmSync(p.dir, { recursive: true })
  })
})
