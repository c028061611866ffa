// `init`. Expected bytes: __tests__/fixtures/cli-init/tazuna.yaml (pepabo/tazuna cmd/init.go's
// renderInitTemplate, see its README); the version table is upstream's
// TestInitialMinimumSupportedVersion (cmd/init_test.go).
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import packageJson from '../../../package.json' with { type: 'json' }
import { initialMinimumVersion, initTemplate } from '../../../src/cli/init-command.js'
import { runCliInProcess as cli } from '../../support/cli.js'

const fixture = path.join(import.meta.dirname, '..', '..', 'fixtures', 'cli-init', 'tazuna.yaml')

describe('initialMinimumVersion', () => {
  it.each([
    ['v1.4.0', '1.4.0'],
    ['1.4.0', '1.4.0'],
    ['2.0.0', '2.0.0'],
    ['dev', '0.0.0'],
    ['', '0.0.0'],
    ['unknown', '0.0.0'],
    // Masterminds/semver's String() fills in minor and patch and keeps pre-release and metadata.
    ['v1.2', '1.2.0'],
    ['1.2.3-rc.1+build.5', '1.2.3-rc.1+build.5']
  ])('pins %j as %j', (running, pinned) => {
    expect(initialMinimumVersion(running)).toBe(pinned)
  })
})

it("renders Tazuna's skeleton byte for byte", () => {
  expect(initTemplate('1.4.0')).toBe(readFileSync(fixture, 'utf8'))
})

describe('tazuna-action init', () => {
  let dir: string
  let file: string
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tazuna-init-'))
    file = path.join(dir, 'tazuna.yaml')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('writes the skeleton pinning this version and says where', async () => {
    expect(await cli(['init', '-f', file])).toEqual({
      code: 0,
      stdout: `created: ${file}\n`,
      stderr: ''
    })
    expect(readFileSync(file, 'utf8')).toBe(initTemplate(packageJson.version))
  })

  it('writes a tazuna.yaml that `check` accepts', async () => {
    await cli(['init', '-f', file])
    expect(await cli(['check', '-f', file])).toMatchObject({ code: 0 })
  })

  it('refuses to overwrite an existing file without --force, leaving it alone', async () => {
    writeFileSync(file, 'sentinel')
    expect(await cli(['init', '-f', file])).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${file} already exists; pass --force to overwrite\n`
    })
    expect(readFileSync(file, 'utf8')).toBe('sentinel')
  })

  it('overwrites with --force', async () => {
    writeFileSync(file, 'sentinel')
    expect((await cli(['init', '-f', file, '--force'])).code).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe(initTemplate(packageJson.version))
  })
})
