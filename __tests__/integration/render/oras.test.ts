// `type: oras` (docs/compatibility.md#oras) end to end through the command line's `build`:
// artifacts pushed by the real oras CLI to the test registry (go-containerregistry, no auth,
// basic and bearer), pulled into Tazuna's cache layout, rendered by the kustomize and helmfile
// delegates in the confined render module. Expected texts: what the Tazuna CLI's `tazuna
// build` printed for the same artifacts (see fixtures/oras-artifacts/README.md), after the
// `manifest "<name>": failed to build: ` every command of ours puts first.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { execFileSync } from 'node:child_process'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { processEnginePorts } from '../../../src/adapters/engine-ports.js'
import { createEngine } from '../../../src/engine/engine.js'
import { runCliInProcess } from '../../support/cli.js'
import {
  buildTestRegistry,
  startTestRegistry,
  type TestAuth,
  type TestRegistry
} from '../../support/chart-servers.js'
import {
  pushArtifact,
  pushDirectory,
  selfSignedCertificate,
  startCountingProxy,
  tarGzOf,
  withDeclaredSize,
  type CountingProxy
} from '../../support/oras-artifacts.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { fixturesDir } from './harness.js'

const PASSWORD = 'oras-pa55-do-not-print'
const BASIC: TestAuth = { kind: 'basic', username: 'alice', password: PASSWORD }
const BEARER: TestAuth = { kind: 'bearer', username: 'bob', password: PASSWORD }
const artifacts = path.join(fixturesDir, 'oras-artifacts')
/** `tazuna build` of the kustomize bundle (README). */
const KUSTOMIZE_BUILD = readFileSync(path.join(artifacts, 'expected-kustomize.yaml'), 'utf8')
const HELMFILE_BUILD = readFileSync(path.join(artifacts, 'expected-helmfile.yaml'), 'utf8')

let work: string
let registries: Record<'none' | 'basic' | 'bearer', TestRegistry>
let proxy: CountingProxy
let tlsProxy: CountingProxy
let baseEnv: Record<string, string | undefined>
let kustomizeDigest: string

/** A fresh cache and workspace; returns their paths. */
function freshRun(): { cache: string; ws: string } {
  const dir = mkdtempSync(path.join(work, 'run-'))
  mkdirSync(path.join(dir, 'ws'))
  return { cache: path.join(dir, 'xdg'), ws: path.join(dir, 'ws') }
}

/** One oras manifest; `oras` is merged into `{ plainHTTP: true, delegate kustomize }`. */
function manifestYaml(oras: Record<string, unknown>): string {
  const spec = { plainHTTP: true, delegate: { type: 'kustomize' }, ...oras }
  return JSON.stringify({
    spec: { manifests: [{ name: 'bundle', type: 'oras', path: '.', oras: spec }] }
  })
}

/** `tazuna-action build -f <ws>/tazuna.yaml <flags>` with the cache at `cache`. */
async function build(
  run: { cache: string; ws: string },
  oras: Record<string, unknown>,
  flags: string[] = [],
  env: Record<string, string> = {}
) {
  const file = path.join(run.ws, 'tazuna.yaml')
  writeFileSync(file, manifestYaml(oras))
  return runCliInProcess(['build', '-f', file, ...flags], {
    ...baseEnv,
    XDG_CACHE_HOME: run.cache,
    DOCKER_CONFIG: path.join(run.ws, '..', 'docker'),
    ...env
  })
}

function kustomizeBundle(data: string): Buffer {
  const dir = mkdtempSync(path.join(work, 'bundle-'))
  writeFileSync(path.join(dir, 'kustomization.yaml'), 'resources: [cm.yaml]\n')
  writeFileSync(
    path.join(dir, 'cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: "${data}"}\n`
  )
  return tarGzOf(dir)
}

/** A port on loopback with nothing listening. */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'tazuna-oras-'))
  const binary = buildTestRegistry()
  registries = {
    none: await startTestRegistry(binary, { kind: 'none' }),
    basic: await startTestRegistry(binary, BASIC),
    bearer: await startTestRegistry(binary, BEARER)
  }
  proxy = await startCountingProxy(registries.none.address)
  tlsProxy = await startCountingProxy(registries.none.address, selfSignedCertificate())
  baseEnv = {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    TAZUNA_GOTEMPLATE_WASM: goTemplateEngineFiles().wasm,
    ...renderModuleEnv()
  }
  const bundle = kustomizeBundle('1')
  kustomizeDigest = pushArtifact(registries.none.address, 'bundle:v1', bundle)
  pushArtifact(registries.basic.address, 'bundle:v1', bundle, BASIC)
  pushArtifact(registries.bearer.address, 'bundle:v1', bundle, BEARER)
  pushArtifact(registries.none.address, 'helm:v1', tarGzOf(path.join(artifacts, 'helmfile')))
}, 300_000)

afterAll(async () => {
  await proxy?.stop()
  await tlsProxy?.stop()
  for (const r of Object.values(registries ?? {})) await r.stop()
})

describe('type oras: pull, cache and render', () => {
  it('renders a kustomize delegate as tazuna build does, caching in Tazuna’s layout', async () => {
    const run = freshRun()
    const ref = `${registries.none.address}/bundle:v1`
    const result = await build(run, { reference: ref })
    expect(result).toMatchObject({ code: 0, stdout: KUSTOMIZE_BUILD })
    const root = path.join(run.cache, 'tazuna', 'oras')
    expect(readdirSync(path.join(root, 'blobs'))).toEqual([kustomizeDigest.replace(':', '-')])
    expect(readFileSync(path.join(root, 'refs', ref.replace(/[/:@]/g, '_')), 'utf8')).toBe(
      kustomizeDigest
    )
  })

  it('renders a helmfile delegate below target, reading only the artifact outside the repository', async () => {
    const result = await build(freshRun(), {
      reference: `${registries.none.address}/helm:v1`,
      target: '/app',
      delegate: { type: 'helmfile', helmfile: { kubeVersion: 'v1.32.0' } }
    })
    expect(result).toMatchObject({ code: 0, stdout: HELMFILE_BUILD })
  })

  it('reads a directory packed by oras push itself (Go’s tar writer), below target', async () => {
    const parent = mkdtempSync(path.join(work, 'packed-'))
    const bundle = path.join(parent, 'bundle')
    mkdirSync(bundle)
    execFileSync('tar', ['-xzf', '-', '-C', bundle], { input: kustomizeBundle('1') })
    pushDirectory(registries.none.address, 'packed:v1', parent, 'bundle')
    const result = await build(freshRun(), {
      reference: `${registries.none.address}/packed:v1`,
      target: 'bundle'
    })
    expect(result).toMatchObject({ code: 0, stdout: KUSTOMIZE_BUILD })
  })

  it('pulls a digest reference once: a second build sends no request to the registry', async () => {
    const run = freshRun()
    const ref = `${proxy.address}/bundle@${kustomizeDigest}`
    proxy.requests.length = 0
    expect(await build(run, { reference: ref })).toMatchObject({ code: 0, stdout: KUSTOMIZE_BUILD })
    expect(proxy.requests).toEqual([
      `GET /v2/bundle/manifests/${kustomizeDigest}`,
      expect.stringMatching(/^GET \/v2\/bundle\/blobs\/sha256:/)
    ])
    expect(await build(run, { reference: ref })).toMatchObject({ code: 0, stdout: KUSTOMIZE_BUILD })
    expect(proxy.requests).toHaveLength(2)
    // A digest reference records no refs/ entry, as Tazuna.
    expect(existsSync(path.join(run.cache, 'tazuna', 'oras', 'refs'))).toBe(false)
  })

  it('follows a moved tag: the new content is pulled, the old digest stays cached', async () => {
    const run = freshRun()
    const ref = `${proxy.address}/moving:v1`
    const first = pushArtifact(registries.none.address, 'moving:v1', kustomizeBundle('first'))
    expect((await build(run, { reference: ref })).stdout).toContain('a: first')
    const second = pushArtifact(registries.none.address, 'moving:v1', kustomizeBundle('second'))
    proxy.requests.length = 0
    expect((await build(run, { reference: ref })).stdout).toContain('a: second')
    const root = path.join(run.cache, 'tazuna', 'oras')
    expect(readdirSync(path.join(root, 'blobs')).sort()).toEqual(
      [first, second].map((d) => d.replace(':', '-')).sort()
    )
    expect(readFileSync(path.join(root, 'refs', ref.replace(/[/:@]/g, '_')), 'utf8')).toBe(second)
    // Unchanged tag: one manifest request to resolve it, no blob.
    proxy.requests.length = 0
    expect((await build(run, { reference: ref })).stdout).toContain('a: second')
    expect(proxy.requests).toEqual(['GET /v2/moving/manifests/v1'])
  })

  it('uses oras.auth for basic auth and the Docker config for the bearer token flow', async () => {
    const basic = await build(freshRun(), {
      reference: `${registries.basic.address}/bundle:v1`,
      auth: { username: 'alice', password: PASSWORD }
    })
    expect(basic).toMatchObject({ code: 0, stdout: KUSTOMIZE_BUILD })
    const run = freshRun()
    const docker = path.join(run.ws, '..', 'docker')
    mkdirSync(docker)
    const auth = Buffer.from(`bob:${PASSWORD}`).toString('base64')
    writeFileSync(
      path.join(docker, 'config.json'),
      JSON.stringify({ auths: { [`https://${registries.bearer.address}/`]: { auth } } })
    )
    const bearer = await build(run, { reference: `${registries.bearer.address}/bundle:v1` })
    expect(bearer).toMatchObject({ code: 0, stdout: KUSTOMIZE_BUILD })
  })
})

describe('type oras: secrets', () => {
  it('registers the password of oras.auth as a secret, so the action masks it', async () => {
    const run = freshRun()
    const file = path.join(run.ws, 'tazuna.yaml')
    writeFileSync(
      file,
      manifestYaml({
        reference: `${registries.basic.address}/bundle:v1`,
        auth: { username: 'alice', password: PASSWORD }
      })
    )
    const registered: string[] = []
    const engine = createEngine(
      { file, environment: '', tags: [], version: '0.1.0' },
      processEnginePorts({
        env: { ...baseEnv, XDG_CACHE_HOME: run.cache },
        codeDir: '',
        log: { info: () => undefined, warn: () => undefined },
        registerSecret: (value) => registered.push(value)
      })
    )
    try {
      expect(await engine.renderBuild(await engine.loadForBuild())).toBe(KUSTOMIZE_BUILD)
    } finally {
      engine.close()
    }
    expect(registered).toContain(PASSWORD)
  })
})

describe('type oras over https with a self-signed certificate', () => {
  it('fails verification by default, naming the reference', async () => {
    const ref = `${tlsProxy.address}/bundle:v1`
    const result = await build(freshRun(), { reference: ref, plainHTTP: false })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `oras: pull "${ref}": oras pull: resolve "${ref}": cannot reach`
    )
    expect(result.stderr).toMatch(/SELF_SIGNED|self.signed/i)
    expect(result.stderr).toContain('(insecureSkipVerify: true skips the certificate check)')
  })

  it('pulls with insecureSkipVerify: true', async () => {
    const result = await build(freshRun(), {
      reference: `${tlsProxy.address}/bundle:v1`,
      plainHTTP: false,
      insecureSkipVerify: true
    })
    expect(result).toMatchObject({ code: 0, stdout: KUSTOMIZE_BUILD })
  })

  it('does not fall back to http when plainHTTP is not set (oras-go has no fallback)', async () => {
    const ref = `${registries.none.address}/bundle:v1`
    const result = await build(freshRun(), { reference: ref, plainHTTP: false })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('does not speak TLS')
    expect(result.stderr).toContain('(an http registry needs plainHTTP: true)')
  })
})

describe('type oras: errors name the reference', () => {
  it('a wrong password: 401, the password never printed', async () => {
    const ref = `${registries.basic.address}/bundle:v1`
    const result = await build(freshRun(), {
      reference: ref,
      auth: { username: 'alice', password: 'wrong-secret' }
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `error: manifest "bundle": failed to build: oras: pull "${ref}": oras pull: resolve "${ref}": `
    )
    expect(result.stderr).toContain('response status 401')
    expect(result.stderr).not.toContain('wrong-secret')
  })

  it('a missing tag: 404 from the registry', async () => {
    const ref = `${registries.none.address}/bundle:nope`
    const result = await build(freshRun(), { reference: ref })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      new RegExp(
        `oras pull: resolve "${ref}": GET .*/v2/bundle/manifests/nope: response status 404`
      )
    )
  })

  it('a registry that is down', async () => {
    const ref = `127.0.0.1:${await closedPort()}/bundle:v1`
    const result = await build(freshRun(), { reference: ref })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `oras: pull "${ref}": oras pull: resolve "${ref}": cannot reach registry`
    )
  })

  it('offline with the artifact cached works without the registry; without it fails', async () => {
    const run = freshRun()
    const ref = `${proxy.address}/bundle:v1`
    expect((await build(run, { reference: ref })).code).toBe(0)
    proxy.requests.length = 0
    expect(await build(run, { reference: ref }, ['--offline'])).toMatchObject({
      code: 0,
      stdout: KUSTOMIZE_BUILD
    })
    expect(proxy.requests).toEqual([])
    const miss = await build(freshRun(), { reference: ref }, ['--offline'])
    expect(miss.stderr).toBe(
      `error: manifest "bundle": failed to build: oras: pull "${ref}": oras pull: offline mode and cache miss for "${ref}"\n`
    )
  })

  it('--no-cache pulls a cached digest again', async () => {
    const run = freshRun()
    const ref = `${proxy.address}/bundle@${kustomizeDigest}`
    expect((await build(run, { reference: ref })).code).toBe(0)
    proxy.requests.length = 0
    expect((await build(run, { reference: ref }, ['--no-cache'])).code).toBe(0)
    expect(proxy.requests).toHaveLength(2)
  })

  it('refuses a target leaving the artifact', async () => {
    const result = await build(freshRun(), {
      reference: `${registries.none.address}/bundle:v1`,
      target: '../../..'
    })
    expect(result.stderr).toBe(
      'error: manifest "bundle": failed to build: oras: invalid target path "../../.." (escapes artifact root)\n'
    )
  })
})

describe('type oras: hostile layers are refused before anything is written outside the cache', () => {
  function hostile(name: string, make: (dir: string) => string[], flags: string[] = []): Buffer {
    const dir = mkdtempSync(path.join(work, `hostile-${name}-`))
    mkdirSync(path.join(dir, 'in'))
    const names = make(dir)
    return execFileSync('tar', ['-czf', '-', ...flags, '-C', path.join(dir, 'in'), ...names])
  }

  const cases: [string, () => Buffer, string][] = [
    [
      'an entry escaping with ..',
      () =>
        hostile('dotdot', (d) => (writeFileSync(path.join(d, 'evil'), 'x'), ['../evil']), ['-P']),
      'oras extract: "../evil": path escapes dest (zip slip)'
    ],
    [
      'a symlink out',
      () =>
        hostile('symlink', (d) => (symlinkSync('../../../../etc', path.join(d, 'in', 'l')), ['l'])),
      'oras extract: "l": link target escapes dest: path escapes dest'
    ],
    [
      'a device',
      () => hostile('device', () => ['/dev/null'], ['-P', '--transform', 's,^/,,']),
      'oras extract: "dev/null": unsupported tar entry type "3"'
    ],
    [
      '10,001 entries',
      () =>
        hostile('many', (d) => {
          for (let i = 0; i < 10_001; i++) writeFileSync(path.join(d, 'in', `f${i}`), '')
          return ['.']
        }).subarray(0),
      'oras extract: entry count exceeds limit (10000)'
    ],
    [
      'a declared size of 1 TiB',
      () => hugeDeclaredSize(),
      'oras extract: total size exceeds limit (1073741824 bytes)'
    ]
  ]

  it.each(cases)('%s', async (name, make, message) => {
    const tag = name
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase()
    pushArtifact(registries.none.address, `hostile:${tag}`, make())
    const run = freshRun()
    const ref = `${registries.none.address}/hostile:${tag}`
    const result = await build(run, { reference: ref })
    expect(result.stderr).toBe(
      `error: manifest "bundle": failed to build: oras: pull "${ref}": oras pull: extract layer: ${message}\n`
    )
    // The layer is read and checked in memory: not even the cache directory was created.
    expect(readdirSync(path.join(run.ws, '..'))).toEqual(['ws'])
    expect(readdirSync(run.ws)).toEqual(['tazuna.yaml'])
  })
})

describe('type oras: what the cache and the archive may not do', () => {
  it('a symlink chain leading out passes the entry checks but is refused on disk', async () => {
    const dir = mkdtempSync(path.join(work, 'chain-'))
    mkdirSync(path.join(dir, 'sub'))
    symlinkSync('..', path.join(dir, 'sub', 'up'))
    symlinkSync('sub/up/..', path.join(dir, 'esc'))
    pushArtifact(registries.none.address, 'hostile:chain', tarGzOf(dir))
    const run = freshRun()
    const ref = `${registries.none.address}/hostile:chain`
    const result = await build(run, { reference: ref })
    expect(result.stderr).toBe(
      `error: manifest "bundle": failed to build: oras: pull "${ref}": oras pull: extract layer: oras extract: "esc": ` +
        'link target escapes dest: it resolves outside the artifact\n'
    )
    expect(readdirSync(path.join(run.cache, 'tazuna', 'oras', 'blobs'))).toEqual([])
  })

  it('a later run may not read a cached artifact through a repository manifest', async () => {
    const run = freshRun()
    expect((await build(run, { reference: `${registries.none.address}/bundle:v1` })).code).toBe(0)
    const blob = path.join(run.cache, 'tazuna', 'oras', 'blobs', kustomizeDigest.replace(':', '-'))
    const file = path.join(run.ws, 'tazuna.yaml')
    writeFileSync(
      file,
      JSON.stringify({ spec: { manifests: [{ name: 'peek', type: 'kustomize', path: blob }] } })
    )
    const result = await runCliInProcess(['build', '-f', file], {
      ...baseEnv,
      XDG_CACHE_HOME: run.cache
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${blob} is outside the repository`)
  })
})

/** A gzip tar whose one file declares 2^40 bytes (GNU base-256 size; tar will not write it). */
function hugeDeclaredSize(): Buffer {
  const dir = mkdtempSync(path.join(work, 'huge-'))
  writeFileSync(path.join(dir, 'big'), 'small')
  const tar = Buffer.from(gunzipSync(execFileSync('tar', ['-czf', '-', '-C', dir, 'big'])))
  return gzipSync(withDeclaredSize(tar, 2 ** 40))
}
