/**
 * Render limits (inputs render-timeout and max-render-bytes, docs/reliability.md): from the
 * bundle, each render program runs in a worker thread, so a render past its time is stopped
 * and fails naming the manifest and the limit, and an oversized render fails the same way.
 * Pull-request runs, read-only kubeconfig: nothing is applied or recorded in any case.
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { buildFreshDist, pullRequestPayload, runAction } from './harness.js'

let dist: string
beforeAll(() => {
  dist = buildFreshDist()
}, 300_000)

const reader = (): string => process.env.TAZUNA_TEST_READER_KUBECONFIG!

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
}

/** A workspace whose one helmfile release renders `template` (chart `limits`). */
function workspace(template: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tazuna-e2e-limits-'))
  write(
    join(dir, 'tazuna.yaml'),
    'apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\nspec:\n  manifests:\n' +
      '    - name: limited\n      type: helmfile\n      path: ./helmfile.yaml\n' +
      // The chart templates no namespace: the manifest gives one (docs/compatibility.md#objects-without-a-namespace).
      '      helmfile:\n        kubeVersion: v1.32.0\n        defaultNamespace: limits\n'
  )
  write(
    join(dir, 'helmfile.yaml'),
    'releases:\n  - name: limits\n    namespace: limits\n    chart: ./chart\n'
  )
  write(join(dir, 'chart', 'Chart.yaml'), 'apiVersion: v2\nname: limits\nversion: 0.1.0\n')
  write(join(dir, 'chart', 'templates', 'cm.yaml'), template)
  return dir
}

function diffRun(dir: string, inputs: Record<string, string>) {
  return runAction({
    dist,
    workspace: dir,
    inputs: {
      config: 'tazuna.yaml',
      kubeconfig: reader(),
      'github-token': '',
      'content-diff': 'off',
      ...inputs
    },
    eventName: 'pull_request',
    payload: pullRequestPayload({ number: 7, headSha: 'c'.repeat(40) }),
    sha: 'c'.repeat(40),
    apiUrl: 'http://127.0.0.1:9'
  })
}

describe('render limits', () => {
  it('stop a render past render-timeout and name the manifest and the limit', async () => {
    // 400 million loop iterations: minutes of work for the template engine.
    const dir = workspace(
      '{{- range until 20000 }}{{- range until 20000 }}{{- end }}{{- end }}\n' +
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: never\n'
    )
    const r = await diffRun(dir, { 'render-timeout': '2s' })
    expect(r.status).toBe(1)
    expect(r.stdout).toContain(
      '::error::manifest "limited": failed to build: manifest limited: release limits: the render did not finish within render-timeout (2 s) and was stopped'
    )
  })

  it('refuse a render longer than max-render-bytes', async () => {
    const dir = workspace(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: {{ repeat 2000000 "x" | quote }}\n'
    )
    const r = await diffRun(dir, { 'max-render-bytes': '1Mi' })
    expect(r.status).toBe(1)
    expect(r.stdout).toContain(
      '::error::manifest "limited": failed to build: manifest limited: release limits: the rendered output is 1.9 MiB, more than max-render-bytes (1.0 MiB)'
    )
  })

  it('stop a render that needs more than max-render-memory, with nothing of Go on the console', async () => {
    // A string doubled 40 times: a terabyte, if the memory let it grow.
    const dir = workspace(
      '{{- $s := "xxxxxxxxxxxxxxxx" }}{{- range until 40 }}{{- $s = print $s $s }}{{- end }}\n' +
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hog\ndata:\n  x: {{ len $s | quote }}\n'
    )
    const r = await diffRun(dir, { 'max-render-memory': '256Mi' })
    expect(r.status).toBe(1)
    expect(r.stdout).toContain(
      '::error::manifest "limited": failed to build: manifest limited: release limits: the render needed more memory than max-render-memory (256.0 MiB) and was stopped'
    )
    expect(r.stderr).toBe('')
    expect(r.stdout).not.toContain('exit code')
  })

  it.each([
    [
      'tazuna.yaml',
      'apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\nspec:\n  manifests: []\n',
      'failed to render tazuna.yaml as a Go template: the render did not finish within render-timeout (2 s) and was stopped'
    ],
    [
      'helmfile.yaml',
      'releases:\n  - name: limits\n    namespace: limits\n    chart: ./chart\n',
      'helmfile.yaml: the render did not finish within render-timeout (2 s) and was stopped'
    ]
  ])('stop a %s template past render-timeout, naming the file', async (file, rest, message) => {
    const dir = workspace('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unused\n')
    write(join(dir, file), '{{- range 100000 }}{{- range 100000 }}{{- end }}{{- end }}\n' + rest)
    const r = await diffRun(dir, { 'render-timeout': '2s' })
    expect(r.status).toBe(1)
    expect(r.stdout).toContain(message)
  })

  it('render the same chart within the limits', async () => {
    const dir = workspace(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: small\ndata:\n  x: {{ repeat 10 "x" | quote }}\n'
    )
    const r = await diffRun(dir, {})
    expect(`${r.status}\n${r.stdout}`).toMatch(/^0\n/)
    expect(r.outputs.added).toBe('1')
  })
})
