// Render records for helmfile manifests (docs/renderers.md#helm-records) against the real API
// server with the real Helm program: a sync keeps a record with the State, a later Diff or sync
// renders no release while every input is unchanged, and each input a release's render sees —
// the helmfile's template and its vars, a values file, a chart file, a file new in the chart,
// `kubeVersion`, and the API versions the server serves — makes it render again. The expected
// Diffs are those of a run with every manifest rendered (`renderAll`), computed beside each case.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import { diffBoth, recordAnnotation, syncCounting } from '../../support/counting-engine.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { fixturesDir } from '../render/harness.js'

let env: Record<string, string | undefined>
let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  env = {
    ...process.env,
    KUBECONFIG: adminKubeconfig(),
    TAZUNA_GOTEMPLATE_WASM: goTemplateEngineFiles().wasm,
    RR_LEVEL: 'info',
    ...renderModuleEnv()
  }
  admin = await adminSession()
}, 300_000)
afterAll(() => admin.close())

interface Project {
  dir: string
  file: string
  ns: string
  manifest: string
  /** A group no other test serves: the chart renders one more key when the server has it. */
  group: string
}

/**
 * One helmfile manifest: a templated helmfile with a var from the environment, and two releases
 * of a local chart — `api` with a values file, `web` with inline values.
 */
function writeProject(options: { kubeVersion?: string; group?: string } = {}): Project {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'helm-records-'))
  const ns = uniqueName('hr')
  const manifest = uniqueName('hr')
  const group = options.group ?? `${uniqueName('g')}.example.com`
  const chart = path.join(dir, 'helm', 'charts', 'svc')
  mkdirSync(path.join(chart, 'templates'), { recursive: true })
  mkdirSync(path.join(dir, 'helm', 'values'))
  writeFileSync(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: svc\nversion: 1.0.0\n')
  writeFileSync(path.join(chart, 'values.yaml'), 'color: blue\nnamespaceToo: false\n')
  writeFileSync(
    path.join(chart, 'templates', 'namespace.yaml'),
    '{{- if .Values.namespaceToo }}\napiVersion: v1\nkind: Namespace\nmetadata:\n' +
      '  name: {{ .Release.Namespace }}\n{{- end }}\n'
  )
  writeConfigMapTemplate({ dir }, '')
  writeFileSync(path.join(dir, 'helm', 'values', 'api.yaml'), 'namespaceToo: true\ncolor: red\n')
  writeFileSync(
    path.join(dir, 'helm', 'helmfile.yaml.gotmpl'),
    [
      'releases:',
      '  - name: api',
      `    namespace: ${ns}`,
      '    chart: ./charts/svc',
      '    values:',
      '      - values/api.yaml',
      '      - level: {{ .Values.level | quote }}',
      '  - name: web',
      `    namespace: ${ns}`,
      '    chart: ./charts/svc',
      '    values:',
      '      - color: green',
      ''
    ].join('\n')
  )
  const file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    [
      'spec:',
      '  manifests:',
      `    - name: ${manifest}`,
      '      type: helmfile',
      '      path: helm/helmfile.yaml.gotmpl',
      '      helmfile:',
      `        defaultNamespace: ${ns}`,
      ...(options.kubeVersion ? [`        kubeVersion: ${options.kubeVersion}`] : []),
      '        vars:',
      '          level: { from: env, env: RR_LEVEL }',
      ''
    ].join('\n')
  )
  return { dir, file, ns, manifest, group }
}

/** The chart's ConfigMap, with `extra` lines in its data. */
function writeConfigMapTemplate(project: Pick<Project, 'dir'>, extra: string): void {
  writeFileSync(
    path.join(project.dir, 'helm', 'charts', 'svc', 'templates', 'configmap.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n' +
      '  color: {{ .Values.color | quote }}\n  level: {{ .Values.level | default "none" | quote }}\n' +
      '  kube: {{ .Capabilities.KubeVersion.Minor | quote }}\n' +
      extra
  )
}

/** Serves `group`/v1 from the API server (a CRD), once discovery lists it. */
async function serveGroup(group: string): Promise<() => Promise<void>> {
  const name = `widgets.${group}`
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
          }
        }
      ]
    }
  }
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
  const created = await admin.client.request(
    { method: 'POST', path: base, body: JSON.stringify(crd) },
    'create a CRD'
  )
  expect(created.status).toBe(201)
  for (let i = 0; i < 100; i++) {
    const res = await admin.client.request({ method: 'GET', path: '/apis' }, 'discovery')
    if (res.body.includes(`"${group}/v1"`)) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return async () => {
    await admin.client.request({ method: 'DELETE', path: `${base}/${name}` }, 'delete a CRD')
  }
}

const sync = (file: string, syncEnv = env) => syncCounting(file, syncEnv, true)

/** The group versions the server serves now, but those of groups under the domain `except`. */
async function servedApis(except?: string): Promise<string> {
  const res = await admin.client.request({ method: 'GET', path: '/apis' }, 'discovery')
  const { groups } = JSON.parse(res.body) as {
    groups: { name: string; versions: { groupVersion: string }[] }[]
  }
  return groups
    .filter((g) => except === undefined || !g.name.endsWith(`.${except}`))
    .flatMap((g) => g.versions.map((v) => v.groupVersion))
    .sort()
    .join(' ')
}

/**
 * Runs a case whose renders discover the server's capabilities. Another test file may create or
 * delete a CRD meanwhile, and that changes an input of every such render, so that a record
 * rightly no longer holds. A failure is therefore tried again (twice at most) only when the
 * served group versions changed during the try; any other failure stands.
 */
async function withServedApisFixed(
  scenario: (attempt: number) => Promise<void>,
  except?: string
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const before = await servedApis(except)
    try {
      await scenario(attempt)
      return
    } catch (error) {
      if (attempt === 3 || (await servedApis(except)) === before) throw error
    }
  }
}

/** A Diff with records, its renders, and the Diff with every manifest rendered. */
const diffRendered = (file: string, diffEnv = env) =>
  diffBoth(file, diffEnv, ['helm:api', 'helm:web'])

describe('render records of helmfile manifests', () => {
  it('a sync keeps a record; a Diff and a sync after it render no release', async () => {
    await withServedApisFixed(async () => {
      const project = writeProject()
      expect((await sync(project.file)).sort()).toEqual(['helm:api', 'helm:web'])
      const record = JSON.parse((await recordAnnotation(admin, project.manifest))!) as {
        reads: string[][]
      }
      // The chart load's questions, relative to tazuna.yaml's directory.
      expect(record.reads).toContainEqual(['file', 'helm/charts/svc/templates/configmap.yaml'])
      expect(record.reads.every(([, file]) => !path.isAbsolute(file!))).toBe(true)
      const { diffs, expected, renders } = await diffRendered(project.file)
      expect(renders).toEqual([])
      expect(diffs).toEqual(expected)
      expect(diffs.every((d) => d.entries.length === 0)).toBe(true)
      expect(await sync(project.file)).toEqual([])
      rmSync(project.dir, { recursive: true })
    })
  }, 120_000)

  it('renders again when a values file, a chart file or a var changed', async () => {
    await withServedApisFixed(async () => {
      const project = writeProject()
      await sync(project.file)
      // A values file.
      writeFileSync(path.join(project.dir, 'helm', 'values', 'api.yaml'), 'namespaceToo: true\n')
      let both = await diffRendered(project.file)
      expect(both.renders).toEqual(['helm:api', 'helm:web'])
      expect(both.diffs).toEqual(both.expected)
      expect(both.diffs.flatMap((d) => d.entries.map((e) => e.type))).toEqual(['modified'])
      await sync(project.file)
      expect(await sync(project.file)).toEqual([])
      // A template of the chart.
      writeConfigMapTemplate(project, '  more: "yes"\n')
      both = await diffRendered(project.file)
      expect(both.renders).toEqual(['helm:api', 'helm:web'])
      expect(both.diffs).toEqual(both.expected)
      await sync(project.file)
      // A var the helmfile's template reads from the environment.
      both = await diffRendered(project.file, { ...env, RR_LEVEL: 'debug' })
      expect(both.renders).toEqual(['helm:api', 'helm:web'])
      expect(both.diffs).toEqual(both.expected)
      expect(both.diffs.flatMap((d) => d.entries.map((e) => e.type))).toEqual(['modified'])
      expect((await diffRendered(project.file)).renders).toEqual([])
      rmSync(project.dir, { recursive: true })
    })
  }, 180_000)

  it('renders again when a file appears in the chart, or kubeVersion changed', async () => {
    const project = writeProject({ kubeVersion: 'v1.29.0' })
    await sync(project.file)
    expect((await diffRendered(project.file)).renders).toEqual([])
    writeFileSync(
      path.join(project.dir, 'helm', 'charts', 'svc', 'templates', 'extra.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\n'
    )
    let both = await diffRendered(project.file)
    expect(both.renders).toEqual(['helm:api', 'helm:web'])
    expect(both.diffs).toEqual(both.expected)
    expect(both.diffs.flatMap((d) => d.entries.map((e) => e.type))).toEqual(['added', 'added'])
    await sync(project.file)
    writeFileSync(project.file, readFileSync(project.file, 'utf8').replace('v1.29.0', 'v1.30.0'))
    both = await diffRendered(project.file)
    expect(both.renders).toEqual(['helm:api', 'helm:web'])
    expect(both.diffs).toEqual(both.expected)
    expect(both.diffs.flatMap((d) => d.entries.map((e) => e.type))).toEqual([
      'modified',
      'modified'
    ])
    rmSync(project.dir, { recursive: true })
  }, 180_000)

  it('renders again when the server serves another API version', async () => {
    // A group of its own per try: a CRD deleted at the end of one may still be going.
    const domain = `${uniqueName('g')}.example.com`
    await withServedApisFixed(async (attempt) => {
      const project = writeProject({ group: `try${attempt}.${domain}` })
      writeConfigMapTemplate(
        project,
        `  {{- if .Capabilities.APIVersions.Has "${project.group}/v1" }}\n  widgets: "served"\n  {{- end }}\n`
      )
      await sync(project.file)
      expect((await diffRendered(project.file)).renders).toEqual([])
      const unserve = await serveGroup(project.group)
      try {
        const both = await diffRendered(project.file)
        expect(both.renders).toEqual(['helm:api', 'helm:web'])
        expect(both.diffs).toEqual(both.expected)
        expect(both.diffs.flatMap((d) => d.entries.map((e) => e.type))).toEqual([
          'modified',
          'modified'
        ])
      } finally {
        await unserve()
      }
      rmSync(project.dir, { recursive: true })
    }, domain)
  }, 180_000)

  it('resolves a var from op once in a sync whose record does not hold', async () => {
    // Its own kubeVersion: a CRD another test file creates meanwhile changes no capability here.
    const project = writeProject({ kubeVersion: 'v1.29.0' })
    // The fixture's stand-in for the 1Password CLI, behind a script that notes each call.
    const standIn = path.join(fixturesDir, 'build-genesissecret-op', 'bin', 'op')
    const bin = path.join(project.dir, 'bin')
    const calls = path.join(project.dir, 'op-calls')
    mkdirSync(bin)
    writeFileSync(
      path.join(bin, 'op'),
      `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${standIn}' "$@"\n`,
      {
        mode: 0o755
      }
    )
    const vars = '          level: { from: env, env: RR_LEVEL }'
    const op = '{ key: label, vault: "Production Vault", item: database, field: password }'
    writeFileSync(
      project.file,
      readFileSync(project.file, 'utf8').replace(
        vars,
        `${vars}\n          password: { from: op, op: ${op} }`
      )
    )
    const asked = (): number => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length
    const originalPath = process.env.PATH
    process.env.PATH = `${bin}${path.delimiter}${originalPath}`
    try {
      expect((await sync(project.file)).sort()).toEqual(['helm:api', 'helm:web'])
      expect(asked()).toBe(1)
      // The record holds: the check alone resolves the vars.
      expect(await sync(project.file)).toEqual([])
      expect(asked()).toBe(2)
      // It does not: the render makes the requests the check resolved.
      writeFileSync(path.join(project.dir, 'helm', 'values', 'api.yaml'), 'namespaceToo: true\n')
      expect((await sync(project.file)).sort()).toEqual(['helm:api', 'helm:web'])
      expect(asked()).toBe(3)
      const both = await diffRendered(project.file)
      expect(both.renders).toEqual([])
      expect(both.diffs).toEqual(both.expected)
    } finally {
      process.env.PATH = originalPath
    }
    rmSync(project.dir, { recursive: true })
  }, 180_000)

  it('never records a release whose chart calls a volatile function; the others are', async () => {
    const project = writeProject()
    writeConfigMapTemplate(
      project,
      '  {{- if eq .Release.Name "web" }}\n  token: {{ randAlphaNum 8 | quote }}\n  {{- end }}\n'
    )
    await sync(project.file)
    // One release of the manifest is volatile: the manifest has no record and renders.
    expect(await recordAnnotation(admin, project.manifest)).toBeUndefined()
    const both = await diffRendered(project.file)
    expect(both.renders).toEqual(['helm:api', 'helm:web'])
    expect(both.diffs.flatMap((d) => d.entries.map((e) => e.type))).toEqual(['modified'])
    rmSync(project.dir, { recursive: true })
  }, 120_000)
})
