/**
 * A chart repository's index.yaml as Helm v3.21.4 reads it (`repo.loadIndex`) and picks from it
 * (`IndexFile.Get`), for chart download (docs/compatibility.md#chart-download): entries sorted
 * newest first, an exact version string wins, else the first version satisfying the
 * constraint; an empty version means the newest non-prerelease.
 */
import { parse } from 'yaml'
import { parseConstraint, satisfies, type SemverConstraint } from '../../go/semver-constraint.js'
import { compareVersions, parseVersion, type SemVersion } from '../../go/semver.js'

/** One `entries.<name>[]` item: what download needs. */
export interface ChartIndexEntry {
  name: string
  version: string
  urls: string[]
  digest: string
}

/** The index: chart name → versions, newest first (unparsable versions last). */
export type ChartIndex = Map<string, ChartIndexEntry[]>

/** index.yaml cannot be used; the message is Helm's reason. */
export class ChartIndexError extends Error {
  override name = 'ChartIndexError'
}

/** Parses index.yaml (YAML or JSON) into a sorted ChartIndex; throws ChartIndexError. */
export function parseChartIndex(text: string): ChartIndex {
  if (text.length === 0) throw new ChartIndexError('empty index.yaml file')
  let doc: unknown
  try {
    doc = parse(text, { uniqueKeys: false })
  } catch (err) {
    throw new ChartIndexError(`index.yaml is not valid YAML: ${(err as Error).message}`)
  }
  if (!isObject(doc)) throw new ChartIndexError('index.yaml is not a mapping')
  if (typeof doc.apiVersion !== 'string' || doc.apiVersion === '') {
    throw new ChartIndexError('no API version specified')
  }
  const index: ChartIndex = new Map()
  const entries = isObject(doc.entries) ? doc.entries : {}
  for (const [name, list] of Object.entries(entries)) {
    const versions = (Array.isArray(list) ? list : []).flatMap((item) => entryOf(name, item))
    index.set(name, sortNewestFirst(versions))
  }
  return index
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function entryOf(name: string, item: unknown): ChartIndexEntry[] {
  // Helm skips empty entries and entries that fail chart validation (no version, say).
  if (!isObject(item)) return []
  if (item.version !== undefined && typeof item.version !== 'string') {
    throw new ChartIndexError(
      `entry ${name}: version must be a string, got ${JSON.stringify(item.version)}`
    )
  }
  const version = item.version ?? ''
  if (version === '') return []
  const urls = Array.isArray(item.urls) ? item.urls.filter((u) => typeof u === 'string') : []
  const digest = typeof item.digest === 'string' ? item.digest : ''
  return [{ name: typeof item.name === 'string' ? item.name : name, version, urls, digest }]
}

function tryVersion(text: string): SemVersion | undefined {
  try {
    return parseVersion(text)
  } catch {
    return undefined
  }
}

function sortNewestFirst(entries: ChartIndexEntry[]): ChartIndexEntry[] {
  const keyed = entries.map((e) => ({ e, v: tryVersion(e.version) }))
  keyed.sort((a, b) => {
    if (a.v === undefined || b.v === undefined) return (a.v ? 0 : 1) - (b.v ? 0 : 1)
    return compareVersions(b.v, a.v)
  })
  return keyed.map(({ e }) => e)
}

/**
 * `IndexFile.Get(name, version)`: the entry to download, or undefined when the chart or a
 * matching version is missing (Helm reports both as "not found"). Throws SemverError for a
 * version that is neither a version nor a constraint.
 */
export function selectIndexEntry(
  index: ChartIndex,
  name: string,
  version: string
): ChartIndexEntry | undefined {
  const entries = index.get(name) ?? []
  if (version !== '') {
    const exact = entries.find((e) => e.version === version)
    if (exact !== undefined) return exact
  }
  const constraint: SemverConstraint = parseConstraint(version === '' ? '*' : version)
  return entries.find((e) => {
    const v = tryVersion(e.version)
    return v !== undefined && satisfies(constraint, v)
  })
}

/**
 * Helm's `GetTagMatchingVersionOrConstraint` over OCI tags already sorted newest first: an
 * exact tag wins, else the first satisfying the constraint (`*` when `version` is empty).
 */
export function selectTag(tags: readonly string[], version: string): string | undefined {
  if (version !== '' && tags.includes(version)) return version
  const constraint = parseConstraint(version === '' ? '*' : version)
  return tags.find((t) => {
    const v = tryVersion(t)
    return v !== undefined && satisfies(constraint, v)
  })
}
