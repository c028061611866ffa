import { beforeAll, describe, expect, it } from '@jest/globals'
import { compileGoRegexp, goRegexpMatchesFully } from '../../../src/go/regexp.js'
import { goUnicodeProperties } from '../../../src/go/regexp-unicode.js'
import { describeWithGo, goTimeout, needsGo, runOracle } from './template/go-oracle.js'

// Expected values come from Go's regexp package, run live by __tests__/oracle/template/regexp:
// for each pattern, regexp.Compile's error, or whether ^(?:pattern)$ matches each subject.

const rejected = [
  '(?<=a)b',
  '(?<!a)b',
  '(?<=a)b>',
  '(?=a)',
  '(?!a)',
  '(a)\\1',
  '(abc',
  'abc)',
  '*a',
  'a|*',
  '(*)',
  '[z-a]',
  'a**',
  'a*+',
  'x++',
  'a*?+',
  'a{2}{3}',
  'a{1001}',
  'a{2,1}',
  'x{1,1001}',
  '(a{100}){11}',
  '((a{10}){10}){11}',
  'a{99999999999}',
  '\\p{Foo}',
  '\\p',
  '\\pé',
  '\\p{Greek',
  '\\p{Old_Italic}',
  '[abc',
  '[^]',
  '[a',
  '\\Z',
  '\\C',
  '\\8',
  '\\1',
  '\\é',
  '\\x{110000}',
  '\\x{zz}',
  '\\x{12',
  '\\x{}',
  '\\xg1',
  '\\x1',
  '\\x',
  '(?>a)',
  '(?P=n)',
  '(?P>a)',
  '(?z)a',
  '(?i',
  '(?-)',
  '(?i-)a',
  '(?i-m-s)a',
  '(?P<>a)',
  '(?P<n!>a)',
  '(?<n',
  '[[:foo:]]',
  '[a-\\d]',
  '[\\b]',
  '\\',
  '(?:',
  ')',
  'a)(b'
]

const accepted = [
  'prod',
  'prod-.*',
  'kind-.*|minikube',
  '(?i)PROD',
  'arn:aws:eks:[a-z0-9-]+:[0-9]{12}:cluster/prod',
  'gke_[^_]+_[^_]+_prod',
  '^prod$',
  '\\d+',
  '\\w+',
  '\\s',
  '\\S+',
  '\\D',
  '[\\D]',
  '[\\s\\d]+',
  '[[:alpha:]]+',
  '[[:^alpha:]]+',
  '[[:space:]]',
  '[^a-c]+',
  '(?s).+',
  '.+',
  '(?m)^a$\\n?b?',
  'a\\nb',
  '\\Qa.b\\E',
  '\\Qa.b',
  '\\x41\\x{42}\\101\\0',
  '\\pL+',
  '\\p{Greek}+',
  '\\PL',
  '\\p{^Greek}',
  '\\PN',
  '[\\p{Lu}\\d]+',
  '\\p{L}',
  '\\p{letter}',
  '\\p{Any}+',
  '\\p{ascii}',
  'a{2,3}',
  'a{2,}',
  'a{,3}',
  'x{',
  'a{1000}',
  '(a{10}){100}',
  '(?P<env>prod|stg)-(?<n>\\d)',
  '(?P<n>a)(?P<n>b)',
  '(?i:a)B',
  '(?i)[k]',
  '(?i)[^k]',
  '(?i)k',
  '(?i)s',
  '(?i)[[:upper:]]',
  '(?i)[[:^upper:]]',
  '(?i)\\W',
  '(?U)a+?',
  '(?i)a(?-i)a',
  '(a(?i)b)c',
  '(?is-m:a.)',
  '^*a',
  'a(?i)*',
  '\\bfoo\\b',
  '\\Bo',
  '\\Afoo\\z',
  '(a|b)*c',
  '(?:)',
  '()',
  'é+',
  '\\.',
  '[\\]a]',
  '[]a]',
  '[a\\-z]',
  '[-a]',
  '[a-]',
  '[\\x{1F600}-\\x{1F64F}]',
  '😀',
  '\\v',
  '\\f\\a',
  '(?i)straße',
  '[^\\n]',
  '[^a]',
  '$a',
  'a^',
  '\\_',
  '\\-',
  '\\{',
  '}',
  ']',
  '[{}]',
  '[\\pZ-a]'
]

const subjects = [
  'prod',
  'PROD',
  'Prod',
  'prod-1',
  'stg-2',
  'minikube',
  'kind-ci',
  'ab',
  'AB',
  'aB',
  'Ab',
  'abc',
  'arn:aws:eks:ap-northeast-1:123456789012:cluster/prod',
  'gke_proj_zone_prod',
  'a',
  'A',
  'aa',
  'aaa',
  'a'.repeat(1000),
  'a\nb',
  'a\n',
  '\n',
  'a.b',
  'axb',
  'AB',
  'ABC',
  'd',
  'αβγ',
  'k',
  'K',
  '\u212a',
  's',
  'S',
  '\u017f',
  ' ',
  '\t',
  '\v',
  '\f\u0007',
  '\u00a0',
  '',
  'x{',
  'a{,3}',
  'foo',
  'é',
  'éé',
  '😀',
  '12',
  '_',
  '-',
  '{',
  '}',
  ']',
  'straße',
  'STRASSE',
  'ABA',
  'AbC',
  'abC',
  '.',
  'AA',
  'Aa',
  'ABB'
]

interface OracleResult {
  error?: string
  fullError?: string
  matches?: boolean[]
}

/** What the context guard does with a pattern: match each subject, or fail to compile. */
function fullMatchOutcome(pattern: string): OracleResult {
  try {
    return { matches: subjects.map((s) => goRegexpMatchesFully(pattern, s)) }
  } catch (error) {
    return { fullError: (error as Error).message }
  }
}

describeWithGo(`Go regexp translation against Go's regexp package${needsGo}`, () => {
  let rejectedByGo: OracleResult[]
  let acceptedByGo: OracleResult[]

  beforeAll(() => {
    rejectedByGo = runOracle('regexp', { patterns: rejected, subjects: [] })
    acceptedByGo = runOracle('regexp', { patterns: accepted, subjects })
  }, goTimeout)

  it.each(rejected.map((p, i) => [p, i] as const))("rejects %s with Go's message", (pattern, i) => {
    const expected = rejectedByGo[i]!.error
    expect(expected).toBeDefined()
    expect(() => compileGoRegexp(pattern)).toThrow(expected)
  })

  it.each(accepted.map((p, i) => [p, i] as const))('matches %s as Go does', (pattern, i) => {
    const expected = acceptedByGo[i]!
    expect(() => compileGoRegexp(pattern)).not.toThrow()
    expect(fullMatchOutcome(pattern)).toEqual(expected)
  })
})

describe('Go Unicode property names', () => {
  it('are all valid JavaScript Unicode properties', () => {
    for (const prop of goUnicodeProperties.values()) {
      expect(() => new RegExp(`\\p{${prop}}`, 'u')).not.toThrow()
    }
  })
})
