// `chart list [--check-latest]` (docs/compatibility.md#chart-list) on a repository whose
// helmfiles pin charts of real servers on loopback (support/chart-list-project.ts): HTTP chart
// repositories made by the real helm, one behind Basic auth, and the test OCI registry, all
// holding versions newer than the pinned ones. Expected rows follow Tazuna's
// pkg/runner/chart_list.go and pkg/manager/helmfile_releases.go: Helm's IndexFile.Get(name, "")
// for a repository (newest non-prerelease: 1.3.0), the first of Helm's sorted OCI tags
// (prereleases included: 2.0.0-rc.1), `-` for local charts and undeclared repositories. The
// table is Go's tabwriter, held to Go by unit/go/tabwriter.test.ts; the interop suite compares
// the bytes with the Tazuna CLI's.
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import path from 'node:path'
import { tabwriterText } from '../../../src/go/tabwriter.js'
import { runCliInProcess } from '../../support/cli.js'
import {
  REPO_PASSWORD,
  startChartListProject,
  type ChartListProject
} from '../../support/chart-list-project.js'
import { testTools } from './harness.js'

let project: ChartListProject

beforeAll(async () => {
  project = await startChartListProject(testTools().helm!)
}, 300_000)

afterAll(async () => {
  await project?.stop()
})

/** The rows, pinned versions and latest ones, of the helmfiles under `dir` (as -f names it). */
function expectedRows(dir: string): string[][] {
  const apps = `${dir}/apps/helmfile.yaml.gotmpl`
  const infra = `${dir}/infra/helmfile.yaml`
  const oci = `oci://${project.registry.address}/charts/demo`
  return [
    ['open/demo', 'web', apps, '1.2.3', '1.3.0'],
    ['open/demo', 'web-canary', apps, '1.2.4', '1.3.0'],
    ['private/demo', 'private-web', apps, '~1.2', '1.3.0'],
    ['reg/demo', 'from-registry', apps, '1.2.3', '2.0.0-rc.1'],
    ['./charts/local', 'local', apps, '-', '-'],
    ['nowhere/demo', 'undeclared', apps, '1.0.0', '-'],
    [oci, 'direct', infra, '1.2.4', '2.0.0-rc.1'],
    ['gone/demo', 'unreachable', infra, '0.1.0', '(error)']
  ]
}

function table(header: string[], rows: string[][]): string {
  return tabwriterText([header, ...rows].map((cells) => `${cells.join('\t')}\n`).join(''))
}

it('lists every release of every helmfile manifest, included ones too, asking no server', async () => {
  const before = project.openRepo.requests.length + project.authRepo.requests.length
  const result = await runCliInProcess(['chart', 'list', '-f', project.config], project.env)
  expect(result).toEqual({
    code: 0,
    stdout: table(
      ['CHART', 'RELEASE', 'FILE', 'VERSION'],
      expectedRows(project.dir).map((row) => row.slice(0, 4))
    ),
    stderr: ''
  })
  expect(project.openRepo.requests.length + project.authRepo.requests.length).toBe(before)
})

it('prints the helmfile paths under the directory of -f as given', async () => {
  const relative = path.relative(process.cwd(), project.config)
  const result = await runCliInProcess(['chart', 'list', '-f', relative], project.env)
  expect(result.stdout).toBe(
    table(
      ['CHART', 'RELEASE', 'FILE', 'VERSION'],
      expectedRows(path.dirname(relative)).map((row) => row.slice(0, 4))
    )
  )
})

it('with --check-latest adds the newest version of each source, asked once per source', async () => {
  const openBefore = project.openRepo.requests.length
  const authBefore = project.authRepo.requests.length
  const result = await runCliInProcess(
    ['chart', 'list', '--check-latest', '-f', project.config],
    project.env
  )
  expect({ code: result.code, stdout: result.stdout }).toEqual({
    code: 0,
    stdout: table(['CHART', 'RELEASE', 'FILE', 'VERSION', 'LATEST'], expectedRows(project.dir))
  })
  expect(project.openRepo.requests.slice(openBefore)).toEqual([
    { path: '/charts/index.yaml', authorized: false }
  ])
  expect(project.authRepo.requests.slice(authBefore)).toEqual([
    { path: '/charts/index.yaml', authorized: true }
  ])
  const warnings = result.stderr.split('\n').filter(Boolean)
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toMatch(
    new RegExp(
      `^warn: failed to resolve latest for release "unreachable": chart repository http://${project.downHost}/charts/: `
    )
  )
  expect(result.stdout + result.stderr).not.toContain(REPO_PASSWORD)
})

it('a helmfile var that cannot be resolved fails the command, naming manifest and var', async () => {
  const result = await runCliInProcess(['chart', 'list', '-f', project.config], {})
  expect(result).toEqual({
    code: 1,
    stdout: '',
    stderr:
      "error: manifest apps: helmfile var 'repoPassword': environment variable CHART_REPO_PASSWORD is not set\n"
  })
})
