// Registry credentials from a Docker config file, against oras-go v2.6.0's answers for the same
// files (__tests__/oracle/dockercreds/README.md), plus the credential-helper notice.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { DockerConfigError, dockerCredentials } from '../../../src/render/oras/docker-config.js'

interface Case {
  name: string
  config: unknown
  registry: string
}
interface Answer {
  name: string
  username: string
  password: string
  error?: boolean
}

const read = <T>(file: string): T =>
  JSON.parse(
    readFileSync(new URL(`../../oracle/dockercreds/${file}`, import.meta.url), 'utf8')
  ) as T
const cases = read<Case[]>('cases.json')
const expected = new Map(read<Answer[]>('expected.json').map((a) => [a.name, a]))

function ours(c: Case): Omit<Answer, 'name'> {
  try {
    const found = dockerCredentials(JSON.stringify(c.config), 'config.json', c.registry)
    return found.credentials ?? { username: '', password: '' }
  } catch (error) {
    if (!(error instanceof DockerConfigError)) throw error
    return { username: '', password: '', error: true }
  }
}

describe('dockerCredentials', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: as oras-go', (name, c) => {
    const { name: _, ...answer } = expected.get(name)!
    expect(ours(c)).toEqual(answer)
  })

  it('names the credential helper that oras-go would run instead', () => {
    const text = JSON.stringify({
      credsStore: 'desktop',
      credHelpers: { 'ghcr.io': 'gh' },
      auths: { 'ghcr.io': { username: 'u', password: 'p' } }
    })
    expect(dockerCredentials(text, 'c.json', 'ghcr.io')).toEqual({
      credentials: { username: 'u', password: 'p' },
      helper: 'gh'
    })
    expect(dockerCredentials(text, 'c.json', 'quay.io')).toEqual({ helper: 'desktop' })
  })

  it('refuses a file that is not JSON, naming it', () => {
    expect(() => dockerCredentials('{', '/home/u/.docker/config.json', 'r')).toThrow(
      /^\/home\/u\/\.docker\/config\.json: not valid JSON/
    )
  })
})
