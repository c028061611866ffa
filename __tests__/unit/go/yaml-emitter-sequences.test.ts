// sigs.k8s.io/yaml.Marshal of GenesisSecret documents (sequences in mappings, booleans, natural
// key order): expected texts printed by Go, __tests__/fixtures/genesissecret-yaml/README.md.
import { expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { marshalSecretYaml } from '../../../src/go/yaml-emitter.js'
import type { JsonObject } from '../../../src/go/yaml.js'

const read = <T>(file: string): T =>
  JSON.parse(
    readFileSync(new URL(`../../fixtures/genesissecret-yaml/${file}`, import.meta.url), 'utf8')
  ) as T
const cases = read<{ name: string; value: JsonObject }[]>('cases.json')
const expected = new Map(
  read<{ name: string; yaml: string }[]>('expected.json').map((e) => [e.name, e.yaml])
)

it.each(cases.map((c) => [c.name, c.value] as const))('writes %s as Go does', (name, value) => {
  expect(marshalSecretYaml(value)).toBe(expected.get(name))
})
