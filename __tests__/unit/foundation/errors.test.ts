// How errors read (src/errors.ts, docs/reliability.md#error-messages): many problems are
// listed up to a cap with a count of the rest, and the action puts a configuration's problems
// (the cause, with file and line) before the headline that only names its path.
import { describe, expect, it } from '@jest/globals'
import {
  causeFirst,
  ClusterError,
  ConfigError,
  formatProblems,
  type ConfigProblem
} from '../../../src/errors.js'

const problem = (i: number): ConfigProblem => ({
  file: 'tazuna.yaml',
  line: i + 1,
  message: `manifest "app" dependsOn references unknown manifest "n${i}"`
})

describe('formatProblems', () => {
  it('lists every problem when there are at most 100', () => {
    const lines = formatProblems(Array.from({ length: 100 }, (_, i) => problem(i)))
    expect(lines).toHaveLength(100)
    expect(lines[99]).toBe(
      'tazuna.yaml:100: manifest "app" dependsOn references unknown manifest "n99"'
    )
  })

  it('lists the first 100 of more and counts the rest', () => {
    const lines = formatProblems(Array.from({ length: 10_000 }, (_, i) => problem(i)))
    expect(lines).toHaveLength(101)
    expect(lines[100]).toBe('... and 9900 more problems')
  })

  it('is what a ConfigError says, which still holds every problem', () => {
    const error = new ConfigError(
      Array.from({ length: 150 }, (_, i) => problem(i)),
      'headline'
    )
    expect(error.message.split('\n')).toHaveLength(102)
    expect(error.problems).toHaveLength(150)
  })
})

describe('causeFirst', () => {
  it('puts the problems of a ConfigError before its headline', () => {
    const error = new ConfigError(
      [problem(0), { file: 'inc.yaml', message: 'failed to open include file: inc.yaml' }],
      'check failed for tazuna.yaml at /repo/tazuna.yaml'
    )
    expect(error.message.split('\n')[0]).toBe('check failed for tazuna.yaml at /repo/tazuna.yaml')
    expect(causeFirst(error)).toBe(
      [
        'tazuna.yaml:1: manifest "app" dependsOn references unknown manifest "n0"',
        'inc.yaml: failed to open include file: inc.yaml',
        '(check failed for tazuna.yaml at /repo/tazuna.yaml)'
      ].join('\n')
    )
  })

  it('keeps other messages as they are', () => {
    expect(causeFirst(new ConfigError([problem(0)]))).toBe(
      'tazuna.yaml:1: manifest "app" dependsOn references unknown manifest "n0"'
    )
    expect(causeFirst(new ClusterError('apply v1 ConfigMap a/b: HTTP 422 Invalid'))).toBe(
      'apply v1 ConfigMap a/b: HTTP 422 Invalid'
    )
    expect(causeFirst('plain')).toBe('plain')
  })
})
