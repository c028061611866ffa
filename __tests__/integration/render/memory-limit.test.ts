// max-render-memory (docs/reliability.md#render-limits) when the render programs run in the
// engine's thread (from source): a render whose program runs out of the memory it may use fails
// as a render limit, and the next render starts a new program and succeeds.
import { afterAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createGoRenderModule, RenderLimitError } from '../../../src/adapters/render/module.js'
import type { HelmReleaseRender } from '../../../src/render/ports.js'
import { renderModuleFiles } from '../../support/render-module.js'
import { createGoTemplateEngine } from '../../../src/adapters/render/template-engine.js'
import { TemplateError } from '../../../src/go/template/engine.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-memory-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function chart(name: string, template: string): string {
  const root = path.join(dir, name)
  mkdirSync(path.join(root, 'templates'), { recursive: true })
  writeFileSync(path.join(root, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`)
  writeFileSync(path.join(root, 'templates', 'cm.yaml'), template)
  return root
}

const release = (chartPath: string): HelmReleaseRender => ({
  name: 'r',
  namespace: 'ns',
  chart: { path: chartPath },
  values: [],
  includeCRDs: false,
  kubeVersion: '',
  apiVersions: []
})

describe('max-render-memory in the engine thread', () => {
  it('stops a render past the limit, then renders the next one with a new program', async () => {
    const module = createGoRenderModule({
      locate: renderModuleFiles,
      maxMemoryBytes: 256 * 1024 ** 2
    })
    const hog = chart(
      'hog',
      '{{- $s := "xxxxxxxxxxxxxxxx" }}{{- range until 40 }}{{- $s = print $s $s }}{{- end }}\n' +
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hog\ndata:\n  x: {{ len $s | quote }}\n'
    )
    const failure = module.helm(release(hog))
    await expect(failure).rejects.toThrow(RenderLimitError)
    await expect(failure).rejects.toThrow(
      'the render needed more memory than max-render-memory (256.0 MiB) and was stopped'
    )
    const small = chart('small', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: small\n')
    await expect(module.helm(release(small))).resolves.toContain('name: small')
  })

  it('stops a Go template past the limit (as a template error), then renders the next one', async () => {
    const engine = createGoTemplateEngine(goTemplateEngineFiles, {
      maxMemoryBytes: 256 * 1024 ** 2
    })
    const failure = engine.render({
      text: '{{- $s := "xxxxxxxxxxxxxxxx" }}{{- range 40 }}{{- $s = print $s $s }}{{- end }}{{ len $s }}',
      name: 'tazuna.yaml',
      mode: 'tazuna',
      data: { Environment: '' }
    })
    await expect(failure).rejects.toThrow(TemplateError)
    await expect(failure).rejects.toThrow(
      'the render needed more memory than max-render-memory (256.0 MiB) and was stopped'
    )
    await expect(
      engine.render({
        text: 'env: {{ .Environment }}',
        name: 'tazuna.yaml',
        mode: 'tazuna',
        data: { Environment: 'prod' }
      })
    ).resolves.toBe('env: prod')
  })
})
