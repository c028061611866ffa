// OCI references and auth challenges. Expected values restate Helm v3.21.4's
// pkg/registry/reference_test.go (the `+` to `_` tag rule, digest split at the last `@`) and
// oras-go v2.6.1's registry/remote/auth challenge_test.go and scope_test.go.
import { describe, expect, it } from '@jest/globals'
import { cleanScopes, parseChallenge } from '../../../src/oci/auth-challenge.js'
import { formatOciReference, parseOciReference } from '../../../src/oci/reference.js'

const DIGEST = `sha256:${'a'.repeat(64)}`

describe('parseOciReference', () => {
  it.each([
    [
      'oci://127.0.0.1:5000/charts/demo',
      { registry: '127.0.0.1:5000', repository: 'charts/demo', tag: '', digest: '' }
    ],
    [
      'registry.example/demo:1.2.3',
      { registry: 'registry.example', repository: 'demo', tag: '1.2.3', digest: '' }
    ],
    [
      'oci://r.example/a/b:1.2.3+build.1',
      { registry: 'r.example', repository: 'a/b', tag: '1.2.3_build.1', digest: '' }
    ],
    [
      `oci://r.example/demo@${DIGEST}`,
      { registry: 'r.example', repository: 'demo', tag: '', digest: DIGEST }
    ],
    [
      `oci://r.example/demo:1.0.0@${DIGEST}`,
      { registry: 'r.example', repository: 'demo', tag: '1.0.0', digest: DIGEST }
    ],
    [
      'localhost:5000/my_chart.x/sub-chart',
      { registry: 'localhost:5000', repository: 'my_chart.x/sub-chart', tag: '', digest: '' }
    ]
  ])('reads %s', (text, want) => {
    expect(parseOciReference(text)).toEqual(want)
  })

  it.each([
    ['oci://demo', 'missing registry or repository'],
    ['oci://r.example/Demo', 'invalid repository "Demo"'],
    ['oci://r.example/demo:-bad', 'invalid tag "-bad"'],
    ['oci://r.example/demo@sha256:abc', 'invalid digest "sha256:abc"'],
    ['oci://r_x/demo', 'invalid registry "r_x"']
  ])('rejects %s: %s', (text, message) => {
    expect(() => parseOciReference(text)).toThrow(message)
  })

  it('formats back without the scheme', () => {
    expect(formatOciReference(parseOciReference(`oci://r.example/demo:1.0.0@${DIGEST}`))).toBe(
      `r.example/demo:1.0.0@${DIGEST}`
    )
  })
})

describe('parseChallenge', () => {
  it.each([
    ['Basic realm="registry"', { scheme: 'basic', params: {} }],
    [
      'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"',
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.example/token',
          service: 'registry.example',
          scope: 'repository:a/b:pull'
        }
      }
    ],
    [
      'bearer realm=abc, service=reg',
      { scheme: 'bearer', params: { realm: 'abc', service: 'reg' } }
    ],
    // an unquoted value ends at the first non-token character, as in oras-go
    ['Bearer realm=https://auth.example/token', { scheme: 'bearer', params: { realm: 'https' } }],
    ['Bearer realm="a\\"b", broken', { scheme: 'bearer', params: { realm: 'a"b' } }],
    ['Negotiate xyz', { scheme: 'unknown', params: {} }],
    ['', { scheme: 'unknown', params: {} }]
  ])('reads %j', (header, want) => {
    expect(parseChallenge(header)).toEqual(want)
  })
})

describe('cleanScopes', () => {
  it.each([
    [[], []],
    [['repository:a:pull'], ['repository:a:pull']],
    [['repository:a:push', 'repository:a:pull'], ['repository:a:pull,push']],
    [
      ['repository:b:pull', 'repository:a:pull', 'repository:a:pull'],
      ['repository:a:pull', 'repository:b:pull']
    ],
    [['repository:a:pull', 'repository:a:*'], ['repository:a:*']],
    [['repository:a:', 'registry:catalog:*'], ['registry:catalog:*']]
  ])('cleans %j', (scopes, want) => {
    expect(cleanScopes(scopes)).toEqual(want)
  })
})
