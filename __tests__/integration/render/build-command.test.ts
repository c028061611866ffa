// `tazuna-action build` prints what `tazuna build` prints (docs/compatibility.md#build-output),
// from the oracle's per-fixture outputs joined the way upstream joins them.
import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { fixturesDir, testTools } from './harness.js'

const tazunaYaml = path.join(fixturesDir, 'build-cli', 'tazuna.yaml')
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
      `error: manifest broken: path ${path.join(fixturesDir, 'build-cli', 'no-such-dir')} does not exist\n`
    )
  })
})
