/**
 * Splits a rendered stream into documents the way Tazuna's decoder does
 * (docs/compatibility.md#yaml-to-objects step 1): apimachinery's `YAMLOrJSONDecoder` with a
 * 4096-byte sniff buffer. The framing matters for compatibility because it differs from a YAML
 * parser's own stream handling:
 * - a stream whose first non-space byte (within 4096 bytes) is `{` is read as a JSON stream;
 *   if the first or second value fails, the decoder rewinds to the end of the last good value
 *   and reads the rest as YAML; after two good values a failure is an error;
 * - YAML is cut at lines starting with `---`; text after `---` other than a comment is an error;
 * - each chunk is decoded on its own and only its first document counts (a `...` end marker
 *   hides the rest of the chunk);
 * - a document that is not a mapping (or null) is an error, because Go decodes into a map.
 *
 * One difference from Tazuna: a document over MAX_DOCUMENT_BYTES is refused before it is parsed
 * (docs/reliability.md#size-limits).
 */
import { ConfigError, type ConfigProblem } from '../errors.js'
import { isJsonObject, parseYamlDocuments, type JsonObject, type JsonValue } from '../go/yaml.js'
import { formatBytes, MAX_DOCUMENT_BYTES } from './size-limits.js'

/** One decoded document of a stream; `value` is a mapping or null (empty document). */
export interface StreamDocument {
  value: JsonObject | null
  /** 1-based line where the document starts in the whole stream. */
  line: number
  /** 1-based line of a value inside the document, when known. */
  lineOf(path: readonly (string | number)[]): number | undefined
}

const SNIFF_BYTES = 4096
// Go's unicode.IsSpace.
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/

/** Decodes a whole stream into documents (null documents included, in order). */
export function decodeDocumentStream(text: string, file: string): StreamDocument[] {
  return looksLikeJson(text) ? decodeJsonStream(text, file) : decodeYamlStream(text, file, 0)
}

function looksLikeJson(text: string): boolean {
  let i = 0
  while (i < text.length && GO_SPACE.test(text.charAt(i))) i++
  return text.charAt(i) === '{' && Buffer.byteLength(text.slice(0, i), 'utf8') < SNIFF_BYTES
}

function decodeJsonStream(text: string, file: string): StreamDocument[] {
  const lineAt = lineTracker(text)
  const docs: StreamDocument[] = []
  let consumed = 0
  for (;;) {
    const start = skipJsonSpace(text, consumed)
    if (start >= text.length) return docs
    const value = jsonValueAt(text, start)
    if (value !== undefined) assertDocumentSize(text.slice(start, value.end), file, lineAt(start))
    if (value === undefined || (value.parsed !== null && !isJsonObject(value.parsed))) {
      return [...docs, ...decodeYamlFallback(text, file, consumed, docs.length, lineAt)]
    }
    docs.push(fixedDocument(value.parsed, lineAt(start)))
    consumed = value.end
  }
}

/**
 * After a failed JSON value the decoder rewinds to the end of the last good value, drops
 * whitespace up to and including the first newline, and reads the rest as YAML. A stream that
 * already produced two JSON values is unambiguous JSON: the failure is an error.
 */
function decodeYamlFallback(
  text: string,
  file: string,
  consumed: number,
  decoded: number,
  lineAt: (index: number) => number
): StreamDocument[] {
  if (decoded > 1) {
    throw problem(file, lineAt(skipJsonSpace(text, consumed)), 'invalid JSON in a JSON stream')
  }
  let from = consumed
  while (from < text.length && GO_SPACE.test(text.charAt(from))) {
    from++
    if (text.charAt(from - 1) === '\n') break
  }
  return decodeYamlStream(text.slice(from), file, lineAt(from) - 1)
}

function decodeYamlStream(text: string, file: string, lineOffset: number): StreamDocument[] {
  return yamlChunks(text, file, lineOffset).map((chunk) => {
    assertDocumentSize(chunk.text, file, chunk.offset + 1)
    return decodeChunk(chunk, file)
  })
}

/** Refuses a document over MAX_DOCUMENT_BYTES before it is parsed, naming where it starts. */
function assertDocumentSize(text: string, file: string, line: number): void {
  // Characters never outnumber UTF-8 bytes: most documents are decided without counting bytes.
  if (text.length * 3 <= MAX_DOCUMENT_BYTES) return
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes <= MAX_DOCUMENT_BYTES) return
  throw problem(
    file,
    line,
    `the document starting here is ${formatBytes(bytes)}, over the limit of ` +
      `${formatBytes(MAX_DOCUMENT_BYTES)} for one document (docs/reliability.md#size-limits)`
  )
}

interface Chunk {
  text: string
  /** Lines before the chunk in the whole stream. */
  offset: number
}

/** Cuts YAML text at `---` lines like apimachinery's YAMLReader (CRLF read as LF). */
function yamlChunks(text: string, file: string, lineOffset: number): Chunk[] {
  if (text === '') return []
  const endsWithNewline = text.endsWith('\n')
  const lines = text.split('\n')
  if (endsWithNewline) lines.pop()
  const chunks: Chunk[] = []
  let buffer = ''
  let bufferStart = 0
  lines.forEach((raw, i) => {
    const terminated = i < lines.length - 1 || endsWithNewline
    const content = terminated && raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (content.startsWith('---')) {
      const rest = goTrimSpace(content.slice(3))
      if (rest !== '' && !rest.startsWith('#')) {
        throw problem(file, lineOffset + i + 1, `invalid YAML document separator: ${rest}`)
      }
      if (buffer !== '') chunks.push({ text: buffer, offset: bufferStart })
      buffer = ''
      return
    }
    if (buffer === '') bufferStart = lineOffset + i
    buffer += `${content}\n`
  })
  if (buffer !== '') chunks.push({ text: buffer, offset: bufferStart })
  return chunks
}

function decodeChunk(chunk: Chunk, file: string): StreamDocument {
  rejectDirectives(chunk, file)
  let first
  try {
    first = parseYamlDocuments(chunk.text, file)[0]
  } catch (e) {
    throw e instanceof ConfigError ? shiftLines(e, chunk.offset) : e
  }
  const line = (first?.line ?? 1) + chunk.offset
  const value = first?.value ?? null
  if (value !== null && !isJsonObject(value)) {
    throw problem(file, line, `document must be a mapping, got ${goTypeName(value)}`)
  }
  return {
    value,
    line,
    lineOf: (path) => {
      const l = first?.lineOf(path)
      return l === undefined ? undefined : l + chunk.offset
    }
  }
}

/**
 * A `%YAML`/`%TAG` directive ends up alone in its chunk (the `---` after it is a cut), which
 * go-yaml rejects ("did not find expected <document start>").
 */
function rejectDirectives(chunk: Chunk, file: string): void {
  const index = chunk.text.split('\n').findIndex((l) => l.startsWith('%'))
  if (index >= 0) {
    throw problem(
      file,
      chunk.offset + index + 1,
      'a %directive cannot be used in a rendered stream (the decoder cuts the stream at the --- after it)'
    )
  }
}

function shiftLines(e: ConfigError, offset: number): ConfigError {
  return new ConfigError(
    e.problems.map((p): ConfigProblem =>
      p.line === undefined ? p : { ...p, line: p.line + offset }
    )
  )
}

/** The JSON value starting at `start` and where it ends, or undefined on a syntax error. */
function jsonValueAt(text: string, start: number): { parsed: JsonValue; end: number } | undefined {
  const end = jsonValueEnd(text, start)
  if (end === undefined) return undefined
  try {
    return { parsed: JSON.parse(text.slice(start, end)) as JsonValue, end }
  } catch {
    return undefined
  }
}

/** End index of the JSON value at `start` (brackets balanced outside strings). */
function jsonValueEnd(text: string, start: number): number | undefined {
  const first = text.charAt(start)
  if (first !== '{' && first !== '[') {
    const m = /^(?:"(?:[^"\\]|\\.)*"|[^\s,\]}{["]+)/.exec(text.slice(start))
    return m === null ? undefined : start + m[0].length
  }
  let depth = 0
  for (let i = start; i < text.length; i++) {
    const c = text.charAt(i)
    if (c === '"') {
      i = stringEnd(text, i)
      if (i < 0) return undefined
    } else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return undefined
}

/** Index of the closing quote of the string opening at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charAt(i)
    if (c === '\\') i++
    else if (c === '"') return i
  }
  return -1
}

function skipJsonSpace(text: string, from: number): number {
  let i = from
  while (i < text.length && ' \t\r\n'.includes(text.charAt(i))) i++
  return i
}

function fixedDocument(value: JsonValue, line: number): StreamDocument {
  return { value: isJsonObject(value) ? value : null, line, lineOf: () => undefined }
}

/** 1-based line of an index; indexes must not decrease between calls (linear overall). */
function lineTracker(text: string): (index: number) => number {
  let at = 0
  let line = 1
  return (index) => {
    for (let i = text.indexOf('\n', at); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) {
      line++
      at = i + 1
    }
    return line
  }
}

function goTrimSpace(s: string): string {
  let a = 0
  let b = s.length
  while (a < b && GO_SPACE.test(s.charAt(a))) a++
  while (b > a && GO_SPACE.test(s.charAt(b - 1))) b--
  return s.slice(a, b)
}

/** Go's %T of a value decoded into `any`. */
export function goTypeName(v: JsonValue): string {
  if (v === null) return '<nil>'
  if (Array.isArray(v)) return '[]interface {}'
  switch (typeof v) {
    case 'string':
      return 'string'
    case 'number':
      return 'float64'
    case 'boolean':
      return 'bool'
    default:
      return 'map[string]interface {}'
  }
}

function problem(file: string, line: number, message: string): ConfigError {
  return new ConfigError([{ file, line, message }])
}
