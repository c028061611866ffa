/**
 * YAML parsing with the scalar semantics of sigs.k8s.io/yaml, which Tazuna uses for tazuna.yaml
 * and for every rendered manifest (spec §2.1 step 3, §4.5, §13.1). The values feed ContentHash,
 * so they must equal what Go decodes:
 * - YAML 1.1 scalars: `yes/no/on/off` are booleans, `0755` is octal, `0x1f` hex, `1_000` ints;
 * - timestamps stay strings (go-yaml v2 decodes them into interface{} as strings);
 * - every number is a float64 (YAML → JSON → encoding/json into `any`);
 * - non-string map keys are stringified; a repeated key keeps the last value.
 */
import {
  Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Node,
  type Tags
} from 'yaml'
import { ConfigError, type ConfigProblem } from '../errors.js'

/** A JSON value as Go's encoding/json decodes it into `any`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject
/** A JSON object; key order is irrelevant (hashing sorts keys). */
export interface JsonObject {
  [key: string]: JsonValue
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

const withoutTimestamps = (tags: Tags): Tags =>
  tags.filter((t) => typeof t !== 'object' || t.tag !== 'tag:yaml.org,2002:timestamp')

/**
 * Parses a YAML stream (one or more documents). Syntax errors of every document are collected
 * and thrown together as one ConfigError naming `file` and the line of each.
 */
export function parseYamlDocuments(text: string, file: string): YamlDocument[] {
  const lineCounter = new LineCounter()
  const docs = parseAllDocuments(text, {
    version: '1.1',
    schema: 'yaml-1.1',
    customTags: withoutTimestamps,
    merge: true,
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
        message: `invalid YAML: ${firstLine(err.message)}`
      })
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return list.map((doc) => toYamlDocument(doc, lineCounter, file))
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

function toYamlDocument(doc: Document.Parsed, lines: LineCounter, file: string): YamlDocument {
  let value: JsonValue
  try {
    value = toGoJson(doc.toJS({ maxAliasCount: -1 }), file)
  } catch (e) {
    if (e instanceof ConfigError) throw e
    const line = doc.contents?.range ? lines.linePos(doc.contents.range[0]).line : undefined
    throw new ConfigError([{ file, line, message: `invalid YAML: ${(e as Error).message}` }])
  }
  const start = doc.contents?.range?.[0] ?? doc.range[0]
  return {
    value,
    line: lines.linePos(start).line,
    lineOf(path) {
      const node = nodeAt(doc.contents, path)
      return node?.range ? lines.linePos(node.range[0]).line : undefined
    }
  }
}

function nodeAt(node: unknown, path: readonly (string | number)[]): Node | undefined {
  let current: unknown = node
  for (const step of path) {
    if (isMap(current)) {
      const pair = current.items.find((p) => isPair(p) && keyString(p.key) === String(step))
      current = pair?.value ?? pair?.key
    } else if (isSeq(current) && typeof step === 'number') {
      current = current.items[step]
    } else {
      return undefined
    }
  }
  return current as Node | undefined
}

function keyString(key: unknown): string {
  return isScalar(key) ? goKeyString(key.value) : String(key)
}

/** Converts a decoded YAML value to what Go's YAML→JSON→`any` round trip yields. */
function toGoJson(value: unknown, file: string): JsonValue {
  if (value === null || value === undefined) return null
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new ConfigError([
        { file, message: `unsupported YAML value ${value} (not valid in JSON)` }
      ])
    }
    return value
  }
  if (typeof value === 'bigint') return Number(value)
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8')
  if (Array.isArray(value)) return value.map((v) => toGoJson(v, file))
  if (value instanceof Map) {
    const out: JsonObject = {}
    for (const [k, v] of value) out[goKeyString(k)] = toGoJson(v, file)
    return out
  }
  if (value instanceof Set) return Object.fromEntries([...value].map((k) => [goKeyString(k), null]))
  if (typeof value === 'object') {
    const out: JsonObject = {}
    for (const [k, v] of Object.entries(value)) out[k] = toGoJson(v, file)
    return out
  }
  throw new ConfigError([{ file, message: `unsupported YAML value of type ${typeof value}` }])
}

/** sigs.k8s.io/yaml turns non-string keys into strings: booleans and numbers as Go prints them. */
function goKeyString(key: unknown): string {
  if (key === null || key === undefined) return 'null'
  if (typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean') {
    return String(key)
  }
  // sigs.k8s.io/yaml rejects collection keys too (`? [a, b]: c`).
  throw new TypeError('unsupported YAML map key: only scalar keys can become JSON keys')
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message
}
