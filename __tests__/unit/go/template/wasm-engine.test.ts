import { beforeAll, describe, expect, it } from '@jest/globals'
import { tazunaTemplateData, type TemplateEngine } from '../../../../src/go/template/engine.js'
import { createGoTemplateEngine } from '../../../../src/adapters/render/template-engine.js'
import {
  describeWithGo,
  goTemplateEngineFiles,
  goTimeout,
  needsGo,
  runOracle
} from './go-oracle.js'
import { outcome, requests, titles, type GoResult } from './cases.js'

// Expected values come from Go itself: every case of cases.ts is also rendered by the same Go
// code compiled natively (__tests__/oracle/template/render, run live with `go run`), and the
// WebAssembly build called from Node must agree byte for byte, errors included.

const env = (environment: string) => tazunaTemplateData(environment)

describeWithGo(`Go template engine (WebAssembly) against native Go${needsGo}`, () => {
  let engine: TemplateEngine
  let expected: GoResult[]

  beforeAll(() => {
    const files = goTemplateEngineFiles()
    engine = createGoTemplateEngine(() => files)
    expected = runOracle<GoResult[]>(
      'render',
      requests.map((r) => ({ text: r.text, data: r.data, mode: r.mode, name: r.name }))
    )
  }, goTimeout)

  const table = titles.map((title, i) => [title, i] as const)
  it.each(table)('%s renders as Go renders it', async (_title, i) => {
    const actual = await outcome(engine, requests[i]!)
    expect(actual).toEqual(expected[i])
  })

  it('names the file and line in errors, as Go does', async () => {
    const result = await outcome(engine, requests[titles.indexOf('tazuna: undefined field')]!)
    expect(result.error).toBe(
      'template: tazuna.yaml:2:8: executing "tazuna.yaml" at <.Foo>: map has no entry for key "Foo"'
    )
    await expect(
      engine.render(requests[titles.indexOf('tazuna: undefined function')]!)
    ).rejects.toMatchObject({
      phase: 'parse',
      line: 2,
      message: 'template: tazuna.yaml:2: function "upper" not defined'
    })
  })

  it('gives missing helmfile values the zero value', async () => {
    const result = await outcome(engine, requests[titles.indexOf('helmfile: missing key is zero')]!)
    expect(result.output).toBe('[<no value>] [<no value>]')
  })
})

describe('text without template actions', () => {
  it('renders to itself without loading Go', async () => {
    const engine = createGoTemplateEngine(() => {
      throw new Error('must not load the engine')
    })
    const text = 'spec:\n  manifests: [] # } { $ .Environment\n'
    await expect(
      engine.render({ text, name: 'tazuna.yaml', mode: 'tazuna', data: env('x') })
    ).resolves.toBe(text)
  })

  it('reports an engine that cannot be located on the first render that needs it', async () => {
    const engine = createGoTemplateEngine(() => ({
      wasm: '/nonexistent/gotemplate.wasm.br',
      wasmExec: '/nonexistent/x.js'
    }))
    await expect(
      engine.render({
        text: '{{ .Environment }}',
        name: 'tazuna.yaml',
        mode: 'tazuna',
        data: env('x')
      })
    ).rejects.toThrow('cannot read the Go template engine (/nonexistent/gotemplate.wasm.br)')
  })
})
