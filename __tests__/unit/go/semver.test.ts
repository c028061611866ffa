// Masterminds/semver v3.5.0 as Helm uses it, against the Go oracle's committed answers
// (__tests__/oracle/semver/README.md).
import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { parseConstraint, satisfies } from '../../../src/go/semver-constraint.js'
import {
  compareVersions,
  formatVersion,
  parseStrictVersion,
  parseVersion,
  type SemVersion
} from '../../../src/go/semver.js'

interface Expected {
  versions: { input: string; loose?: string; looseError?: string; strict: boolean }[]
  constraints: { input: string; error?: string; matches?: string[] }[]
  descending: string[]
}

const expected = JSON.parse(
  readFileSync(new URL('../../oracle/semver/expected.json', import.meta.url), 'utf8')
) as Expected

const accepted: [string, SemVersion][] = []
for (const v of expected.versions) {
  if (v.loose !== undefined) accepted.push([v.input, parseVersion(v.input)])
}

/** The value or the error message, so one assertion covers both. */
function outcome<T>(f: () => T): { value: T } | { error: string } {
  try {
    return { value: f() }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

describe('parseVersion (semver.NewVersion)', () => {
  it.each(expected.versions.map((v) => [v.input, v] as const))(
    'parses %j as Go does',
    (input, v) => {
      expect(outcome(() => formatVersion(parseVersion(input)))).toEqual(
        v.loose !== undefined ? { value: v.loose } : { error: v.looseError }
      )
    }
  )
})

describe('parseStrictVersion (semver.StrictNewVersion)', () => {
  it.each(expected.versions.map((v) => [v.input, v.strict] as const))(
    'accepts %j: %s',
    (input, strict) => {
      let ok = true
      try {
        parseStrictVersion(input)
      } catch {
        ok = false
      }
      expect(ok).toBe(strict)
    }
  )
})

describe('compareVersions', () => {
  it('sorts every accepted version in the order Go does (descending, stable)', () => {
    const sorted = [...accepted].sort((a, b) => compareVersions(b[1], a[1])).map(([i]) => i)
    expect(sorted).toEqual(expected.descending)
  })
})

describe('parseConstraint and satisfies (NewConstraint, Check)', () => {
  it.each(expected.constraints.map((c) => [c.input, c] as const))(
    'answers %j as Go does',
    (input, c) => {
      const matches = outcome(() => {
        const constraint = parseConstraint(input)
        return accepted.filter(([, v]) => satisfies(constraint, v)).map(([i]) => i)
      })
      expect(matches).toEqual(
        c.error !== undefined ? { error: c.error } : { value: c.matches ?? [] }
      )
    }
  )
})
