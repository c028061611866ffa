/**
 * The native Helm program (docs/renderers.md#native-programs) against its WebAssembly build,
 * which the render-parity corpus holds to the Go oracle: the same Go code, so every helmfile
 * case of the test fixtures must render to the same text, or fail with the same error text,
 * through both — unconfined and confined to the fixtures — and so must every chart of the
 * fixtures rendered on its own; the documents the native program decodes must give the objects
 * the engine's own YAML decoding gives. The arm64 build, run under qemu-user, must render all of
 * them as the x64 build does. Both builds report the volatile functions a chart calls
 * (docs/renderers.md#volatile-templates). Then what only the native program does itself: refuse
 * a chart entry that leads outside the repository, as the WebAssembly build's file bridge
 * refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { zstdDecompressSync } from 'node:zlib'
import {
  createGoRenderModule,
  type GoRenderModule,
  type RenderModuleOptions
} from '../../../src/adapters/render/module.js'
import {
  locateNativeProgram,
  nativeArtifact,
  nativeProgramHost
} from '../../../src/adapters/render/native-program.js'
import { startRenderProgram } from '../../../src/adapters/render/go-program.js'
import { compileGoWasm } from '../../../src/adapters/render/go-wasm.js'
import { desiredEntries, objectsFromYaml } from '../../../src/objects/objects.js'
import { renderManifestText } from '../../../src/render/manifest.js'
import type { HelmReleaseRender } from '../../../src/render/ports.js'
import { renderModuleFiles } from '../../support/render-module.js'
import { fixturesDir, loadFixture } from './harness.js'

const srcDir = path.resolve(import.meta.dirname, '../../../src')
const linuxOnly = nativeArtifact('helm') !== undefined ? describe : describe.skip

/** Every fixture case (a directory with case.json) whose manifest is a helmfile, by name. */
function helmfileCases(dir = fixturesDir): string[] {
  const entries = readdirSync(dir, { withFileTypes: true })
  const caseFile = path.join(dir, 'case.json')
  const here =
    existsSync(caseFile) &&
    (JSON.parse(readFileSync(caseFile, 'utf8')) as { manifest: { type: string } }).manifest.type ===
      'helmfile'
  return [
    ...(here ? [path.relative(fixturesDir, dir)] : []),
    ...entries.filter((e) => e.isDirectory()).flatMap((e) => helmfileCases(path.join(dir, e.name)))
  ]
}

/** Every chart directory below the fixtures, subcharts included. */
function charts(dir = fixturesDir): string[] {
  const entries = readdirSync(dir, { withFileTypes: true })
  return [
    ...(entries.some((e) => e.name === 'Chart.yaml') ? [dir] : []),
    ...entries.filter((e) => e.isDirectory()).flatMap((e) => charts(path.join(dir, e.name)))
  ]
}

const release = (chart: string): HelmReleaseRender => ({
  name: 'parity',
  namespace: 'ns',
  chart: { path: chart },
  values: [],
  includeCRDs: true,
  kubeVersion: '',
  apiVersions: []
})

/** The render's text, or its error as `error: <message>`. */
const outcome = (render: Promise<string>): Promise<string> =>
  render.then(
    (text) => text,
    (error: unknown) => `error: ${(error as Error).message}`
  )

/** A fixture case's manifest text through `module`, or its error. */
const caseOutcome = (name: string, module: GoRenderModule): Promise<string> => {
  const f = loadFixture(name, { renderer: module })
  return outcome(renderManifestText(f.case.manifest, f.ctx))
}

let executable: string
const native = (options: Partial<RenderModuleOptions> = {}): GoRenderModule =>
  createGoRenderModule({
    locate: renderModuleFiles,
    native: (program) =>
      program === 'helm' ? Promise.resolve(executable) : Promise.resolve(undefined),
    onNativeFailure: (message) => {
      throw new Error(`the native program did not start: ${message}`)
    },
    ...options
  })

beforeAll(async () => {
  if (nativeArtifact('helm') !== undefined)
    executable = (await locateNativeProgram('helm', process.env, srcDir))!
}, 600_000)

/** A pair of modules (reference, candidate), unconfined and confined to the fixtures. */
interface Pairs {
  free: readonly [GoRenderModule, GoRenderModule]
  confined: readonly [GoRenderModule, GoRenderModule]
}

/** Expects the candidates to render as the references do; returns the unconfined text. */
async function expectSame(
  render: (module: GoRenderModule) => Promise<string>,
  { free, confined }: Pairs
): Promise<string> {
  const text = await render(free[1])
  expect(text).toBe(await render(free[0]))
  expect(await render(confined[1])).toBe(await render(confined[0]))
  return text
}

/** Runs the corpus through `pairs()` (set up before the tests run). */
function parityTests(pairs: () => Pairs, documents: boolean): void {
  const cases = helmfileCases()
  const chartDirs = charts()

  it('covers at least 40 helmfile cases and 60 charts of the fixtures', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40)
    expect(chartDirs.length).toBeGreaterThanOrEqual(60)
  })

  it.each(cases)(
    'case %s',
    async (name) => {
      const text = await expectSame((m) => caseOutcome(name, m), pairs())
      const candidate = pairs().free[1]
      if (text.startsWith('error: ') || !documents) return
      // The manifest's text (its releases' outputs trimmed and joined), decoded by the program
      // that rendered them, gives the objects the engine's own decoding gives (Object.is on
      // every value: -0 is not 0).
      const decoded = candidate.documentsOf?.(text) ?? (await candidate.decode?.(text))
      expect(decoded).toBeDefined()
      const opts = { file: 'rendered', defaultNamespace: 'fallback' }
      const own = objectsFromYaml(text, opts)
      const objects = objectsFromYaml(text, opts, decoded)
      expect(objects).toEqual(own)
      expect(desiredEntries('m', objects)).toEqual(desiredEntries('m', own))
    },
    120_000
  )

  it.each(chartDirs.map((dir) => [path.relative(fixturesDir, dir), dir]))(
    'chart %s',
    async (_, dir) => {
      expect.hasAssertions()
      await expectSame((m) => outcome(m.helm(release(dir))), pairs())
    },
    120_000
  )
}

linuxOnly('the native Helm program renders what the WebAssembly build renders', () => {
  const confined = { root: fixturesDir, allowed: [] }
  let modules: Pairs
  beforeAll(() => {
    modules = {
      free: [createGoRenderModule({ locate: renderModuleFiles }), native({ workers: 2 })],
      confined: [
        createGoRenderModule({ locate: renderModuleFiles, confine: () => [confined] }),
        native({ workers: 2, confine: () => [confined] })
      ]
    }
  })
  parityTests(() => modules, true)

  it('decodes a text no render made (a joined helmfile) as the engine does', async () => {
    const cm = (name: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  run: |\n    echo ${name}`
    const text = `${cm('first')}\n---\n${cm('last')}`
    const module = native()
    // Never starts the program itself: none runs yet.
    expect(await module.decode?.(text)).toBeUndefined()
    await module.helm(release(path.join(fixturesDir, 'render-parity/helm-files/chart')))
    const decoded = await module.decode?.(text)
    expect(decoded).toHaveLength(2)
    const opts = { file: 'rendered', defaultNamespace: 'ns' }
    expect(objectsFromYaml(text, opts, decoded)).toEqual(objectsFromYaml(text, opts))
    // Not decodable: none, and the engine's own decoding names the line.
    expect(await module.decode?.('a: [\n')).toBeUndefined()
  })

  it('answers with the questions the chart load asks', async () => {
    const host = nativeProgramHost(executable, {
      timeoutError: () => new Error('timeout'),
      stoppedError: (_, message) => new Error(message)
    })
    const chart = path.join(fixturesDir, 'render-parity/helm-files/chart')
    const input = { name: 'r', namespace: 'ns', chartPath: chart, values: [], includeCRDs: true }
    const { reads, output } = await host.call(JSON.stringify({ op: 'helm', input }))
    expect(output).toContain('kind: ConfigMap')
    expect(reads).toContainEqual(['kind', chart])
    expect(reads).toContainEqual(['list', chart])
    expect(reads).toContainEqual(['file', path.join(chart, 'Chart.yaml')])
  })

  it('reports the volatile functions a chart calls, as the WebAssembly build does', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-volatile-helm-'))
    try {
      const random = path.join(dir, 'random')
      mkdirSync(path.join(random, 'templates'), { recursive: true })
      writeFileSync(
        path.join(random, 'Chart.yaml'),
        'apiVersion: v2\nname: random\nversion: 0.1.0\n'
      )
      writeFileSync(
        path.join(random, 'templates', 'cm.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: random\ndata:\n  p: {{ randAlphaNum 12 | quote }}\n'
      )
      const pure = path.join(fixturesDir, 'render-parity/helm-files/chart')
      const request = (chartPath: string): string =>
        JSON.stringify({ op: 'helm', input: { name: 'r', namespace: 'ns', chartPath, values: [] } })
      const host = nativeProgramHost(executable, {
        timeoutError: () => new Error('timeout'),
        stoppedError: (_, message) => new Error(message)
      })
      const wasm = await startRenderProgram(
        await compileGoWasm(renderModuleFiles('helm'), 'the Helm render program'),
        undefined
      )
      for (const call of [(json: string) => host.call(json), wasm]) {
        const answer = await call(request(random))
        expect(answer.error).toBeUndefined()
        expect(answer.output).toMatch(/p: "[A-Za-z0-9]{12}"/)
        expect(answer.volatile).toEqual(['randAlphaNum'])
        const none = await call(request(pure))
        expect(none.output).toContain('kind: ConfigMap')
        // An empty list, not nothing: the engine records only a render whose answer says so.
        expect(none.volatile).toEqual([])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

// The arm64 build is what an arm64 runner runs; this x64 machine runs it under qemu-user's
// emulation (.ci/run installs qemu-user-static where apt can).
const qemu = ['qemu-aarch64-static', 'qemu-aarch64'].find(
  (tool) => spawnSync(tool, ['--version']).status === 0
)
const arm64Emulated =
  nativeArtifact('helm') !== undefined && process.arch === 'x64' && qemu !== undefined
    ? describe
    : describe.skip

arm64Emulated(
  `the arm64 Helm build renders what the x64 build renders (${qemu ? `under ${qemu}` : 'skipped: no qemu-aarch64 here'})`,
  () => {
    const confined = { root: fixturesDir, allowed: [] }
    let work: string
    let program: string
    let modules: Pairs
    beforeAll(() => {
      work = mkdtempSync(path.join(os.tmpdir(), 'tazuna-arm64-helm-'))
      const built = execFileSync(
        'bash',
        [path.join(srcDir, 'go/render/module/build.sh'), 'helm', 'native'],
        { encoding: 'utf8' }
      ).trim()
      program = path.join(work, 'render-helm-arm64')
      const packed = readFileSync(path.join(built, nativeArtifact('helm', 'linux', 'arm64')!))
      writeFileSync(program, zstdDecompressSync(packed), { mode: 0o700 })
      const wrapper = path.join(work, 'render-helm-arm64.sh')
      writeFileSync(wrapper, `#!/bin/sh\nexec ${qemu} '${program}' "$@"\n`, { mode: 0o700 })
      const arm64 = (options: Partial<RenderModuleOptions> = {}): GoRenderModule =>
        native({ native: () => Promise.resolve(wrapper), ...options })
      modules = {
        free: [native(), arm64()],
        confined: [native({ confine: () => [confined] }), arm64({ confine: () => [confined] })]
      }
    }, 600_000)
    afterAll(() => rmSync(work, { recursive: true, force: true }))

    it('is a program for AArch64, which this machine runs only under qemu', () => {
      expect(readFileSync(program).readUInt16LE(18)).toBe(183) // ELF e_machine: EM_AARCH64
    })
    parityTests(() => modules, false)
  }
)

linuxOnly('choosing the Helm build', () => {
  const chart = path.join(fixturesDir, 'render-parity/helm-files/chart')

  it('is not located with TAZUNA_RENDER_NATIVE=off', async () => {
    const env = { ...process.env, TAZUNA_RENDER_NATIVE: 'off' }
    expect(await locateNativeProgram('helm', env, srcDir)).toBeUndefined()
  })

  it('gives way to the WebAssembly build when it cannot start, and says why', async () => {
    const told: string[] = []
    const module = createGoRenderModule({
      locate: renderModuleFiles,
      native: () => Promise.resolve(path.join(os.tmpdir(), 'no-such-render-helm')),
      onNativeFailure: (message, program) => told.push(`${program}: ${message}`),
      onLoad: (_, __, runs) => told.push(runs)
    })
    const text = await module.helm(release(chart))
    expect(text).toBe(await native().helm(release(chart)))
    expect(told).toEqual([expect.stringMatching(/^helm: .*could not start/), 'WebAssembly'])
  })
})

linuxOnly('what the native Helm program checks itself', () => {
  let base: string
  let repo: string
  let outside: string
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
  const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\ndata:\n  k: v\n'
  beforeAll(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'tazuna-native-helm-'))
    repo = path.join(base, 'repo')
    outside = path.join(base, 'outside')
    write(path.join(outside, 'templates', 'cm.yaml'), cm)
    for (const chart of ['file-link', 'dir-link', 'ignored-link']) {
      write(
        path.join(repo, chart, 'Chart.yaml'),
        `apiVersion: v2\nname: ${chart}\nversion: 0.1.0\n`
      )
    }
    mkdirSync(path.join(repo, 'file-link', 'templates'))
    symlinkSync(
      path.join(outside, 'templates', 'cm.yaml'),
      path.join(repo, 'file-link', 'templates', 'cm.yaml')
    )
    symlinkSync(path.join(outside, 'templates'), path.join(repo, 'dir-link', 'templates'))
    // .helmignore'd, so Helm's loader would not read it: still refused, as every entry is.
    write(path.join(repo, 'ignored-link', '.helmignore'), 'secret\n')
    symlinkSync(outside, path.join(repo, 'ignored-link', 'secret'))
  })
  afterAll(() => rmSync(base, { recursive: true, force: true }))

  const wasmModule = (allowed: string[] = []) =>
    createGoRenderModule({ locate: renderModuleFiles, confine: () => [{ root: repo, allowed }] })
  const nativeModule = (allowed: string[] = []) =>
    native({ confine: () => [{ root: repo, allowed }] })

  it.each([
    ['a template that is a symlink out of the repository', 'file-link'],
    ['a templates directory that is a symlink out of the repository', 'dir-link']
  ])('refuses %s, as the WebAssembly build does, and reads it once allowed', async (_, chart) => {
    const refusal = `is outside the repository ${repo}`
    for (const module of [nativeModule(), wasmModule()]) {
      const failure = await outcome(module.helm(release(path.join(repo, chart))))
      expect(failure).toContain(refusal)
      expect(failure).toContain(outside)
      expect(failure).toContain('files outside it are not read.')
    }
    for (const module of [nativeModule([outside]), wasmModule([outside])]) {
      await expect(module.helm(release(path.join(repo, chart)))).resolves.toContain('name: outside')
    }
  })

  it('refuses an entry that leads outside even where .helmignore leaves it out', async () => {
    await expect(nativeModule().helm(release(path.join(repo, 'ignored-link')))).rejects.toThrow(
      `${path.join(repo, 'ignored-link', 'secret')} is outside the repository`
    )
    await expect(
      nativeModule([outside]).helm(release(path.join(repo, 'ignored-link')))
    ).resolves.toBe('')
  })
})
