/**
 * YAML parsing with the semantics of sigs.k8s.io/yaml (go-yaml v2 → JSON → encoding/json), which
 * Tazuna uses for tazuna.yaml and for every rendered manifest (docs/compatibility.md#config-loading
 * step 3, docs/compatibility.md#yaml-to-objects, #go-parsed-hash-input). The values feed
 * ContentHash, so they must equal what Go decodes:
 * - YAML 1.1 scalars as go-yaml v2 resolves them (go-scalars.ts): `yes/no/on/off/y/n` are
 *   booleans, `0755` is octal, `0x1f` hex, `1_000` 1000, no sexagesimal numbers;
 * - timestamps stay strings (go-yaml v2 decodes them into interface{} as strings);
 * - every number is a float64 (YAML → JSON → encoding/json into `any`);
 * - keys, merge keys and binary values as go-values.ts describes; a repeated key keeps the last
 *   value;
 * - characters go-yaml refuses are refused here too, and raw U+0085/U+2028/U+2029 (line breaks
 *   in YAML 1.1, content for the `yaml` package) are refused rather than read differently.
 */
import { Document, isMap, isPair, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml'
import { ConfigError, type ConfigProblem } from '../errors.js'
import { goYamlTags } from './yaml-scalars.js'
import type { JsonObject, JsonValue } from './json-value.js'
import { goKeyOf, goValueOf, type WalkSource } from './yaml-values.js'

export type { JsonObject, JsonValue } from './json-value.js'

/** Whether `value` is a JSON object (a YAML mapping), not an array or null. */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One parsed YAML document with a way to find the line of any value inside it. */
export interface YamlDocument {
  /** The decoded value; `null` for an empty document. */
  value: JsonValue
  /** 1-based line where the document starts. */
  line: number
  /** 1-based line of the node at `path` (map keys and sequence indexes), if it exists. */
  lineOf(path: readonly (string | number)[]): number | undefined
}

// Raw characters go-yaml's reader rejects ("control characters are not allowed").
const GO_YAML_FORBIDDEN =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/
// Line breaks in YAML 1.1 (go-yaml), ordinary characters for the `yaml` package.
const YAML11_BREAKS = /[\u0085\u2028\u2029]/
const YAML11_BREAKS_ALL = /[\u0085\u2028\u2029]/g

/**
 * Parses a YAML stream (one or more documents). Syntax errors of every document are collected
 * and thrown together as one ConfigError naming `file` and the line of each.
 */
export function parseYamlDocuments(text: string, file: string): YamlDocument[] {
  checkForbiddenCharacters(text, file)
  const lineCounter = new LineCounter()
  const docs = parseAllDocuments(text, {
    version: '1.1',
    schema: 'yaml-1.1',
    customTags: goYamlTags,
    merge: false,
    uniqueKeys: false,
    lineCounter,
    prettyErrors: false
  })
  const list: Document.Parsed[] = Array.isArray(docs) ? docs : []
  const problems: ConfigProblem[] = []
  for (const doc of list) {
    for (const err of doc.errors) {
      problems.push({
        file,
        line: lineCounter.linePos(err.pos[0]).line,
        message: `invalid YAML: ${parserMessage(err.message)}`
      })
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  const readBreaks: [number, number][] = []
  const parsed = list.map((doc) =>
    toYamlDocument({ doc, text, file, lines: lineCounter, readBreaks })
  )
  checkLineBreaks(text, file, readBreaks, lineCounter)
  return parsed
}

/** Parses a file that must hold exactly one YAML document (tazuna.yaml, include files). */
export function parseYamlDocument(text: string, file: string): YamlDocument {
  const docs = parseYamlDocuments(text, file)
  const nonEmpty = docs.filter((d) => d.value !== null)
  if (nonEmpty.length > 1) {
    throw new ConfigError([
      { file, line: nonEmpty[1]?.line, message: 'expected a single YAML document, found several' }
    ])
  }
  return nonEmpty[0] ?? { value: null, line: 1, lineOf: () => undefined }
}

function toYamlDocument(source: WalkSource): YamlDocument {
  const { doc, lines } = source
  const value = goValueOf(doc.contents, source)
  const start = doc.contents?.range?.[0] ?? doc.range[0]
  return {
    value,
    line: lines.linePos(start).line,
    lineOf(path) {
      const node = nodeAt(doc.contents, path, source)
      return node?.range ? lines.linePos(node.range[0]).line : undefined
    }
  }
}

function nodeAt(
  node: unknown,
  path: readonly (string | number)[],
  source: WalkSource
): Node | undefined {
  let current: unknown = node
  for (const step of path) {
    if (isMap(current)) {
      const pair = current.items.find((p) => isPair(p) && keyString(p.key, source) === String(step))
      current = pair?.value ?? pair?.key
    } else if (isSeq(current) && typeof step === 'number') {
      current = current.items[step]
    } else {
      return undefined
    }
  }
  return current as Node | undefined
}

function keyString(key: unknown, source: WalkSource): string | undefined {
  try {
    return goKeyOf(key, source)
  } catch {
    return undefined
  }
}

// The parser recurses per nesting level; a document nested deeper than the stack allows
// (hundreds of block levels, thousands of flow levels) ends in a RangeError, worded here
// (docs/reliability.md#hostile-input). go-yaml refuses beyond 10,000 levels.
function parserMessage(message: string): string {
  return /maximum call stack size exceeded/i.test(message)
    ? 'the document is nested too deeply to parse (too many levels of mappings or sequences)'
    : firstLine(message)
}

/** Characters go-yaml refuses ("control characters are not allowed"). */
function checkForbiddenCharacters(text: string, file: string): void {
  const problems: ConfigProblem[] = []
  text.split('\n').forEach((lineText, i) => {
    const forbidden = GO_YAML_FORBIDDEN.exec(lineText)?.[0]
    if (forbidden !== undefined) {
      problems.push({
        file,
        line: i + 1,
        message: `invalid YAML: control character ${codePoint(forbidden)} is not allowed`
      })
    }
  })
  if (problems.length > 0) throw new ConfigError(problems)
}

/**
 * YAML 1.1 line breaks (U+0085, U+2028, U+2029) that the `yaml` package would misread: every one
 * outside a quoted scalar that go-values.ts read the go-yaml way (`readBreaks`).
 */
function checkLineBreaks(
  text: string,
  file: string,
  readBreaks: readonly [number, number][],
  lines: LineCounter
): void {
  if (!YAML11_BREAKS.test(text)) return
  const problems: ConfigProblem[] = []
  const seenLines = new Set<number>()
  for (const m of text.matchAll(YAML11_BREAKS_ALL)) {
    const at = m.index
    if (m[0] !== '\u0085' && readBreaks.some(([start, end]) => at >= start && at < end)) continue
    const line = lines.linePos(at).line
    if (seenLines.has(line)) continue
    seenLines.add(line)
    problems.push({
      file,
      line,
      message: `invalid YAML: raw ${codePoint(m[0])} is a line break in YAML 1.1 (Go's parser); write it as an escape in a double-quoted string`
    })
  }
  if (problems.length > 0) throw new ConfigError(problems)
}

function codePoint(c: string): string {
  return `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message
}
