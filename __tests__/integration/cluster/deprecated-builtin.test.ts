// A served deprecated built-in version on a real API server (docs/risks.md#apis-on-their-way-out).
// The shared test cluster serves none, so this file starts its own etcd + kube-apiserver (the
// bare control plane, a few seconds) with `--runtime-config` turning on resource.k8s.io/v1beta1
// and v1beta2 and admissionregistration.k8s.io/v1beta1, which it keeps off by default. The
// review's deprecated-api finding of each object is held to the API server's own words: the
// releases and the replacement of its `Warning` header (k8s.io/apiserver's
// deprecation.WarningMessage, from the k8s.io/api prerelease lifecycle at the server's release)
// are parsed out of what it sends and compared with the finding's, never written down here.
// With fieldValidation=Strict an undeclared field fails the dry run, and the refusal's warnings
// are kept (docs/risks.md#what-live-mode-adds).
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { openKubeSession, type KubeSession } from '../../../src/adapters/kube/session.js'
import type { KubeResponse } from '../../../src/adapters/kube/api-response.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { startCluster, stopCluster, type Cluster } from '../../cluster/launcher.js'
import { resolveToolPaths } from '../../cluster/tool-paths.js'
import { escapeRegExp, reviewAdding, riskLines } from '../../support/api-review.js'
import { runCliInProcess } from '../../support/cli.js'
import { writeProject } from '../../support/cli-project.js'
import { configMap, namespace, uniqueName } from '../../support/cluster.js'

/**
 * The deprecated group/versions this server is started with beside the default ones, and the
 * kind of each that the review adds: DeviceClass (`deviceclasses`), whose table rows name no
 * replacement, and MutatingAdmissionPolicy, whose row does.
 */
const DEPRECATED = [
  { apiVersion: 'resource.k8s.io/v1beta1', kind: 'DeviceClass' },
  { apiVersion: 'resource.k8s.io/v1beta2', kind: 'DeviceClass' },
  { apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'MutatingAdmissionPolicy' }
] as const

const PLURAL: Record<string, string> = {
  DeviceClass: 'deviceclasses',
  MutatingAdmissionPolicy: 'mutatingadmissionpolicies'
}

let cluster: Cluster
let admin: KubeSession
let ns: string

beforeAll(async () => {
  const tools = resolveToolPaths()
  cluster = await startCluster({
    kubeApiserverBin: tools.kubeApiserver,
    etcdBin: tools.etcd,
    apiserverArgs: [
      `--runtime-config=${[...new Set(DEPRECATED.map((d) => `${d.apiVersion}=true`))].join(',')}`
    ]
  })
  admin = await openKubeSession({ env: { KUBECONFIG: cluster.adminKubeconfig } })
  ns = uniqueName('deprecated')
  await admin.cluster.apply(namespace(ns))
}, 240_000)

afterAll(async () => {
  admin?.close()
  if (cluster) await stopCluster(cluster)
}, 60_000)

/** A DeviceClass (cluster-scoped) of `apiVersion`, selecting one driver's devices. */
const deviceClass = (apiVersion: string, name: string, spec: JsonObject = {}): JsonObject => ({
  apiVersion,
  kind: 'DeviceClass',
  metadata: { name },
  spec: {
    selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }],
    ...spec
  }
})

/** A MutatingAdmissionPolicy (cluster-scoped) that labels new ConfigMaps; bound to nothing. */
const admissionPolicy = (apiVersion: string, name: string): JsonObject => ({
  apiVersion,
  kind: 'MutatingAdmissionPolicy',
  metadata: { name },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }
      ]
    },
    failurePolicy: 'Fail',
    reinvocationPolicy: 'Never',
    mutations: [
      {
        patchType: 'ApplyConfiguration',
        applyConfiguration: {
          expression: 'Object{metadata: Object.metadata{labels: {"mutated": "true"}}}'
        }
      }
    ]
  }
})

/** One object of each deprecated version, and one of each kind's served GA version. */
function objectsOfEachVersion(): { old: JsonObject[]; current: JsonObject[] } {
  const of = (apiVersion: string, kind: string, name: string): JsonObject =>
    kind === 'DeviceClass' ? deviceClass(apiVersion, name) : admissionPolicy(apiVersion, name)
  return {
    old: DEPRECATED.map((d) => of(d.apiVersion, d.kind, uniqueName(d.apiVersion.split('/')[1]!))),
    current: [
      deviceClass('resource.k8s.io/v1', uniqueName('v1')),
      admissionPolicy('admissionregistration.k8s.io/v1', uniqueName('v1'))
    ]
  }
}

/** The review of `added` (beside a base ConfigMap) on this file's server. */
function reviewed(added: JsonObject[], { live = false } = {}) {
  return reviewAdding([configMap(ns, 'base', { k: 'v' })], added, {
    kubeconfig: cluster.adminKubeconfig,
    live
  })
}

/**
 * Server-side applies `o` as the API server's own client would (`dryRun=All` unless `write`),
 * with `fieldValidation=Strict`; the raw answer, its warnings included.
 */
async function applied(o: JsonObject, { write = false } = {}): Promise<KubeResponse> {
  const [group, version] = (o.apiVersion as string).split('/') as [string, string]
  const name = (o.metadata as { name: string }).name
  return admin.client.request(
    {
      method: 'PATCH',
      path: `/apis/${group}/${version}/${PLURAL[o.kind as string]!}/${name}`,
      query: {
        fieldManager: 'deprecated-builtin-test',
        force: 'true',
        fieldValidation: 'Strict',
        ...(write ? {} : { dryRun: 'All' })
      },
      body: o,
      contentType: 'application/apply-patch+yaml'
    },
    `apply ${o.apiVersion as string} ${o.kind as string} ${name}`
  )
}

/** What a deprecation says: the releases, and what to use (`<group>/<version>[ <Kind>]`). */
interface Deprecation {
  deprecated: string
  removed?: string
  use?: string
}

// k8s.io/apiserver's deprecation.WarningMessage: "<group>/<version> <Kind> is deprecated in
// v1.35+, unavailable in v1.38+; use <group>/<version> <Kind>".
const WARNING =
  /^(\S+) (\S+) is deprecated in v(\d+\.\d+)\+(?:, unavailable in v(\d+\.\d+)\+)?(?:; use (\S+) (\S+))?$/

/** The deprecation warning the server sends for `o`'s version, parsed; fails without one. */
function serverDeprecation(o: JsonObject, warnings: readonly string[] | undefined): Deprecation {
  const said = (warnings ?? []).filter((w) => w.startsWith(`${o.apiVersion as string} `))
  expect(said).toHaveLength(1)
  const m = WARNING.exec(said[0]!)
  expect(m).not.toBeNull()
  const [, gv, kind, deprecated, removed, useGv, useKind] = m!
  expect(`${gv} ${kind}`).toBe(`${o.apiVersion as string} ${o.kind as string}`)
  return {
    deprecated: deprecated!,
    ...(removed === undefined ? {} : { removed }),
    // The finding names the kind only when it differs (src/risk/apis.ts).
    ...(useGv === undefined ? {} : { use: useKind === kind ? useGv : `${useGv} ${useKind}` })
  }
}

/** The deprecated-api finding line of `o` among `lines`, its releases and replacement parsed. */
function findingOf(lines: readonly string[], o: JsonObject): Deprecation & { line: string } {
  const name = (o.metadata as { name: string }).name
  const kind = o.kind as string
  const mine = lines.filter((l) => l.includes(`/${kind}/${name} `))
  expect(mine).toEqual([expect.stringMatching(/^# {3}deprecated-api /)])
  const line = mine[0]!
  const m = new RegExp(
    `/${kind}/${name} apiVersion: ${escapeRegExp(`${o.apiVersion as string} ${kind}`)} is deprecated since Kubernetes (\\d+\\.\\d+)(?:; it is removed in Kubernetes (\\d+\\.\\d+))?(?:: use (\\S+(?: \\S+)?))?(?: \\(the API server's dry run warns: .*\\))?$`
  ).exec(line)
  expect(m).not.toBeNull()
  const [, deprecated, removed, use] = m!
  return {
    line,
    deprecated: deprecated!,
    ...(removed === undefined ? {} : { removed }),
    ...(use === undefined ? {} : { use })
  }
}

describe('a served deprecated built-in version', () => {
  it('is a deprecated-api finding with the releases and replacement the API server states, and the apply succeeds', async () => {
    const { old, current } = objectsOfEachVersion()
    const plain = configMap(ns, 'plain', { k: 'v' })
    const r = await reviewed([...old, ...current, plain])
    expect(r).toMatchObject({ code: 0, stderr: '' })
    const lines = riskLines(r.stdout)
    // One finding per deprecated object, none for the served GA version or the ConfigMap.
    expect(lines).toHaveLength(old.length)
    for (const o of old) {
      const finding = findingOf(lines, o)
      // The merge would succeed, with the server's deprecation warning.
      const res = await applied(o, { write: true })
      expect(res.status).toBeLessThan(300)
      const server = serverDeprecation(o, res.warnings)
      expect({ ...finding, line: undefined }).toEqual({ ...server, line: undefined })
      // A release the server's own words name.
      expect(server.removed).toMatch(/^1\.\d+$/)
    }
    // The GA versions come with no warning at all.
    for (const o of current) {
      const res = await applied(o, { write: true })
      expect(res.status).toBeLessThan(300)
      expect(res.warnings).toBeUndefined()
    }
  })

  it("in live mode, shows the server's deprecation warning with the finding it confirms", async () => {
    const { old, current } = objectsOfEachVersion()
    const r = await reviewed([...old, ...current], { live: true })
    expect(r).toMatchObject({ code: 0, stderr: '' })
    const lines = riskLines(r.stdout)
    expect(lines).toHaveLength(old.length)
    for (const o of old) {
      const { warnings } = await applied(o)
      const [warning] = warnings ?? []
      expect(warnings).toEqual([warning])
      const finding = findingOf(lines, o)
      expect(finding.line).toMatch(
        new RegExp(`${escapeRegExp(` (the API server's dry run warns: ${warning!})`)}$`)
      )
      expect({ ...finding, line: undefined }).toEqual({
        ...serverDeprecation(o, warnings),
        line: undefined
      })
    }
  })
})

// docs/risks.md#what-live-mode-adds: with fieldValidation=Strict an undeclared field fails the
// dry run, and the refusal comes with the version's deprecation warning like any answer.
describe("a refused dry run's warnings", () => {
  const undeclared = (apiVersion: string, name: string) =>
    deviceClass(apiVersion, name, { selector: { driver: 'gpu.example.com' } })

  /** The server's refusal of `o`'s dry run: its words and its warnings. */
  async function refusal(o: JsonObject): Promise<{ words: string; warnings: string[] }> {
    const res = await applied(o)
    expect(res.status).toBe(500)
    const words = (JSON.parse(res.body) as { message: string }).message
    expect(words).toContain('.spec.selector: field not declared in schema')
    return { words, warnings: res.warnings ?? [] }
  }

  it('go with the deprecated-api finding they confirm, beside the refusal on the schema finding', async () => {
    const o = undeclared(DEPRECATED[0].apiVersion, uniqueName('refused'))
    const name = (o.metadata as { name: string }).name
    const r = await reviewed([o], { live: true })
    expect(r).toMatchObject({ code: 0, stderr: '' })
    const { words, warnings } = await refusal(o)
    expect(warnings).toHaveLength(1)
    expect(riskLines(r.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^# {3}rejected-by-schema .*/DeviceClass/${name} spec\\.selector: \\.spec\\.selector: field not declared in schema ` +
            escapeRegExp(
              `(the API server says: dry-run apply ${o.apiVersion as string} DeviceClass ${name}: HTTP 500 ${words})`
            ) +
            '$'
        )
      ),
      expect.stringMatching(
        new RegExp(
          `^# {3}deprecated-api .*/DeviceClass/${name} apiVersion: .*` +
            escapeRegExp(` (the API server's dry run warns: ${warnings[0]!})`) +
            '$'
        )
      )
    ])
  })

  it("go with plan's deprecated-api finding of an update the server refuses", async () => {
    const name = uniqueName('planned')
    const live = deviceClass(DEPRECATED[1].apiVersion, name)
    await admin.cluster.apply(live)
    const o = undeclared(DEPRECATED[1].apiVersion, name)
    const dir = mkdtempSync(path.join(os.tmpdir(), 'deprecated-plan-'))
    const file = writeProject(dir, [{ name: uniqueName('app'), objects: [o] }])
    const r = await runCliInProcess(['plan', '-f', file], {
      KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
      KUBECONFIG: cluster.adminKubeconfig
    })
    expect(r.code).toBe(0)
    const { warnings } = await refusal(o)
    expect(warnings).toHaveLength(1)
    expect(riskLines(r.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^# {3}rejected-by-schema .*/DeviceClass/${name} spec\\.selector: .* \\(the API server says: dry-run apply .*HTTP 500 .*\\)$`
        )
      ),
      expect.stringMatching(
        new RegExp(
          `^# {3}deprecated-api .*/DeviceClass/${name} apiVersion: .*` +
            escapeRegExp(` (the API server's dry run warns: ${warnings[0]!})`) +
            '$'
        )
      )
    ])
  })
})
