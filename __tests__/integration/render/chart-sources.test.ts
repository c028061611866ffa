// Chart download (docs/compatibility.md#chart-download) against real servers on loopback: an
// HTTP chart repository over files made by the real `helm package` and `helm repo index`, and
// an OCI registry (go-containerregistry's registry package, __tests__/registry/) holding charts
// pushed by the real `helm push`. Expected archives are the very bytes helm packaged; expected
// versions follow Helm v3.21.4's selection (newest first, prereleases only when asked).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { createHttpClient } from '../../../src/adapters/http-client.js'
import { fetchChart, type ChartFetchRequest } from '../../../src/render/helmfile/chart-fetch.js'
import { resolveChartSource } from '../../../src/render/helmfile/helm-release.js'
import type { HelmRepository } from '../../../src/render/helmfile/helmfile-spec.js'
import {
  buildTestRegistry,
  pushChart,
  runHelm,
  runHelmAsync,
  startChartRepository,
  startTestRegistry,
  type ChartRepositoryServer,
  type TestAuth,
  type TestRegistry
} from '../../support/chart-servers.js'
import { testTools } from './harness.js'

const PASSWORD = 'pa55-w0rd-do-not-print'
const CREDENTIALS = { username: 'alice', password: PASSWORD }
const VERSIONS = ['1.2.3', '1.2.4', '1.3.0', '2.0.0-rc.1']
const OCI_VERSIONS = ['1.2.3', '1.2.4', '1.3.0+build.1', '2.0.0-rc.1']

const http = createHttpClient({ timeoutMs: 20_000 })
let work: string
let helmHome: string
let packages: string
let ociPackages: string
const stops: (() => Promise<void>)[] = []
let openRepo: ChartRepositoryServer
let authRepo: ChartRepositoryServer
let registries: Record<'none' | 'basic' | 'bearer', TestRegistry>
let digest123: string

/** What `helm package` made for `version` (OCI-only versions are kept out of the repository). */
function archiveOf(version: string): Buffer {
  const dir = VERSIONS.includes(version) ? packages : ociPackages
  return readFileSync(path.join(dir, `demo-${version}.tgz`))
}

function repository(
  url: string,
  creds: { username?: string; password?: string } = {}
): HelmRepository {
  return {
    name: 'myrepo',
    url,
    username: creds.username ?? '',
    password: creds.password ?? '',
    oci: false
  }
}

function repoRequest(repo: HelmRepository, version: string): ChartFetchRequest {
  const source = resolveChartSource('myrepo/demo', [repo], (p) => p)
  return { source, version, release: 'web' }
}

/**
 * A request for `chart` (`oci://<registry>/charts/demo[:tag][@digest]`). With credentials it
 * goes through a declared repository, the only place a helmfile can give them: alias `reg` at
 * `oci://<registry>/charts`, chart `reg/demo` (so no tag or digest).
 */
function ociRequest(
  chart: string,
  version: string,
  options: { creds?: { username: string; password: string }; plainHttp?: boolean } = {}
): ChartFetchRequest {
  const { creds, plainHttp } = options
  const source =
    creds === undefined
      ? resolveChartSource(chart, [], (p) => p)
      : resolveChartSource(
          'reg/demo',
          [{ name: 'reg', url: chart.replace(/\/demo$/, ''), ...creds, oci: true }],
          (p) => p
        )
  return { source, version, release: 'web', plainHttp }
}

async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

beforeAll(async () => {
  const helm = testTools().helm!
  work = mkdtempSync(path.join(os.tmpdir(), 'tazuna-chart-sources-'))
  helmHome = path.join(work, 'helm-home')
  packages = path.join(work, 'packages')
  ociPackages = path.join(work, 'oci-packages')
  const chart = path.join(work, 'demo')
  mkdirSync(path.join(chart, 'templates'), { recursive: true })
  writeFileSync(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.0.1\n')
  writeFileSync(
    path.join(chart, 'templates', 'cm.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  version: {{ .Chart.Version | quote }}\n'
  )
  for (const v of VERSIONS) {
    runHelm(helm, ['package', chart, '--version', v, '--destination', packages], { home: helmHome })
  }
  for (const v of OCI_VERSIONS.filter((v) => !VERSIONS.includes(v))) {
    runHelm(helm, ['package', chart, '--version', v, '--destination', ociPackages], {
      home: helmHome
    })
  }
  runHelm(helm, ['repo', 'index', packages], { home: helmHome })

  openRepo = await startChartRepository(packages)
  authRepo = await startChartRepository(packages, { auth: { kind: 'basic', ...CREDENTIALS } })
  stops.push(openRepo.stop, authRepo.stop)

  const binary = buildTestRegistry()
  const start = async (auth: TestAuth): Promise<TestRegistry> => {
    const r = await startTestRegistry(binary, auth)
    stops.push(r.stop)
    for (const v of OCI_VERSIONS) {
      const dir = VERSIONS.includes(v) ? packages : ociPackages
      const d = pushChart(helm, path.join(dir, `demo-${v}.tgz`), r.address, {
        home: helmHome,
        auth
      })
      if (v === '1.2.3') digest123 = d
    }
    return r
  }
  registries = {
    none: await start({ kind: 'none' }),
    basic: await start({ kind: 'basic', ...CREDENTIALS }),
    bearer: await start({ kind: 'bearer', ...CREDENTIALS })
  }
}, 300_000)

afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()))
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('HTTP chart repository', () => {
  it.each([
    ['1.2.4', '1.2.4'],
    ['~1.2', '1.2.4'],
    ['>=1.2.3, <1.3', '1.2.4'],
    ['^1', '1.3.0'],
    ['', '1.3.0'],
    ['>=2.0.0-0', '2.0.0-rc.1']
  ])('with version %j downloads %s, byte for byte', async (version, want) => {
    const chart = await fetchChart(http, repoRequest(repository(openRepo.url), version))
    expect({ name: chart.name, version: chart.version, fileName: chart.fileName }).toEqual({
      name: 'demo',
      version: want,
      fileName: `demo-${want}.tgz`
    })
    expect(Buffer.from(chart.archive).equals(archiveOf(want))).toBe(true)
    expect(chart.origin).toBe(`${openRepo.url}demo-${want}.tgz`)
  })

  it('sends basic auth to the index and to a chart on the same host', async () => {
    const before = authRepo.requests.length
    const chart = await fetchChart(
      http,
      repoRequest(repository(authRepo.url, CREDENTIALS), '1.2.3')
    )
    expect(chart.version).toBe('1.2.3')
    expect(authRepo.requests.slice(before)).toEqual([
      { path: '/charts/index.yaml', authorized: true },
      { path: '/charts/demo-1.2.3.tgz', authorized: true }
    ])
  })

  it('does not pass the credentials to a chart URL on another host', async () => {
    const elsewhere = path.join(work, 'elsewhere')
    mkdirSync(elsewhere)
    writeFileSync(
      path.join(elsewhere, 'index.yaml'),
      readFileSync(path.join(packages, 'index.yaml'), 'utf8').replaceAll(
        '- demo-',
        `- ${openRepo.url}demo-`
      )
    )
    const indexOnly = await startChartRepository(elsewhere, {
      auth: { kind: 'basic', ...CREDENTIALS }
    })
    try {
      const before = openRepo.requests.length
      const chart = await fetchChart(
        http,
        repoRequest(repository(indexOnly.url, CREDENTIALS), '1.2.4')
      )
      expect(Buffer.from(chart.archive).equals(archiveOf('1.2.4'))).toBe(true)
      expect(openRepo.requests.slice(before)).toEqual([
        { path: '/charts/demo-1.2.4.tgz', authorized: false }
      ])
    } finally {
      await indexOnly.stop()
    }
  })

  it('fails on wrong credentials naming the release and repository, not the password', async () => {
    const wrong = { username: 'alice', password: `${PASSWORD}-wrong` }
    const err = await fetchChart(http, repoRequest(repository(authRepo.url, wrong), '1.2.3')).catch(
      (e: Error) => e
    )
    expect(err).toBeInstanceOf(Error)
    const message = (err as Error).message
    expect(message).toContain(`release "web": chart repository ${authRepo.url}`)
    expect(message).toContain('401 Unauthorized')
    expect(message).not.toContain(PASSWORD)
  })

  it('fails without credentials when the repository needs them', async () => {
    await expect(fetchChart(http, repoRequest(repository(authRepo.url), ''))).rejects.toThrow(
      `failed to fetch ${authRepo.url}index.yaml : 401 Unauthorized`
    )
  })

  it('fails on a missing version naming the chart, version and repository', async () => {
    await expect(fetchChart(http, repoRequest(repository(openRepo.url), '9.9.9'))).rejects.toThrow(
      `release "web": chart repository ${openRepo.url}: chart "demo" version "9.9.9" not found in the repository index`
    )
  })

  it('fails on an unreachable repository naming it', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/charts`
    await expect(fetchChart(http, repoRequest(repository(url, CREDENTIALS), ''))).rejects.toThrow(
      new RegExp(
        `^release "web": chart repository ${url.replaceAll('.', '\\.')}: looks like it is not a valid chart repository or cannot be reached: .*ECONNREFUSED`
      )
    )
  })
})

/**
 * The version real `helm pull` picks (from the file it writes), or 'error'. Asynchronous: the
 * chart repository it talks to is served by this very process.
 */
async function helmPulls(args: string[], version: string): Promise<string> {
  const dest = mkdtempSync(path.join(work, 'pull-'))
  const versionArgs = version === '' ? [] : ['--version', version]
  try {
    const result = await runHelmAsync(
      testTools().helm!,
      ['pull', ...args, ...versionArgs, '--destination', dest],
      { home: helmHome }
    )
    if (result.exitCode !== 0) return 'error'
    const [file = ''] = readdirSync(dest)
    return /^demo-(.*)\.tgz$/.exec(file)?.[1] ?? `unexpected ${file}`
  } finally {
    rmSync(dest, { recursive: true, force: true })
  }
}

async function weFetch(request: ChartFetchRequest): Promise<string> {
  return fetchChart(http, request).then(
    (chart) => chart.version,
    () => 'error'
  )
}

const PARITY_VERSIONS = [
  '',
  '1.2.4',
  '1.2',
  '1.x',
  '~1.2',
  '^1',
  '*',
  '<1.2.4',
  '>1.2.3 <1.3',
  '!=1.3.0',
  '>=2.0.0-0',
  '1.2.3 || 2.0.0-rc.1',
  '^2.0.0-0',
  '9.9.9',
  '>=3',
  'latest',
  'v1.2.4'
]

describe('version selection, against real helm pull', () => {
  it.each(PARITY_VERSIONS)(
    'picks from a chart repository what helm does for %j',
    async (version) => {
      const ours = await weFetch(repoRequest(repository(openRepo.url), version))
      expect(ours).toBe(await helmPulls(['demo', '--repo', openRepo.url], version))
    }
  )

  it.each(PARITY_VERSIONS)('picks from a registry what helm does for %j', async (version) => {
    const chart = `oci://${registries.none.address}/charts/demo`
    const ours = await weFetch(ociRequest(chart, version))
    expect(ours).toBe(await helmPulls([chart, '--plain-http'], version))
  })
})

describe('OCI registry', () => {
  const ref = (kind: keyof typeof registries): string =>
    `oci://${registries[kind].address}/charts/demo`

  it.each([
    ['1.2.4', '1.2.4'],
    ['~1.3', '1.3.0+build.1'],
    ['', '1.3.0+build.1'],
    ['>=2.0.0-0', '2.0.0-rc.1']
  ])(
    'anonymous pull with version %j downloads %s (https falls back to http as in Helm)',
    async (version, want) => {
      const chart = await fetchChart(http, ociRequest(ref('none'), version))
      expect({ name: chart.name, version: chart.version }).toEqual({ name: 'demo', version: want })
      expect(Buffer.from(chart.archive).equals(archiveOf(want))).toBe(true)
      expect(chart.origin).toMatch(
        new RegExp(`^${registries.none.address}/charts/demo@sha256:[0-9a-f]{64}$`)
      )
    }
  )

  it('pulls by digest', async () => {
    const chart = await fetchChart(http, ociRequest(`${ref('none')}@${digest123}`, ''))
    expect(chart.version).toBe('1.2.3')
    expect(chart.origin).toBe(`${registries.none.address}/charts/demo@${digest123}`)
    expect(Buffer.from(chart.archive).equals(archiveOf('1.2.3'))).toBe(true)
  })

  it('pulls by tag and digest when the tag points at the digest', async () => {
    const chart = await fetchChart(http, ociRequest(`${ref('none')}:1.2.3@${digest123}`, ''))
    expect(chart.version).toBe('1.2.3')
  })

  it('rejects a version whose tag points at another digest', async () => {
    await expect(
      fetchChart(http, ociRequest(`${ref('none')}@${digest123}`, '1.2.4'))
    ).rejects.toThrow(`is not ${digest123}`)
  })

  it.each(['basic', 'bearer'] as const)('pulls from a registry with %s auth', async (kind) => {
    const chart = await fetchChart(
      http,
      ociRequest(ref(kind), '~1.2', { creds: CREDENTIALS, plainHttp: true })
    )
    expect(chart.version).toBe('1.2.4')
    expect(Buffer.from(chart.archive).equals(archiveOf('1.2.4'))).toBe(true)
  })

  it.each(['basic', 'bearer'] as const)(
    'fails on wrong %s credentials naming the release and reference, not the password',
    async (kind) => {
      const wrong = { username: 'alice', password: `${PASSWORD}-wrong` }
      const err = await fetchChart(
        http,
        ociRequest(ref(kind), '1.2.3', { creds: wrong, plainHttp: true })
      ).catch((e: Error) => e)
      const message = (err as Error).message
      expect(message).toContain(`release "web": OCI chart ${ref(kind)}`)
      expect(message).toContain('response status 401')
      expect(message).toContain('check the repository username and password')
      expect(message).not.toContain(PASSWORD)
    }
  )

  it('like Helm v3.21, sends no credentials after falling back from https to plain http', async () => {
    await expect(
      fetchChart(http, ociRequest(ref('bearer'), '1.2.3', { creds: CREDENTIALS }))
    ).rejects.toThrow(
      'the registry answered https in plain http; Helm v3.21 then sends no credentials'
    )
  })

  it('fails on a missing version naming the reference', async () => {
    await expect(fetchChart(http, ociRequest(ref('none'), '9.9.9'))).rejects.toThrow(
      new RegExp(
        `^release "web": OCI chart ${ref('none').replaceAll('.', '\\.')}: GET .*/manifests/9\\.9\\.9: response status 404`
      )
    )
  })

  it('fails on a constraint no tag satisfies, listing the tags', async () => {
    await expect(fetchChart(http, ociRequest(ref('none'), '>=3'))).rejects.toThrow(
      'could not locate a version matching ">=3" among the tags 2.0.0-rc.1, 1.3.0+build.1, 1.2.4, 1.2.3'
    )
  })

  it('fails on an unreachable registry naming the reference', async () => {
    const chart = `oci://127.0.0.1:${await closedPort()}/charts/demo`
    await expect(
      fetchChart(http, ociRequest(chart, '1.2.3', { creds: CREDENTIALS }))
    ).rejects.toThrow(
      new RegExp(
        `^release "web": OCI chart ${chart.replaceAll('.', '\\.')}: cannot reach registry .*ECONNREFUSED`
      )
    )
  })
})
