// `type: oras` against the real Tazuna CLI (TAZUNA_BIN) on the test cluster and the test
// registry (docs/compatibility.md#oras, #oras-default-namespace): the artifact is pushed by the
// real oras CLI; Tazuna pulls it into a cache that the action then reads offline, proving the
// shared layout; both leave byte-identical State (apart from lastSyncedAt) after `apply
// --sync` and after plain `apply`, the two differing by the upstream default-namespace quirk.
// The action-only part runs always; the comparisons are skipped without TAZUNA_BIN.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { runCliInProcess, runCliProcess } from '../../support/cli.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import {
  buildTestRegistry,
  startTestRegistry,
  type TestRegistry
} from '../../support/chart-servers.js'
import { commitAll } from '../../support/git-repo.js'
import { pushArtifact, tarGzOf } from '../../support/oras-artifacts.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { decodeDataKey } from '../../../src/state/data-key.js'
import {
  deleteStateConfigMaps,
  describeWithTazuna,
  readStateConfigMaps,
  tazunaBin,
  tazunaSkipReason
} from './tools.js'

if (tazunaSkipReason !== '')
  process.stderr.write(`interop oras: CLI comparisons${tazunaSkipReason}\n`)

const MANIFEST = uniqueName('oras-bundle')
const NS = uniqueName('oras-ns')

let admin: KubeSession
let registry: TestRegistry
let ws: string
let cache: string
let env: Record<string, string | undefined>

beforeAll(async () => {
  admin = await adminSession()
  registry = await startTestRegistry(buildTestRegistry(), { kind: 'none' })
  const root = mkdtempSync(path.join(os.tmpdir(), 'interop-oras-'))
  const bundle = path.join(root, 'bundle')
  mkdirSync(bundle)
  writeFileSync(path.join(bundle, 'kustomization.yaml'), 'resources: [ns.yaml, cm.yaml]\n')
  // The Namespace has no namespace: the delegate's defaultNamespace lands on it in plain apply.
  writeFileSync(
    path.join(bundle, 'ns.yaml'),
    `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${NS}}\n`
  )
  writeFileSync(
    path.join(bundle, 'cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: ${NS}}\ndata: {a: "1"}\n`
  )
  pushArtifact(registry.address, 'bundle:v1', tarGzOf(bundle))
  ws = path.join(root, 'ws')
  mkdirSync(ws)
  cache = path.join(root, 'xdg')
  const oras = {
    reference: `${registry.address}/bundle:v1`,
    plainHTTP: true,
    delegate: { type: 'kustomize', kustomize: { defaultNamespace: NS } }
  }
  writeFileSync(
    path.join(ws, 'tazuna.yaml'),
    JSON.stringify({ spec: { manifests: [{ name: MANIFEST, type: 'oras', path: '.', oras }] } })
  )
  commitAll(ws, 'oras bundle')
  env = {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    HOME: root,
    XDG_CACHE_HOME: cache,
    KUBECONFIG: adminKubeconfig(),
    TAZUNA_GOTEMPLATE_WASM: goTemplateEngineFiles().wasm,
    ...renderModuleEnv()
  }
}, 300_000)

afterAll(async () => {
  await deleteStateConfigMaps(admin, [MANIFEST])
  await registry.stop()
  admin.close()
})

/** State data of the manifest, `_metadata`'s lastSyncedAt blanked. */
async function state(): Promise<Record<string, string> | undefined> {
  const cm = (await readStateConfigMaps(admin, [MANIFEST])).get(MANIFEST)
  if (cm === undefined) return undefined
  const data = { ...cm.data }
  data._metadata = (data._metadata ?? '').replace(/"lastSyncedAt":"[^"]*"/, '"lastSyncedAt":"*"')
  return data
}

async function action(args: string[]) {
  const result = await runCliInProcess([...args, '-f', path.join(ws, 'tazuna.yaml')], env)
  expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
    code: 0,
    stderr: ''
  })
  return result
}

async function tazuna(args: string[]) {
  const result = await runCliProcess(tazunaBin ?? 'tazuna', [...args, '-f', 'tazuna.yaml'], {
    cwd: ws,
    env
  })
  expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
    code: 0,
    stderr: ''
  })
  return result
}

/** The logical State keys of the manifest's entries (`_metadata` left out). */
async function stateKeys(): Promise<string[]> {
  const { _metadata: _, ...entries } = (await state()) ?? {}
  return Object.keys(entries).map(decodeDataKey).sort()
}

describe('type oras on the cluster: the default-namespace quirk, followed', () => {
  it('apply --sync records the Namespace without a namespace; state diff is then clean', async () => {
    await deleteStateConfigMaps(admin, [MANIFEST])
    await action(['apply', '--sync'])
    expect(await stateKeys()).toEqual([
      `${MANIFEST}//v1/ConfigMap/${NS}/settings`,
      `${MANIFEST}//v1/Namespace/${NS}`
    ])
    expect((await action(['state', 'diff'])).stdout).toBe('No changes detected.\n')
  })

  it('plain apply records it with the delegate’s defaultNamespace, so state diff differs', async () => {
    await deleteStateConfigMaps(admin, [MANIFEST])
    await action(['apply'])
    expect(await stateKeys()).toEqual([
      `${MANIFEST}//v1/ConfigMap/${NS}/settings`,
      `${MANIFEST}//v1/Namespace/${NS}/${NS}`
    ])
    expect((await action(['state', 'diff'])).stdout).not.toBe('No changes detected.\n')
  })
})

describeWithTazuna(`type oras against the Tazuna CLI${tazunaSkipReason}`, () => {
  it('apply --sync: Tazuna pulls, the action reads its cache offline; identical State', async () => {
    await deleteStateConfigMaps(admin, [MANIFEST])
    await tazuna(['apply', '--sync'])
    const fromTazuna = await state()
    await deleteStateConfigMaps(admin, [MANIFEST])
    await action(['apply', '--sync', '--offline'])
    expect(await state()).toEqual(fromTazuna)
    expect((await tazuna(['state', 'diff'])).stdout).toBe((await action(['state', 'diff'])).stdout)
  })

  it('a cache the action filled serves tazuna build --offline: the same text', async () => {
    const fresh = mkdtempSync(path.join(os.tmpdir(), 'interop-oras-cache-'))
    const withCache = { ...env, XDG_CACHE_HOME: fresh }
    const file = path.join(ws, 'tazuna.yaml')
    const ours = await runCliInProcess(['build', '-f', file], withCache)
    expect(ours.code).toBe(0)
    const theirs = await runCliProcess(tazunaBin ?? 'tazuna', ['build', '--offline', '-f', file], {
      cwd: ws,
      env: withCache
    })
    expect({ code: theirs.code, stdout: theirs.stdout }).toEqual({ code: 0, stdout: ours.stdout })
  })

  it('plain apply: identical State, the quirk included', async () => {
    await deleteStateConfigMaps(admin, [MANIFEST])
    await tazuna(['apply'])
    const fromTazuna = await state()
    await deleteStateConfigMaps(admin, [MANIFEST])
    await action(['apply', '--offline'])
    expect(await state()).toEqual(fromTazuna)
    expect((await action(['state', 'diff'])).stdout).toBe((await tazuna(['state', 'diff'])).stdout)
  })
})
