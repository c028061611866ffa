import { describe, expect, it } from '@jest/globals'
import { describeRenderers, renderersFooter, renderersOf } from '../../../src/report/renderers.js'
import { applyReportJson, diffReportJson } from '../../../src/report/files.js'

// The versions the render module reports from its build information (src/go/render/module/go.mod).
const versions = {
  go: 'go1.26.8',
  'helm.sh/helm/v3': 'v3.21.4',
  'sigs.k8s.io/kustomize/api': 'v0.21.1'
}

describe('renderer versions in reports', () => {
  it('names kustomize first, then Helm, without the Go version', () => {
    expect(describeRenderers(versions)).toBe('kustomize api v0.21.1, Helm SDK v3.21.4')
  })

  it('adds a footer to the job summary only when the module rendered', () => {
    expect(renderersFooter(undefined)).toBe('')
    expect(renderersFooter({ go: 'go1.26.8' })).toBe('')
    expect(renderersFooter(versions)).toContain(
      'Rendered with kustomize api v0.21.1, Helm SDK v3.21.4'
    )
  })

  it('puts them in report.json, null when nothing rendered', () => {
    const target = { config: 'tazuna.yaml', environment: '', sha: 'abc' }
    const diff = { ...target, manifests: [], problems: [] }
    expect(JSON.parse(diffReportJson(diff)).renderers).toBeNull()
    expect(JSON.parse(diffReportJson({ ...diff, renderers: versions })).renderers).toEqual(versions)
    const applied = { ...target, layers: [], renderers: versions }
    expect(JSON.parse(applyReportJson(applied)).renderers).toEqual(versions)
    expect(renderersOf({ renderers: () => undefined })).toEqual({})
  })
})
