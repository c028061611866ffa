// The API server's Warning headers as client-go reads them (src/go/warning-header.ts). The
// cases and expected values are those of k8s.io/apimachinery v0.37.2's own tests of
// ParseWarningHeader and ParseWarningHeaders (pkg/util/net/http_test.go), word for word; only
// the form of the input differs: a header value is given as Node hands it over, one character
// per byte, so a Go literal's UTF-8 text is encoded first (`bytes`) and a raw byte (`\xc5`)
// stays one character.
import { describe, expect, it } from '@jest/globals'
import { parseWarningHeader, parseWarningHeaders } from '../../../src/go/warning-header.js'

/** UTF-8 text as the bytes a header carries it in. */
const bytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1')

describe('ParseWarningHeader', () => {
  it.each([
    ['empty', ``, 'fewer than 3 segments'],
    ['bad code', `A B`, 'fewer than 3 segments'],
    ['short code', `1 - "text"`, 'not 3 digits'],
    ['bad code', `A - "text"`, 'not 3 digits'],
    [
      'invalid date quoting',
      `  299 - "text\\"\\\\\\a\\b\\c"  "Tue, 15 Nov 1994 08:12:31 GMT `,
      'unterminated date segment'
    ],
    [
      'invalid post-date',
      `  299 - "text\\"\\\\\\a\\b\\c"  "Tue, 15 Nov 1994 08:12:31 GMT" other`,
      'unexpected token after warn-date'
    ],
    ['agent control character', '  299 agent\u0000name "text"', 'invalid agent'],
    ['agent non-utf8 character', '  299 agent\xc5name "text"', 'invalid agent'],
    ['text control character', '  299 - "text\u0000"content', 'invalid text'],
    ['text non-utf8 character', '  299 - "text\xc5"content', 'invalid text']
  ])('%s: %j is refused (%s)', (_name, header, error) => {
    const parsed = parseWarningHeader(header)
    expect(parsed.result).toBeUndefined()
    expect(parsed.error).toContain(error)
  })

  const escaped = `text\\"\\\\\\a\\b\\c`
  it.each([
    ['ok', `299 - "text"`, { code: 299, agent: '-', text: 'text' }, ''],
    ['ok', `299 - "${escaped}"`, { code: 299, agent: '-', text: 'text"\\abc' }, ''],
    ['big code', `321 - "text"`, { code: 321, agent: '-', text: 'text' }, ''],
    [
      'ok, rfc 2047, iso-8859-1, q',
      `299 - "=?iso-8859-1?q?this=20is=20some=20text?="`,
      { code: 299, agent: '-', text: 'this is some text' },
      ''
    ],
    [
      'ok, rfc 2047, utf-8, b',
      `299 - "=?UTF-8?B?VGhpcyBpcyBhIGhvcnNleTog8J+Qjg==?= And =?UTF-8?B?VGhpcyBpcyBhIGhvcnNleTog8J+Qjg==?="`,
      { code: 299, agent: '-', text: 'This is a horsey: 🐎 And This is a horsey: 🐎' },
      ''
    ],
    [
      'ok, rfc 2047, utf-8, q',
      `299 - "=?UTF-8?Q?This is a \\"horsey\\": =F0=9F=90=8E?="`,
      { code: 299, agent: '-', text: 'This is a "horsey": 🐎' },
      ''
    ],
    [
      'ok, rfc 2047, unknown charset',
      `299 - "=?UTF-9?Q?This is a horsey: =F0=9F=90=8E?="`,
      { code: 299, agent: '-', text: '=?UTF-9?Q?This is a horsey: =F0=9F=90=8E?=' },
      ''
    ],
    ['ok with spaces', `  299 - "${escaped}"  `, { code: 299, agent: '-', text: 'text"\\abc' }, ''],
    [
      'ok with date',
      `  299 - "${escaped}"  "Tue, 15 Nov 1994 08:12:31 GMT" `,
      { code: 299, agent: '-', text: 'text"\\abc' },
      ''
    ],
    [
      'ok with date and comma',
      `  299 - "${escaped}"  "Tue, 15 Nov 1994 08:12:31 GMT" , `,
      { code: 299, agent: '-', text: 'text"\\abc' },
      ''
    ],
    [
      'ok with comma',
      `  299 - "${escaped}"  , `,
      { code: 299, agent: '-', text: 'text"\\abc' },
      ''
    ],
    [
      'ok with date and comma and remainder',
      `  299 - "${escaped}"  "Tue, 15 Nov 1994 08:12:31 GMT" , remainder `,
      { code: 299, agent: '-', text: 'text"\\abc' },
      'remainder'
    ],
    [
      'ok with comma and remainder',
      `  299 - "${escaped}"  ,remainder text,second remainder`,
      { code: 299, agent: '-', text: 'text"\\abc' },
      'remainder text,second remainder'
    ],
    [
      'ok with utf-8 content directly in warn-text',
      bytes(` 299 - "Test of Iñtërnâtiônàlizætiøn,💝🐹🌇⛔" `),
      { code: 299, agent: '-', text: 'Test of Iñtërnâtiônàlizætiøn,💝🐹🌇⛔' },
      ''
    ]
  ])('%s: %j', (_name, header, result, remainder) => {
    expect(parseWarningHeader(header)).toEqual({ result, remainder })
  })
})

// Beyond apimachinery's table: Go's white space past ASCII, charsets Go converts and one it does
// not know; expected values printed by Go 1.26 running apimachinery v0.37.2's ParseWarningHeader.
describe('ParseWarningHeader, as Go prints it', () => {
  it.each([
    ['299 - "a\xc2\xa0" \xc2\xa0, 299 - "b"', 'a\u00a0', '299 - "b"'],
    ['299 - "=?utf-8?q?x?= =?US-ASCII?b?w6k=?="', 'x\ufffd\ufffd', ''],
    [
      '299 - "=?utf-8?q?a?=  =?utf-8?q?b?= c =?x?q?y?="',
      '=?utf-8?q?a?=  =?utf-8?q?b?= c =?x?q?y?=',
      ''
    ]
  ])('%j has the text %j', (header, text, remainder) => {
    expect(parseWarningHeader(header)).toEqual({
      result: { code: 299, agent: '-', text },
      remainder
    })
  })
})

describe('ParseWarningHeaders', () => {
  it('reads nothing from no header', () => {
    expect(parseWarningHeaders([])).toEqual({ warnings: [], errors: [] })
  })

  it('reads every comma-separated warning, skipping the rest of a header after an error', () => {
    const warning = (text: string) => ({ code: 299, agent: '-', text })
    expect(
      parseWarningHeaders([
        `299 - "warning 1.1",299 - "warning 1.2"`,
        `299 - "warning 2", 299 - "warning unquoted`,
        ` 299 - "warning 3.1" ,  299 - "warning 3.2" `
      ])
    ).toEqual({
      warnings: [
        warning('warning 1.1'),
        warning('warning 1.2'),
        warning('warning 2'),
        warning('warning 3.1'),
        warning('warning 3.2')
      ],
      errors: ['invalid warning header: invalid quoted string: missing closing quote']
    })
  })
})
