// `tazuna-action build` prints what `tazuna build` prints (docs/compatibility.md#build-output),
// from the oracle's per-fixture outputs joined the way upstream joins them.
import { describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { adminKubeconfig, adminSession } from '../../support/cluster.js'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { fixturesDir, testTools } from './harness.js'

const tazunaYaml = path.join(fixturesDir, 'build-cli', 'tazuna.yaml')
const capsYaml = path.join(fixturesDir, 'build-cli', 'caps-discovered.yaml')
const buildText = (fixture: string): string =>
  readFileSync(path.join(fixturesDir, fixture, 'expected-build.yaml'), 'utf8').replace(/\n$/, '')

function cli(...args: string[]): Promise<CliResult> {
  const tools = testTools()
  return runCliInProcess(args, {
    ...process.env,
    HELM_BIN: tools.helm,
    KUSTOMIZE_BIN: tools.kustomize
  })
}

describe('tazuna-action build', () => {
  it('prints every non-empty Build output in declaration order, joined like tazuna build', async () => {
    const result = await cli('build', '-f', tazunaYaml)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const expected = [
      buildText('build-kustomize-overlays'),
      buildText('build-genesissecret-envfile'),
      buildText('build-helmfile-kubeversion')
    ]
    expect(result.stdout).toBe(`${expected.join('\n---\n')}\n`)
  })

  it('honours --tags (OR) and logs the skipped manifests on stderr', async () => {
    const result = await cli('build', '-f', tazunaYaml, '-t', 'helm,secrets')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      `${[buildText('build-genesissecret-envfile'), buildText('build-helmfile-kubeversion')].join('\n---\n')}\n`
    )
    expect(result.stderr).toBe(
      'level=INFO msg="skip manifest due to tags filter (manifest app-staging)"\n'
    )
  })

  it('fails with exit code 1 and names the manifest when a build fails', async () => {
    const result = await cli(
      'build',
      '-f',
      path.join(fixturesDir, 'build-cli', 'broken-tazuna.yaml')
    )
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      'error: manifest "broken": failed to build: manifest broken: path ' +
        `${path.join(fixturesDir, 'build-cli', 'no-such-dir')} does not exist\n`
    )
  })

  it('names the manifest first, and its path as tazuna.yaml gives it, when a render exhausts max-render-memory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-build-memory-'))
    try {
      const web = path.join(dir, 'manifests', 'web')
      mkdirSync(web, { recursive: true })
      // A 40 MB generated ConfigMap: far more than 64 MiB of render program (as in native.test.ts).
      writeFileSync(path.join(web, 'big.txt'), Buffer.alloc(40 * 1024 ** 2, 'x'))
      writeFileSync(
        path.join(web, 'kustomization.yaml'),
        'configMapGenerator:\n  - name: big\n    files:\n      - big.txt\n'
      )
      const file = path.join(dir, 'tazuna.yaml')
      writeFileSync(
        file,
        'spec:\n  manifests:\n    - name: web\n      type: kustomize\n      path: ./manifests/web\n'
      )
      const result = await cli('build', '--max-render-memory', '64Mi', '-f', file)
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'error: manifest "web": failed to build: kustomize build manifests/web: the render ' +
          'needed more memory than max-render-memory (64.0 MiB) and was stopped\n'
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('renders Helm with the capabilities discovered from the cluster, as tazuna build', async () => {
    const session = adminSession()
    const expected = await session.discovery.capabilities().finally(() => session.close())
    const result = await runCliInProcess(['build', '-f', capsYaml], {
      ...process.env,
      KUBECONFIG: adminKubeconfig()
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`kubeVersion: ${JSON.stringify(expected.kubeVersion)}`)
    expect(result.stdout).toContain('hasAppsV1: "true"')
  })

  it("renders Helm with Helm's defaults and a warning when there is no kubeconfig", async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'tazuna-home-'))
    try {
      const { KUBECONFIG: _k, KUBERNETES_SERVICE_HOST: _s, ...inherited } = process.env
      const env = {
        ...inherited,
        HOME: home,
        // The WebAssembly builds stay where they are (they are found under ~ otherwise).
        TAZUNA_ACTION_CACHE:
          process.env.TAZUNA_ACTION_CACHE ?? path.join(os.homedir(), '.cache', 'tazuna-action')
      }
      const result = await runCliInProcess(['build', '-f', capsYaml], env)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('kubeVersion: "v1.20.0"')
      expect(result.stderr).toMatch(
        /^level=WARN msg="no kubeconfig found: .*Helm renders with its default capabilities \(Kubernetes v1\.20\.0\), where Tazuna's build would fail"\n$/
      )
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
