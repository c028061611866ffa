// tazuna.hint.yaml (docs/compatibility.md#hint-files): schema checks, validation of vars, defaults
// and zero values.
import { describe, expect, it } from '@jest/globals'
import { ConfigError } from '../../../src/errors.js'
import { applyHint, parseHint, type Hint } from '../../../src/render/helmfile/hint.js'
import { matchesHintFormat, type HintFormat } from '../../../src/render/helmfile/hint-format.js'
import { parseYamlDocument, type JsonObject } from '../../../src/go/yaml.js'

const FILE = 'charts/tazuna.hint.yaml'
const hint = (text: string): Hint => parseHint(parseYamlDocument(text, FILE), FILE)

function problems(fn: () => unknown): string[] {
  try {
    fn()
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}: ${p.message}`)
    throw error
  }
  return []
}

describe('parseHint', () => {
  it('accepts a complete hint file', () => {
    const h = hint(`apiVersion: tazuna.pepabo.com/v1
kind: TazunaHint
vars:
  host: { type: string, required: true, format: hostname, description: where }
  zones: { type: slice, default: [a, b] }
  tags: { type: map, required_with: [zones] }
  mode: { type: string, required_without: host }
rules:
  - type: oneof_required
    vars: [host, mode]
    message: set host or mode
`)
    expect([...h.vars.keys()]).toEqual(['host', 'zones', 'tags', 'mode'])
    expect(h.vars.get('host')).toMatchObject({ type: 'string', required: true, format: 'hostname' })
    expect(h.vars.get('mode')?.requiredWithout).toEqual(['host'])
    expect(h.rules).toEqual([{ vars: ['host', 'mode'], message: 'set host or mode', line: 9 }])
  })

  it.each([
    [
      'an unknown type',
      'vars:\n  a: { type: number }',
      '2: var a: type must be one of string, slice, map (got "number")'
    ],
    [
      'a missing type',
      'vars:\n  a: { required: true }',
      '2: var a: type must be one of string, slice, map (got null)'
    ],
    [
      'a default of the wrong type',
      'vars:\n  a: { type: slice, default: x }',
      '2: var a: default must be a slice, got string'
    ],
    [
      'an unknown format',
      'vars:\n  a: { type: string, format: phone }',
      '2: var a: unknown format "phone"'
    ],
    [
      'a format on a slice',
      'vars:\n  a: { type: slice, format: url }',
      '2: var a: format applies only to string vars'
    ],
    [
      'a reference to an undeclared var',
      'vars:\n  a: { type: string, required_with: [b] }',
      '2: var a: refers to undeclared var b'
    ],
    [
      'a rule of another type',
      'vars:\n  a: { type: string }\nrules:\n  - type: allof',
      '4: rules[0]: type must be oneof_required'
    ],
    [
      'a rule without vars',
      'vars:\n  a: { type: string }\nrules:\n  - type: oneof_required',
      '4: rules[0].vars must name at least one var'
    ],
    [
      'a rule naming an undeclared var',
      'rules:\n  - { type: oneof_required, vars: [x] }',
      '2: rules[0]: refers to undeclared var x'
    ]
  ])('reports %s with its line', (_name, text, problem) => {
    expect(problems(() => hint(text))).toEqual([problem])
  })

  it('reports every problem at once', () => {
    expect(problems(() => hint('vars:\n  a: { type: x }\n  b: { type: y }'))).toHaveLength(2)
  })
})

describe('applyHint', () => {
  const h = hint(`vars:
  host: { type: string, format: hostname }
  url: { type: string, format: url }
  zones: { type: slice }
  labels: { type: map, default: { team: platform } }
  replicas: { type: string, default: "2" }
  user: { type: string, required_with: [password] }
  password: { type: string }
  token: { type: string, required_without: [user] }
  region: { type: string, required: true }
rules:
  - { type: oneof_required, vars: [zones, labels], message: pick zones or labels }
`)
  const base = { region: 'jp', token: 't', zones: ['a'] }

  it('fills unprovided vars with their default or typed zero value', () => {
    expect(applyHint(h, base)).toEqual({
      ...base,
      host: '',
      url: '',
      labels: { team: 'platform' },
      replicas: '2',
      user: '',
      password: ''
    })
  })

  it('keeps provided values and vars the hint does not declare', () => {
    expect(applyHint(h, { ...base, replicas: '5', extra: 'x' })).toMatchObject({
      replicas: '5',
      extra: 'x'
    })
  })

  // Messages: Tazuna's format strings in pkg/hint/hint.go (ValidateVarsAgainstHint,
  // MergeVarsWithHint, validateFormat), each after our file:line.
  it.each<[string, JsonObject, string]>([
    [
      'a missing required var',
      { token: 't', zones: ['a'] },
      '10: hint var "region" is required but not provided'
    ],
    [
      'a string given as a list',
      { ...base, host: ['x'] },
      '2: hint var "host" expects type string, but got slice or map value'
    ],
    [
      'a map given as a string',
      { ...base, labels: 'x' },
      '5: hint var "labels" expects type map, but got non-map static value'
    ],
    [
      'required_with triggered',
      { ...base, password: 'p' },
      '7: hint var "user" is required because "password" is provided (required_with)'
    ],
    [
      'required_without triggered',
      { region: 'jp', zones: ['a'] },
      '9: hint var "token" is required because none of [user] are provided (required_without)'
    ],
    [
      'an invalid format',
      { ...base, host: 'not a host' },
      '2: hint var "host" value "not a host" does not match format "hostname": invalid hostname'
    ],
    [
      'a failed oneof_required rule',
      { region: 'jp', token: 't' },
      '12: rule[0] (oneof_required): pick zones or labels'
    ],
    [
      'a URL path without a scheme',
      { ...base, url: '/only/a/path' },
      '3: hint var "url" value "/only/a/path" does not match format "url": invalid URL: missing scheme'
    ]
  ])('rejects %s', (_name, vars, problem) => {
    expect(problems(() => applyHint(h, vars))).toEqual([problem])
  })

  it('skips format checks on empty strings', () => {
    expect(() => applyHint(h, { ...base, host: '', url: '' })).not.toThrow()
  })

  it('evaluates conditional requirements on provided vars only, not on defaults', () => {
    const conditional = hint(`vars:
  a: { type: string, default: x }
  b: { type: string, required_with: [a] }
`)
    expect(applyHint(conditional, {})).toEqual({ a: 'x', b: '' })
  })

  it('names the hint file in the error', () => {
    expect(() => applyHint(h, {})).toThrow(`helmfile vars do not match ${FILE}`)
  })
})

describe('matchesHintFormat', () => {
  it.each<[HintFormat, string, boolean]>([
    ['hostname', 'db.example.com', true],
    ['hostname', 'ap-northeast-1', true],
    ['hostname', '-bad.example.com', false],
    ['hostname', 'under_score.example.com', false],
    ['url', 'https://example.com/path?q=1', true],
    ['url', 'example.com', false],
    ['email', 'ops@example.com', true],
    ['email', 'ops@', false],
    ['ip', '10.0.0.1', true],
    ['ip', '2001:db8::1', true],
    ['ip', '10.0.0.256', false],
    ['cidr', '10.0.0.0/8', true],
    ['cidr', '2001:db8::/32', true],
    ['cidr', '10.0.0.0/33', false],
    ['cidr', '10.0.0.0', false],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', true],
    ['uuid', '123e4567e89b12d3a456426614174000', false],
    ['semver', '1.2.3', true],
    ['semver', 'v1.2.3-rc.1+build.5', true],
    ['semver', '1.2', false],
    ['datetime', '2026-11-22T10:00:00Z', true],
    ['datetime', '2026-11-22T10:00:00.5+09:00', true],
    ['datetime', '2026-11-22 10:00:00', false],
    ['datetime', '2026-13-01T00:00:00Z', false]
  ])('%s %j → %s', (format, value, ok) => {
    expect(matchesHintFormat(format, value)).toBe(ok)
  })
})
