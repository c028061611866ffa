// 1Password values (through the stand-in `op` on PATH) must reach the secret sink and appear
// nowhere but in the Secret manifests: not in errors, not in tool output quoted by errors, not
// in other objects or the state entries.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import {
  buildManifest,
  helmfileRequests,
  renderManifestText
} from '../../../src/render/manifest.js'
import type { BuildManifestSpec } from '../../../src/render/context.js'
import { fixturesDir, loadFixture } from './harness.js'

const fixture = path.join(fixturesDir, 'build-genesissecret-op')
const items = path.join(fixture, 'op-items')
const itemValues = (file: string): string[] =>
  (
    JSON.parse(readFileSync(path.join(items, file), 'utf8')) as { fields: { value?: string }[] }
  ).fields
    .map((f) => f.value ?? '')
    .filter((v) => v !== '')
const dbValues = itemValues('Production Vault/database.json')
const apiValues = itemValues('shared/api.json')
const password = 'Zq8#rT!m2$vLx9&pW'

const originalPath = process.env.PATH
beforeAll(() => {
  process.env.PATH = `${path.join(fixture, 'bin')}:${originalPath}`
})
afterAll(() => {
  process.env.PATH = originalPath
})

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the build to fail')
}

function expectNoSecrets(text: string, values: readonly string[]): void {
  for (const value of values) expect(text).not.toContain(value)
}

describe('genesissecret through the op CLI', () => {
  it('registers every value it puts into the Secret', async () => {
    const f = loadFixture('build-genesissecret-op')
    await buildManifest(f.case.manifest, f.ctx)
    expect([...new Set(f.registered)].sort()).toEqual(
      ['5432', 'orders_rw', password, 'db.internal.example.com', dbValues[3]!, apiValues[0]!].sort()
    )
  })

  it('keeps the values inside the Secret manifest and out of the state entries', async () => {
    const f = loadFixture('build-genesissecret-op')
    const text = await renderManifestText(f.case.manifest, f.ctx)
    const built = await buildManifest(f.case.manifest, f.ctx)
    const stringData = text.slice(text.indexOf('stringData:'), text.indexOf('\ntype:'))
    expect(stringData).toContain(`DB_PASSWORD: ${password}`)
    expectNoSecrets(text.replace(stringData, ''), [...dbValues, apiValues[0]!])
    expectNoSecrets(JSON.stringify([...built.entries]), [...dbValues, ...apiValues])
  })

  it('reports a failing op with command, exit code and stderr, without values', async () => {
    const f = loadFixture('build-genesissecret-op')
    const manifest: BuildManifestSpec = { ...f.case.manifest, path: 'missing-item.yaml' }
    const error = await failure(buildManifest(manifest, f.ctx))
    expect(error.message).toMatch(
      /^manifest orders-secrets: command failed \(exit code 1\): op --format json item get --vault shared missing\n\[ERROR\] .* "missing" isn't an item in the "shared" vault/
    )
    expectNoSecrets(`${error.message}\n${error.stack ?? ''}`, [...dbValues, ...apiValues])
  })

  it('names the missing item key, not its values', async () => {
    const f = loadFixture('build-genesissecret-op')
    const error = await failure(
      buildManifest({ ...f.case.manifest, path: 'missing-key.yaml' }, f.ctx)
    )
    expect(error.message).toBe('manifest orders-secrets: key nope not found in fetched data')
  })
})

describe('helmfile var from op', () => {
  const manifest = (chart: string): BuildManifestSpec => ({
    name: 'orders',
    type: 'helmfile',
    path: 'helmfile/helmfile.yaml',
    helmfile: {
      vars: {
        chart: { from: 'static', static: chart },
        dbPassword: {
          from: 'op',
          op: { key: 'label', vault: 'Production Vault', item: 'database', field: 'password' }
        }
      }
    }
  })

  it('renders the value into the Secret only, and registers it', async () => {
    const f = loadFixture('build-genesissecret-op', { configDir: fixture })
    const built = await buildManifest(manifest('./chart'), f.ctx)
    expect(f.registered).toEqual([password])
    const [secret, configMap] = built.objects
    expect(secret).toMatchObject({ kind: 'Secret', stringData: { password } })
    expectNoSecrets(JSON.stringify(configMap), [password])
    expect(configMap).toMatchObject({ data: { passwordLength: String(password.length) } })
  })

  it('redacts the value from a Helm failure that quotes it', async () => {
    const f = loadFixture('build-genesissecret-op', { configDir: fixture })
    const error = await failure(buildManifest(manifest('./failing-chart'), f.ctx))
    expect(error.message).toMatch(
      /^manifest orders: release orders: execution error at \(failing\/templates\/fail\.yaml:1:4\): refusing password \*\*\*$/
    )
    expect(error.message).toContain('refusing password ***')
    expectNoSecrets(`${error.message}\n${error.stack ?? ''}`, [password])
  })

  // A render-record check resolves the requests first; a render after it takes them over.
  const noCommands = {
    run: () => Promise.reject(new Error('a command ran: the vars were resolved again'))
  }

  it('renders the requests a record check resolved without resolving them again', async () => {
    const f = loadFixture('build-genesissecret-op', { configDir: fixture })
    const prepared = await helmfileRequests(manifest('./chart'), f.ctx)
    expect(prepared.secrets).toEqual([password])
    expect(f.registered).toEqual([password])
    const fresh = await buildManifest(manifest('./chart'), f.ctx)
    const built = await buildManifest(manifest('./chart'), {
      ...f.ctx,
      runner: noCommands,
      preparedHelmfile: () => prepared
    })
    expect(built.objects).toEqual(fresh.objects)
    expect([...built.entries]).toEqual([...fresh.entries])
  })

  it('redacts what the check met from a Helm failure of the render after it', async () => {
    const f = loadFixture('build-genesissecret-op', { configDir: fixture })
    const prepared = await helmfileRequests(manifest('./failing-chart'), f.ctx)
    const error = await failure(
      buildManifest(manifest('./failing-chart'), {
        ...f.ctx,
        runner: noCommands,
        registerSecret: () => undefined,
        preparedHelmfile: () => prepared
      })
    )
    expect(error.message).toMatch(
      /^manifest orders: release orders: execution error at \(failing\/templates\/fail\.yaml:1:4\): refusing password \*\*\*$/
    )
    expectNoSecrets(`${error.message}\n${error.stack ?? ''}`, [password])
  })
})
