// A repository for `chart list` (docs/compatibility.md#chart-list) beside real chart sources on
// loopback: an HTTP chart repository (open, and one behind Basic auth) over files made by the
// real `helm package` and `helm repo index`, and the test OCI registry (__tests__/registry/)
// holding the same chart pushed by the real `helm push`. Each holds versions newer than the
// ones the helmfiles pin. Shared by integration/render/chart-list.test.ts and the interop
// suite, which runs the Tazuna CLI on the same repository.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {
  buildTestRegistry,
  pushChart,
  runHelm,
  startChartRepository,
  startTestRegistry,
  type ChartRepositoryServer,
  type TestRegistry
} from './chart-servers.js'

/** The chart repository's password: it must not appear in any output. */
export const REPO_PASSWORD = 'chart-l1st-pa55word'
/** Versions in the HTTP repositories: the newest non-prerelease is 1.3.0. */
export const REPO_VERSIONS = ['1.2.3', '1.2.4', '1.3.0', '2.0.0-rc.1']
/** Versions in the OCI registry: by Helm's tag order the first is 2.0.0-rc.1. */
export const OCI_VERSIONS = ['1.2.3', '1.2.4', '1.3.0+build.1', '2.0.0-rc.1']

/** The repository on disk and the servers it names. */
export interface ChartListProject {
  dir: string
  /** tazuna.yaml, absolute. */
  config: string
  openRepo: ChartRepositoryServer
  authRepo: ChartRepositoryServer
  registry: TestRegistry
  /** `127.0.0.1:<port>` where nothing listens: the declared repository that cannot be reached. */
  downHost: string
  /** The environment the helmfile vars read (CHART_REPO_PASSWORD). */
  env: Record<string, string>
  stop: () => Promise<void>
}

async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Packages the chart, starts the servers, pushes to the registry and writes the repository. */
export async function startChartListProject(helm: string): Promise<ChartListProject> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'tazuna-chart-list-'))
  const home = path.join(work, 'helm-home')
  const packages = path.join(work, 'packages')
  const ociPackages = path.join(work, 'oci-packages')
  const chart = path.join(work, 'demo')
  mkdirSync(path.join(chart, 'templates'), { recursive: true })
  writeFileSync(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.0.1\n')
  writeFileSync(
    path.join(chart, 'templates', 'cm.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n'
  )
  const pack = (version: string, destination: string) =>
    runHelm(helm, ['package', chart, '--version', version, '--destination', destination], {
      home
    })
  for (const v of REPO_VERSIONS) pack(v, packages)
  for (const v of OCI_VERSIONS.filter((v) => !REPO_VERSIONS.includes(v))) pack(v, ociPackages)
  runHelm(helm, ['repo', 'index', packages], { home })

  const openRepo = await startChartRepository(packages)
  const authRepo = await startChartRepository(packages, {
    auth: { kind: 'basic', username: 'alice', password: REPO_PASSWORD }
  })
  const registry = await startTestRegistry(buildTestRegistry(), { kind: 'none' })
  for (const v of OCI_VERSIONS) {
    const dir = REPO_VERSIONS.includes(v) ? packages : ociPackages
    pushChart(helm, path.join(dir, `demo-${v}.tgz`), registry.address, {
      home,
      auth: { kind: 'none' }
    })
  }
  const downHost = `127.0.0.1:${await closedPort()}`
  const dir = path.join(work, 'repo')
  writeProject(dir, { openRepo, authRepo, registry, downHost })
  return {
    dir,
    config: path.join(dir, 'tazuna.yaml'),
    openRepo,
    authRepo,
    registry,
    downHost,
    env: { CHART_REPO_PASSWORD: REPO_PASSWORD },
    stop: async () => {
      await Promise.all([openRepo.stop(), authRepo.stop(), registry.stop()])
      rmSync(work, { recursive: true, force: true })
    }
  }
}

function writeProject(
  dir: string,
  servers: Pick<ChartListProject, 'openRepo' | 'authRepo' | 'registry' | 'downHost'>
): void {
  const { openRepo, authRepo, registry, downHost } = servers
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
  // `apps` is a directory (its helmfile found by name), `infra` names its file; the kustomize
  // manifest is not listed; `extra` comes through an include file.
  write(
    'tazuna.yaml',
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      '    - name: apps',
      '      type: helmfile',
      '      path: ./apps',
      '      helmfile:',
      '        vars:',
      '          repoPassword:',
      '            from: env',
      '            env: CHART_REPO_PASSWORD',
      '    - name: plain',
      '      type: kustomize',
      '      path: ./plain',
      '    - name: more',
      '      includes:',
      '        - path: ./more/tazuna.yaml',
      ''
    ].join('\n')
  )
  write(
    'more/tazuna.yaml',
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      '    - name: infra',
      '      type: helmfile',
      '      path: infra/helmfile.yaml',
      ''
    ].join('\n')
  )
  write(
    'apps/helmfile.yaml.gotmpl',
    [
      'repositories:',
      '  - name: open',
      `    url: ${openRepo.url}`,
      '  - name: private',
      `    url: ${authRepo.url}`,
      '    username: alice',
      '    password: {{ .StateValues.repoPassword }}',
      '  - name: reg',
      `    url: oci://${registry.address}/charts`,
      'releases:',
      '  - name: web',
      '    namespace: web',
      '    chart: open/demo',
      '    version: 1.2.3',
      '  - name: web-canary',
      '    namespace: web',
      '    chart: open/demo',
      '    version: 1.2.4',
      '  - name: private-web',
      '    chart: private/demo',
      '    version: ~1.2',
      '  - name: from-registry',
      '    chart: reg/demo',
      '    version: 1.2.3',
      '  - name: local',
      '    chart: ./charts/local',
      '  - name: undeclared',
      '    chart: nowhere/demo',
      '    version: 1.0.0',
      ''
    ].join('\n')
  )
  write(
    'infra/helmfile.yaml',
    [
      'repositories:',
      '  - name: gone',
      `    url: http://${downHost}/charts/`,
      'releases:',
      '  - name: direct',
      `    chart: oci://${registry.address}/charts/demo`,
      '    version: 1.2.4',
      '  - name: unreachable',
      '    chart: gone/demo',
      '    version: 0.1.0',
      ''
    ].join('\n')
  )
  write('plain/kustomization.yaml', 'resources: []\n')
}
