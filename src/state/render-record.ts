/**
 * Render records (docs/renderers.md#skipping-unchanged-renders): what a manifest's render
 * depended on and which State entries it produced, kept in an annotation of the manifest's State
 * ConfigMap. A record states a fact about a pure function — "this engine, this manifest's
 * settings and these answers of the file system render to entries with this digest" — so it
 * stays true whoever writes State later. A Diff or sync whose current inputs give the record's
 * key, and whose State has the record's entries digest, knows the render would change nothing,
 * and does not render.
 */
import { createHash } from 'node:crypto'
import { compareBytes } from './byte-order.js'

/** The annotation of a State ConfigMap that holds the record (the Go CLI keeps it untouched). */
export const RENDER_RECORD_ANNOTATION = 'tazuna-action/render-record'

/** The version of the record's format and of what its key covers; another never holds. */
const RECORD_VERSION = 1

/** A record is kept only while its annotation is at most this long (State must fit 1 MiB). */
export const MAX_RECORD_CHARS = 64 * 1024

/**
 * One question the renderer asked the file system — its kind ("file", "kind", "list", "abs")
 * and the path relative to the configuration's directory — as a record keeps it.
 */
export type RecordedRead = readonly [kind: string, file: string]

/** A render record as kept in the annotation. */
export interface RenderRecord {
  /** The renderer's questions, to be asked again (sorted, unique). */
  reads: readonly RecordedRead[]
  /** sha256 of the engine, the manifest's settings and the answers (see recordKey). */
  key: string
  /** entriesDigest of the entries the render produced. */
  entries: string
}

/** What a record's key covers besides the answers. */
export interface RecordSubject {
  /** Identifies the engine and its render programs (the bundle's build digest). */
  engine: string
  /** The manifest's settings as tazuna.yaml gives them, paths relative to its directory. */
  manifest: string
}

/** sha256 over a manifest's State entries in byte order of their keys. */
export function entriesDigest(entries: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256')
  for (const key of [...entries.keys()].sort(compareBytes)) {
    hash.update(JSON.stringify([key, entries.get(key)!])).update('\n')
  }
  return hash.digest('hex')
}

/** The key of a record: the subject and the digest of the answers to its reads. */
export function recordKey(subject: RecordSubject, answersDigest: string): string {
  return createHash('sha256')
    .update(JSON.stringify([RECORD_VERSION, subject.engine, subject.manifest, answersDigest]))
    .digest('hex')
}

/** The annotation's text, or undefined when the record is too long to keep. */
export function encodeRenderRecord(record: RenderRecord): string | undefined {
  const text = JSON.stringify({
    v: RECORD_VERSION,
    key: record.key,
    entries: record.entries,
    reads: record.reads
  })
  return text.length <= MAX_RECORD_CHARS ? text : undefined
}

/** The record an annotation holds; undefined for anything else (another version, hand edits). */
export function decodeRenderRecord(text: string | undefined): RenderRecord | undefined {
  if (text === undefined || text.length > MAX_RECORD_CHARS) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { v, key, entries, reads } = value as Record<string, unknown>
  const hex = (s: unknown): s is string => typeof s === 'string' && /^[0-9a-f]{64}$/.test(s)
  if (v !== RECORD_VERSION || !hex(key) || !hex(entries) || !Array.isArray(reads)) return undefined
  const valid = reads.every(
    (r): r is [string, string] =>
      Array.isArray(r) && r.length === 2 && r.every((part) => typeof part === 'string')
  )
  return valid ? { key, entries, reads } : undefined
}
