// The envfile provider's dotenv rules (docs/compatibility.md#genesissecret), one row per rule.
import { describe, expect, it } from '@jest/globals'
import { goTrimSpace, parseDotenv } from '../../../src/render/genesissecret/dotenv.js'

describe('parseDotenv', () => {
  it.each([
    ['a simple pair', 'KEY=value', [['KEY', 'value']]],
    ['blank lines and comments', '\n# comment\n  # indented comment\nA=1\n\n', [['A', '1']]],
    ['spaces around key and value', '  KEY  =  spaced value  ', [['KEY', 'spaced value']]],
    ['the first = splits', 'URL=a=b=c', [['URL', 'a=b=c']]],
    ['double quotes stripped once', 'Q=""quoted""', [['Q', '"quoted"']]],
    ['single quotes stripped', "Q='single'", [['Q', 'single']]],
    ['quoted spaces kept', 'Q="  padded  "', [['Q', '  padded  ']]],
    ['mismatched quotes kept', 'Q="half\'', [['Q', '"half\'']]],
    ['a lone quote kept', 'Q="', [['Q', '"']]],
    ['no escapes', 'Q="a\\nb"', [['Q', 'a\\nb']]],
    ['no inline comments', 'Q=value # not a comment', [['Q', 'value # not a comment']]],
    ['no export prefix handling', 'export K=v', [['export K', 'v']]],
    ['lines without = skipped', 'NOEQUALS\nK=v', [['K', 'v']]],
    ['empty value', 'EMPTY=', [['EMPTY', '']]],
    ['empty key kept', '=value', [['', 'value']]],
    [
      'CRLF line endings',
      'A=1\r\nB=2\r\n',
      [
        ['A', '1'],
        ['B', '2']
      ]
    ],
    ['a repeated key keeps the last value', 'K=first\nK=second', [['K', 'second']]]
  ])('%s', (_name, text, expected) => {
    expect([...parseDotenv(text)]).toEqual(expected)
  })
})

describe('goTrimSpace', () => {
  it.each([
    ['\t x \n', 'x'],
    ['\u0085x\u0085', 'x'],
    ['\ufeffx', '\ufeffx'],
    ['\u3000x\u00a0', 'x']
  ])('trims %j like Go strings.TrimSpace', (input, output) => {
    expect(goTrimSpace(input)).toBe(output)
  })
})
