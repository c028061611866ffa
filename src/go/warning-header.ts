/**
 * The API server's `Warning` response headers (`299 - "text"`, RFC 7234 section 5.5), read as
 * client-go reads them: a port of k8s.io/apimachinery's `pkg/util/net` `ParseWarningHeaders`
 * and `ParseWarningHeader` (v0.37.2), with the `mime.WordDecoder.DecodeHeader` it tolerates
 * RFC 2047 text with (Go's charsets: utf-8, iso-8859-1, us-ascii).
 *
 * Header values come in as Node's HTTP parsers hand them over: one character per byte
 * (latin1), so that the parse, like Go's, works on bytes and a warning's UTF-8 text is
 * decoded, and checked, once it is cut out.
 */
import { splitN } from './strings.js'

/** One warning: its code (299 for the API server's), agent (`-`) and text. */
export interface WarningHeader {
  code: number
  agent: string
  text: string
}

/** One warning parsed off the front of a header value, and what follows it. */
export type ParsedWarning =
  | { result: WarningHeader; remainder: string; error?: undefined }
  | { error: string; result?: undefined; remainder?: undefined }

/**
 * Every warning of every header value, comma-separated ones too. A value with a malformed
 * warning contributes those before it; its error is listed and the next value is read.
 */
export function parseWarningHeaders(headers: readonly string[]): {
  warnings: WarningHeader[]
  errors: string[]
} {
  const warnings: WarningHeader[] = []
  const errors: string[] = []
  for (let header of headers) {
    while (header.length > 0) {
      const parsed = parseWarningHeader(header)
      if (parsed.error !== undefined) {
        errors.push(parsed.error)
        break
      }
      warnings.push(parsed.result)
      header = parsed.remainder
    }
  }
  return { warnings, errors }
}

/**
 * The first warning of `header` (`warn-code warn-agent "warn-text" ["warn-date"]`) and the
 * rest after a comma; an error in apimachinery's words when it is not well formed.
 */
export function parseWarningHeader(header: string): ParsedWarning {
  const invalid = (why: string): ParsedWarning => ({ error: `invalid warning header: ${why}` })
  const parts = splitN(trimSpace(header), ' ', 3)
  if (parts.length !== 3) return invalid('fewer than 3 segments')
  const [code, agentBytes, textDateRemainder] = parts as [string, string, string]
  if (!/^[0-9]{3}$/.test(code)) {
    return invalid('code segment is not 3 digits between 100-299')
  }
  if (agentBytes.length === 0) return invalid('empty agent segment')
  const agent = utf8Text(agentBytes)
  if (agent === undefined) return invalid('invalid agent')
  if (textDateRemainder.length === 0) return invalid('empty text segment')
  const quoted = parseQuotedString(textDateRemainder)
  if (quoted.error !== undefined) return invalid(quoted.error)
  const decoded = decodeHeader(quoted.value)
  const text = utf8Text(decoded ?? quoted.value)
  if (text === undefined) return invalid('invalid text')
  const result = { code: Number(code), agent, text }
  const dateAndRemainder = quoted.rest
  const dateEnd = dateAndRemainder.startsWith('"') ? dateAndRemainder.indexOf('"', 1) : 0
  if (dateEnd < 0) return invalid('unterminated date segment')
  let remainder = dateEnd === 0 ? dateAndRemainder : trimSpace(dateAndRemainder.slice(dateEnd + 1))
  if (remainder.length > 0) {
    if (!remainder.startsWith(',')) return invalid('unexpected token after warn-date')
    remainder = trimSpace(remainder.slice(1))
  }
  return { result, remainder }
}

// Go's strings.TrimSpace over bytes: ASCII white space and the UTF-8 encodings of the other
// runes unicode.IsSpace accepts (U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000).
const SPACE = String.raw`(?:[\t\n\v\f\r ]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80)`
const LEADING_SPACE = new RegExp(`^${SPACE}+`)
const TRAILING_SPACE = new RegExp(`${SPACE}+$`)

function trimSpace(s: string): string {
  return s.replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '')
}

// apimachinery's parseQuotedString: a backslash escapes the next byte, whatever it is.
function parseQuotedString(
  s: string
): { value: string; rest: string; error?: undefined } | { error: string } {
  if (s.length === 0) return { error: 'invalid quoted string: 0-length' }
  if (!s.startsWith('"')) return { error: 'invalid quoted string: missing initial quote' }
  let value = ''
  let escaping = false
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!
    if (c === '"' && !escaping) return { value, rest: trimSpace(s.slice(i + 1)) }
    if (c === '\\' && !escaping) {
      escaping = true
      continue
    }
    value += c
    escaping = false
  }
  return { error: 'invalid quoted string: missing closing quote' }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

// The text of bytes that are valid UTF-8 without a control character (Go's utf8.ValidString
// and unicode.IsControl, which is C0, DEL and C1); undefined otherwise.
function utf8Text(bytes: string): string | undefined {
  let text: string
  try {
    text = utf8.decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)))
  } catch {
    return undefined
  }
  // eslint-disable-next-line no-control-regex -- control characters are what it matches
  return /[\u0000-\u001f\u007f-\u009f]/.test(text) ? undefined : text
}

/**
 * Go's `mime.WordDecoder.DecodeHeader` over bytes: every well-formed encoded word
 * (`=?charset?B|Q?text?=`) decoded, the white space between two of them dropped, a malformed
 * one left as it is; undefined (the text is kept as sent) for a charset Go does not know.
 */
export function decodeHeader(header: string): string | undefined {
  const first = header.indexOf('=?')
  if (first < 0) return header
  let out = header.slice(0, first)
  let rest = header.slice(first)
  let betweenWords = false
  for (;;) {
    const start = rest.indexOf('=?')
    if (start < 0) break
    let cur = start + 2
    const q = rest.indexOf('?', cur)
    if (q < 0) break
    const charset = rest.slice(cur, q)
    cur = q + 1
    if (rest.length < cur + 4) break
    const encoding = rest[cur]!
    cur++
    if (rest[cur] !== '?') break
    cur++
    const j = rest.indexOf('?=', cur)
    if (j < 0) break
    const end = j + 2
    const content = decodeWord(encoding, rest.slice(cur, j))
    if (content === undefined) {
      betweenWords = false
      out += rest.slice(0, end)
      rest = rest.slice(end)
      continue
    }
    if (start > 0 && (!betweenWords || /[^ \t\n\r]/.test(rest.slice(0, start)))) {
      out += rest.slice(0, start)
    }
    const converted = convertCharset(charset, content)
    if (converted === undefined) return undefined
    out += converted
    rest = rest.slice(end)
    betweenWords = true
  }
  return out + rest
}

function decodeWord(encoding: string, text: string): string | undefined {
  if (encoding === 'B' || encoding === 'b') return base64Bytes(text)
  if (encoding === 'Q' || encoding === 'q') return qDecode(text)
  return undefined
}

// encoding/base64's StdEncoding.DecodeString: padded, line breaks ignored, nothing else.
function base64Bytes(text: string): string | undefined {
  const s = text.replace(/[\r\n]/g, '')
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) return undefined
  return atob(s)
}

// mime's qDecode: `_` is a space, `=XX` a byte, printable ASCII and CR, LF, tab as they are.
function qDecode(s: string): string | undefined {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (c === '_') out += ' '
    else if (c === '=') {
      const hex = s.slice(i + 1, i + 3)
      if (i + 2 >= s.length || !/^[0-9a-fA-F]{2}$/.test(hex)) return undefined
      out += String.fromCharCode(parseInt(hex, 16))
      i += 2
    } else if ((c >= ' ' && c <= '~') || c === '\n' || c === '\r' || c === '\t') out += c
    else return undefined
  }
  return out
}

// The bytes of `content` in `charset`, as UTF-8 bytes.
function convertCharset(charset: string, content: string): string | undefined {
  const name = charset.toLowerCase()
  if (name === 'utf-8') return content
  if (name === 'iso-8859-1') return utf8Bytes(content)
  if (name === 'us-ascii') return content.replace(/[\x80-\xff]/g, '\xef\xbf\xbd')
  return undefined
}

// Each character (one Latin-1 code point) as its UTF-8 bytes.
function utf8Bytes(text: string): string {
  return String.fromCharCode(...new TextEncoder().encode(text))
}
