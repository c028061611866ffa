/**
 * Go templates in the native Helm program (docs/renderers.md#templates-in-the-native-helm-program)
 * against the template engine's WebAssembly build, which unit/go/template/wasm-engine.test.ts holds
 * to native Go: every case of the template corpus must render to the same text, or fail with the
 * same error text and phase, through both, without the WebAssembly being loaded for the native
 * engine. Then where the native program is not used (none for the platform, or
 * TAZUNA_RENDER_NATIVE=off: no native function), and the limits a template renders under there.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import path from 'node:path'
import { createGoRenderModule, type GoRenderModule } from '../../../src/adapters/render/module.js'
import { locateNativeProgram, nativeArtifact } from '../../../src/adapters/render/native-program.js'
import { createGoTemplateEngine } from '../../../src/adapters/render/template-engine.js'
import { TemplateError, type TemplateEngine } from '../../../src/go/template/engine.js'
import { renderModuleFiles } from '../../support/render-module.js'
import { outcome, requests, titles } from '../../unit/go/template/cases.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { fixturesDir } from './harness.js'

const srcDir = path.resolve(import.meta.dirname, '../../../src')
const linuxOnly = nativeArtifact('helm') !== undefined ? describe : describe.skip

const noWasm = () => {
  throw new Error('the WebAssembly template engine must not load')
}

let executable: string
const nativeModule = (timeoutMs?: number): GoRenderModule =>
  createGoRenderModule({
    locate: renderModuleFiles,
    native: (program) => Promise.resolve(program === 'helm' ? executable : undefined),
    onNativeFailure: (message) => {
      throw new Error(`the native program did not start: ${message}`)
    },
    ...(timeoutMs === undefined ? {} : { timeoutMs })
  })

beforeAll(async () => {
  if (nativeArtifact('helm') !== undefined)
    executable = (await locateNativeProgram('helm', process.env, srcDir))!
}, 600_000)

linuxOnly('Go templates in the native Helm program', () => {
  let native: TemplateEngine
  let wasm: TemplateEngine
  beforeAll(() => {
    const module = nativeModule()
    native = createGoTemplateEngine(noWasm, { native: (call) => module.nativeTemplate(call) })
    const files = goTemplateEngineFiles()
    wasm = createGoTemplateEngine(() => files)
  }, 600_000)

  it('covers the template corpus', () => {
    expect(requests.length).toBeGreaterThanOrEqual(40)
    expect(titles.filter((t) => t.startsWith('helmfile: ')).length).toBeGreaterThanOrEqual(20)
  })

  it.each(titles.map((title, i) => [title, i] as const))(
    '%s renders as the WebAssembly build renders it',
    async (_title, i) => {
      const expected = await outcome(wasm, requests[i]!)
      expect(await outcome(native, requests[i]!)).toEqual(expected)
    },
    60_000
  )

  it('renders templates beside Helm renders in the same process', async () => {
    const module = nativeModule()
    const engine = createGoTemplateEngine(noWasm, {
      native: (call) => module.nativeTemplate(call)
    })
    const chart = path.join(fixturesDir, 'render-parity/helm-files/chart')
    const [rendered, text] = await Promise.all([
      module.helm({
        name: 'r',
        namespace: 'ns',
        chart: { path: chart },
        values: [],
        includeCRDs: true,
        kubeVersion: '',
        apiVersions: []
      }),
      engine.render({ text: '{{ upper "x" }}', name: 'h', mode: 'helmfile', data: {} })
    ])
    expect(rendered).toContain('kind: ConfigMap')
    expect(text).toBe('X')
  })

  it('stops a template that never ends at the time limit, as a template error', async () => {
    const module = nativeModule(1_000)
    const engine = createGoTemplateEngine(noWasm, {
      native: (call) => module.nativeTemplate(call)
    })
    const endless = '{{ range 100000 }}{{ range 100000 }}{{ end }}{{ end }}'
    const failed = await engine
      .render({ text: endless, name: 'helmfile.yaml', mode: 'helmfile', data: {} })
      .then(
        () => undefined,
        (error: unknown) => error
      )
    expect(failed).toBeInstanceOf(TemplateError)
    expect(failed).toMatchObject({
      phase: 'execute',
      message: 'the render did not finish within render-timeout (1 s) and was stopped'
    })
    // The program is started again for the next template.
    await expect(
      engine.render({ text: '{{ 1 }}', name: 'h', mode: 'tazuna', data: {} })
    ).resolves.toBe('1')
  })

  it('refuses an output longer than max-render-bytes', async () => {
    const module = nativeModule()
    const engine = createGoTemplateEngine(noWasm, {
      native: (call) => module.nativeTemplate(call),
      maxOutputBytes: 100
    })
    await expect(
      engine.render({
        text: '{{ range 20 }}0123456789{{ end }}',
        name: 'h',
        mode: 'tazuna',
        data: {}
      })
    ).rejects.toMatchObject({
      phase: 'execute',
      message: 'the rendered output is longer than max-render-bytes (100 bytes)'
    })
  })
})

describe('Go templates where there is no native Helm program', () => {
  let files: ReturnType<typeof goTemplateEngineFiles>
  beforeAll(() => {
    files = goTemplateEngineFiles()
  }, 600_000)

  it.each([
    ['the render module runs no native program (TAZUNA_RENDER_NATIVE=off)', undefined],
    ['this platform has no native Helm build', () => Promise.resolve(undefined)]
  ] as const)('renders in WebAssembly when %s', async (_, native) => {
    const module = createGoRenderModule({
      locate: () => {
        throw new Error('no render program may load for a template')
      },
      ...(native ? { native } : {})
    })
    expect(await module.nativeTemplate({ text: '{{ 1 }}' })).toBeUndefined()
    let located = 0
    const engine = createGoTemplateEngine(
      () => {
        located++
        return files
      },
      { native: (call) => module.nativeTemplate(call) }
    )
    await expect(
      engine.render({ text: '{{ upper "x" }}', name: 'h', mode: 'helmfile', data: {} })
    ).resolves.toBe('X')
    expect(located).toBe(1)
  })
})
