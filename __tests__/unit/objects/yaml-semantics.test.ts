import { describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { objectsFromYaml } from '../../../src/objects/objects.js'
import { canonicalJson, computeContentHash, hashInput } from '../../../src/state/hash.js'
import { formatStateKey, stateKeyOf } from '../../../src/state/key.js'

// Expected values come from the Go oracle in __tests__/oracle/hash (see the fixture README).
const dir = join(import.meta.dirname, '../../fixtures/yaml-semantics')

interface OracleCase {
  name: string
  file: string
  manifest: string
  defaultNamespace: string
  objects: { key: string; hash: string; canonical: string }[]
  error?: string
}

const cases = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as OracleCase[]

// Inputs Go accepts but the `yaml` package rejects. They fail closed (an error, never a
// different hash); each is listed with the reason.
const failsClosed: Record<string, string> = {
  'quoted-continuation.yaml':
    'go-yaml accepts a quoted scalar continued at the indentation of its key; `yaml` requires more',
  'raw-line-breaks-newline.yaml':
    'a raw U+2028 next to a newline folds differently in go-yaml (kept both) and `yaml` (a space)'
}
const accepted = cases.filter((c) => c.error === undefined && failsClosed[c.file] === undefined)
const rejected = cases.filter((c) => c.error !== undefined)
const isMetadataError = (c: OracleCase): boolean => c.error?.startsWith('metadata must') === true

function entriesOf(c: OracleCase): OracleCase['objects'] {
  const text = readFileSync(join(dir, c.file), 'utf8')
  return objectsFromYaml(text, { file: c.file, defaultNamespace: c.defaultNamespace }).map((o) => ({
    key: formatStateKey(stateKeyOf(c.manifest, o)),
    hash: computeContentHash(o),
    canonical: canonicalJson(hashInput(o))
  }))
}

describe('objectsFromYaml + computeContentHash agree with Go', () => {
  it.each(accepted.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(entriesOf(c)).toEqual(c.objects)
  })

  it.each(rejected.filter(isMetadataError).map((c) => [c.name, c] as const))(
    '%s, with the Go message',
    (_name, c) => {
      expect(() => entriesOf(c)).toThrow(c.error)
    }
  )

  it.each(rejected.filter((c) => !isMetadataError(c)).map((c) => [c.name, c] as const))(
    '%s',
    (_name, c) => {
      expect(() => entriesOf(c)).toThrow()
    }
  )

  it.each(Object.entries(failsClosed))('rejects %s where Go accepts it: %s', (file) => {
    const c = cases.find((k) => k.file === file)!
    expect(c.error).toBeUndefined()
    expect(() => entriesOf(c)).toThrow()
  })
})
