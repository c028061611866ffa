// The kube-context guard (docs/compatibility.md#context-guard): full-match Go regexps, or/and
// modes, environment override.
import { describe, expect, it } from '@jest/globals'
import { contextGuardError, resolveContextGuard } from '../../../src/apply/context-guard.js'

describe('contextGuardError', () => {
  it.each<[string, string[], string, string, string | undefined]>([
    ['no patterns pass', [], 'or', 'anything', undefined],
    ['or: one full match passes', ['kind-.*', 'prod'], 'or', 'kind-tazuna', undefined],
    [
      'or: a partial match is no match',
      ['kind'],
      'or',
      'kind-tazuna',
      'current context "kind-tazuna" does not match any of context_matches patterns ["kind"]'
    ],
    [
      'or: lists every pattern',
      ['a', 'b'],
      'or',
      'c',
      'current context "c" does not match any of context_matches patterns ["a", "b"]'
    ],
    ['and: all must match', ['.*-prod', 'gke_.*'], 'and', 'gke_x-prod', undefined],
    [
      'and: lists the failing ones',
      ['.*-prod', 'gke_.*'],
      'and',
      'eks-prod',
      'current context "eks-prod" does not match context_matches patterns ["gke_.*"]'
    ],
    [
      'alternation is grouped before anchoring',
      ['a|b'],
      'or',
      'ab',
      'current context "ab" does not match any of context_matches patterns ["a|b"]'
    ]
  ])('%s', (_name, patterns, mode, current, expected) => {
    expect(contextGuardError({ patterns, mode }, current)).toBe(expected)
  })
})

describe('resolveContextGuard', () => {
  const spec = {
    context_matches: ['root'],
    context_match_mode: 'and',
    environments: {
      prod: { context_matches: ['p'], context_match_mode: '' },
      dev: { context_matches: [], context_match_mode: 'or' }
    }
  }
  it.each<[string, string[], string]>([
    ['', ['root'], 'and'],
    ['prod', ['p'], 'and'],
    ['dev', [], 'or']
  ])('environment %p → %p %s', (environment, patterns, mode) => {
    expect(resolveContextGuard(spec, environment)).toEqual({ patterns, mode })
  })

  it('defaults the mode to or', () => {
    expect(
      resolveContextGuard({ context_matches: ['x'], context_match_mode: '', environments: {} }, '')
        .mode
    ).toBe('or')
  })
})
