/**
 * Paths stay in the repository: tazuna.yaml fields and the files renderers discover that
 * resolve (symlinks followed) outside the repository root are refused by name, before anything
 * is read; `--allow-path` lets a team name a directory outside on purpose. Runs the command
 * line in-process with the render module (krusty and the Helm SDK).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runCliInProcess } from '../../support/cli.js'

let base: string
let repo: string
let outside: string

const configMap = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: conf\ndata:\n  k: v\n`

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'tazuna-confine-'))
  repo = path.join(base, 'repo')
  outside = path.join(base, 'outside')
  mkdirSync(path.join(repo, '.git'), { recursive: true })
  write(path.join(outside, 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
  write(path.join(outside, 'cm.yaml'), configMap('outside'))
  write(path.join(outside, 'secret.env'), 'PASSWORD=from-the-machine\n')
  write(path.join(outside, 'include.yaml'), 'spec:\n  manifests: []\n')
  write(path.join(repo, 'inside', 'kustomization.yaml'), 'resources:\n  - cm.yaml\n')
  write(path.join(repo, 'inside', 'cm.yaml'), configMap('inside'))
  symlinkSync(outside, path.join(repo, 'linked'))
})
afterAll(() => rmSync(base, { recursive: true, force: true }))

const env = (kustomize: 'native' | 'WebAssembly' = 'native') => ({
  KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
  HELM_BIN: process.env.HELM_BIN,
  // On Linux krusty runs natively and confines its own reads (docs/renderers.md#native-kustomize);
  // its WebAssembly build reads through the engine's file bridge.
  ...(kustomize === 'WebAssembly' ? { TAZUNA_RENDER_NATIVE: 'off' } : {})
})
const kustomizeBuilds = ['native', 'WebAssembly'] as const

function config(name: string, lines: string[]): string {
  return write(path.join(repo, 'deploy', `${name}.yaml`), ['spec:', ...lines, ''].join('\n'))
}

describe('paths outside the repository', () => {
  it.each([
    ['a manifest path with ..', '../../outside', 'outside', ''],
    ['a manifest path through a symlink', '../linked', 'linked', ' (it resolves to OUTSIDE)']
  ])(
    'check refuses %s, naming the field, the line and the path',
    async (_, manifestPath, shown, via) => {
      const file = config(`m-${shown}`, [
        '  manifests:',
        '    - name: m',
        '      type: kustomize',
        `      path: ${manifestPath}`
      ])
      const result = await runCliInProcess(['check', '-f', file], env())
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(
        `${file}:5: manifest "m" path: ${path.resolve(path.dirname(file), manifestPath)} ` +
          `is outside the repository ${repo}${via.replace('OUTSIDE', outside)};`
      )
    }
  )

  it('check refuses an include outside the repository without reading it', async () => {
    const file = config('include', [
      '  manifests:',
      '    - includes:',
      '        - path: ../../outside/include.yaml'
    ])
    const result = await runCliInProcess(['check', '-f', file], env())
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`include: ${path.join(outside, 'include.yaml')} is outside`)
  })

  it('check refuses a genesissecret envfile outside the repository', async () => {
    const file = config('envfile', [
      '  providers:',
      '    - name: local',
      '      type: envfile',
      '      envfile:',
      '        path: ../linked/secret.env',
      '  manifests: []'
    ])
    const result = await runCliInProcess(['check', '-f', file], env())
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/:6: provider "local" envfile\.path: .*is outside the repository/)
    expect(result.stderr).not.toContain('from-the-machine')
  })

  it('build refuses a helm values file that is a symlink out of the repository', async () => {
    write(path.join(repo, 'chart', 'Chart.yaml'), 'apiVersion: v2\nname: chart\nversion: 0.1.0\n')
    write(
      path.join(repo, 'chart', 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: {{ .Values.v | quote }}\n'
    )
    symlinkSync('/etc/hostname', path.join(repo, 'values-link.yaml'))
    write(
      path.join(repo, 'helmfile.yaml'),
      'releases:\n  - name: r\n    namespace: conf\n    chart: ./chart\n    values:\n      - values-link.yaml\n'
    )
    const file = config('helm', [
      '  manifests:',
      '    - name: h',
      '      type: helmfile',
      '      path: ../helmfile.yaml',
      '      helmfile:',
      '        kubeVersion: v1.32.0'
    ])
    expect((await runCliInProcess(['check', '-f', file], env())).code).toBe(0)
    const result = await runCliInProcess(['build', '-f', file], env())
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `${path.join(repo, 'values-link.yaml')} is outside the repository ${repo} (it resolves to /etc/hostname)`
    )
    expect(result.stdout).toBe('')
  })

  it.each(kustomizeBuilds)(
    'refuses a kustomization inside whose resources reach a directory outside (%s krusty)',
    async (build) => {
      // krusty's load restrictor allows another kustomization root anywhere on the disk; the
      // render module's file bridge (the native program's own guard) keeps it in the repository.
      write(path.join(repo, 'reaching', 'kustomization.yaml'), 'resources:\n  - ../../outside\n')
      const file = config('reaching', [
        '  manifests:',
        '    - name: reaching',
        '      type: kustomize',
        '      path: ../reaching'
      ])
      const result = await runCliInProcess(['build', '-f', file], env(build))
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(
        'error: manifest "reaching": failed to build: kustomize build ../reaching: '
      )
      expect(result.stderr).toContain(`${outside} is outside the repository ${repo}`)
    }
  )

  it.each(kustomizeBuilds)(
    'reads a directory outside when --allow-path names it, and ../ inside the repository (%s krusty)',
    async (build) => {
      const file = config('allowed', [
        '  manifests:',
        '    - name: out',
        '      type: kustomize',
        '      path: ../../outside',
        '    - name: in',
        '      type: kustomize',
        '      path: ../inside'
      ])
      const refused = await runCliInProcess(['build', '-f', file], env(build))
      expect(refused.code).toBe(1)
      const allowed = await runCliInProcess(
        ['build', '-f', file, '--allow-path', outside],
        env(build)
      )
      expect(allowed.stderr).toBe('')
      expect(allowed.code).toBe(0)
      expect(allowed.stdout).toContain('name: outside')
      expect(allowed.stdout).toContain('name: inside')
    }
  )
})
