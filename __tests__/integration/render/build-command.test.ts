// `tazuna-action build` prints what `tazuna build` prints (docs/compatibility.md#build-output),
// from the oracle's per-fixture outputs joined the way upstream joins them.
import { describe, expect, it } from '@jest/globals'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { adminKubeconfig, adminSession } from '../../support/cluster.js'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { fixturesDir, testTools } from './harness.js'

const tazunaYaml = path.join(fixturesDir, 'build-cli', 'tazuna.yaml')
const capsYaml = path.join(fixturesDir, 'build-cli', 'caps-discovered.yaml')
const buildText = (fixture: string): string =>
  readFileSync(path.join(fixturesDir, fixture, 'expected-build.yaml'), 'utf8').replace(/\n$/, '')

// The helmfile fixture's chart templates no namespace and its manifest gives none: build warns
// that Tazuna's apply would refuse it (docs/compatibility.md#objects-without-a-namespace), a
// line Tazuna's build does not print.
const NAMESPACE_WARNING = /^level=WARN msg=".*is namespaced but has no namespace.*"\n/gm
const withoutNamespaceWarnings = (stderr: string): string => stderr.replace(NAMESPACE_WARNING, '')

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
    expect(result.stderr).toContain('v1 ConfigMap capabilities is namespaced but has no namespace')
    expect(withoutNamespaceWarnings(result.stderr)).toBe('')
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
    expect(withoutNamespaceWarnings(result.stderr)).toBe(
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

  it('renders Helm with the capabilities discovered from the cluster, as tazuna build', async () => {
    const session = await adminSession()
    const expected = await session.discovery.capabilities().finally(() => session.close())
    const result = await runCliInProcess(['build', '-f', capsYaml], {
      ...process.env,
      KUBECONFIG: adminKubeconfig()
    })
    expect(withoutNamespaceWarnings(result.stderr)).toBe('')
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
      expect(withoutNamespaceWarnings(result.stderr)).toMatch(
        /^level=WARN msg="no kubeconfig found: .*Helm renders with its default capabilities \(Kubernetes v1\.20\.0\), where Tazuna's build would fail"\n$/
      )
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
