/**
 * report.json of a Diff run read back as untrusted input (mode publish,
 * docs/fork-pull-requests.md): a fork's pull-request run wrote it, and a fork controls that run,
 * so the file may be forged. It is parsed strictly: the schema and kind, no unknown field, every
 * type, sizes capped, manifest names and state keys of the shapes Tazuna makes, counts that
 * match the entries. Nothing in it is evaluated; every string is neutralised
 * ({@link neutralise}) before it reaches the renderer, which escapes it again where it goes.
 */
import { manifestNameProblem } from '../config/names.js'
import type { ConfigProblem } from '../errors.js'
import { riskKinds, type Risk } from '../risk/model.js'
import { parseStateKey } from '../state/key.js'
import { diffTypes, type DiffEntry } from '../state/diff.js'
import type { NotComparedEntry } from '../state/snapshot-diff.js'
import { reportSchema } from './files.js'
import { countEntries, type DiffReport, type ManifestDiff, type SnapshotSource } from './model.js'
import { fields, list, ReportError, text, type Json } from './published-fields.js'

export { ReportError } from './published-fields.js'

/** The largest report.json mode publish reads, in bytes. */
export const maxReportBytes = 8 * 1024 * 1024

/** What the report says beyond the Diff: the pull request and commit it claims to be about. */
export interface PublishedReport {
  pullRequest: number
  report: DiffReport
}

const limits = {
  manifests: 1000,
  entries: 50_000,
  problems: 1000,
  risks: 10_000,
  warnings: 100,
  text: 65_536
}
const topFields = [
  'schema',
  'kind',
  'config',
  'environment',
  'target',
  'sha',
  'pullRequest',
  'renderers',
  'counts',
  'layers',
  'manifests',
  'problems',
  'risks',
  'snapshot',
  'notCompared'
]
const shaPattern = /^[0-9a-f]{40}([0-9a-f]{24})?$/
const hashPattern = /^[0-9A-Za-z:._-]{1,128}$/

/**
 * Parses report.json's text; throws ReportError naming the field and the problem for anything
 * but a Diff report of schema {@link reportSchema} with a pull request number.
 */
export function readPublishedReport(source: string): PublishedReport {
  let value: unknown
  try {
    value = JSON.parse(source)
  } catch (error) {
    throw new ReportError(`it is not JSON (${(error as Error).message})`)
  }
  const doc = fields(value, 'the report', topFields)
  if (doc.schema !== reportSchema) {
    throw new ReportError(`"schema" is ${JSON.stringify(doc.schema)}, not ${reportSchema}`)
  }
  if (doc.kind !== 'diff')
    throw new ReportError(`"kind" is ${JSON.stringify(doc.kind)}, not "diff"`)
  const sha = text(doc.sha, '"sha"', 64)
  if (!shaPattern.test(sha))
    throw new ReportError(`"sha" is not a commit id: ${JSON.stringify(sha)}`)
  const pullRequest = doc.pullRequest
  if (typeof pullRequest !== 'number' || !Number.isSafeInteger(pullRequest) || pullRequest < 1) {
    throw new ReportError('"pullRequest" is not a pull request number')
  }
  checkPlanAndRenderers(doc)
  const manifests = list(doc.manifests, '"manifests"', limits.manifests).map(manifestOf)
  checkTotals(doc, manifests)
  const snapshot =
    doc.snapshot === null || doc.snapshot === undefined ? undefined : snapshotOf(doc.snapshot)
  const notCompared = list(doc.notCompared ?? [], '"notCompared"', limits.entries).map(
    notComparedOf
  )
  return {
    pullRequest,
    report: {
      config: text(doc.config, '"config"', 1000),
      environment: text(doc.environment, '"environment"', 1000),
      ...(doc.target === undefined ? {} : { target: text(doc.target, '"target"', 1000) }),
      sha,
      manifests,
      problems: list(doc.problems, '"problems"', limits.problems).map(problemOf),
      risks: list(doc.risks, '"risks"', limits.risks).map(riskOf),
      ...(snapshot === undefined ? {} : { snapshot, notCompared })
    }
  }
}

/**
 * Makes untrusted text inert in a comment: `@` cannot start a mention of a user or team (a word
 * joiner follows it), and control and bidirectional-override characters are dropped (line
 * breaks and tabs stay). HTML and Markdown are escaped by the renderer where the text goes.
 */
export function neutralise(value: string): string {
  return value.replace(inertCharacters, '').replace(/@/g, '@\u2060')
}

// Controls but tab and line feed, and the bidirectional embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const inertCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * Free text that the renderer puts into Markdown (a risk's message): Markdown's punctuation is
 * backslash-escaped, so no link, image, emphasis or heading can be made of it.
 */
export function inertMarkdown(value: string): string {
  return neutralise(value).replace(/[\\`*_[\]()!#~|]/g, (c) => `\\${c}`)
}

function manifestOf(value: unknown, index: number): ManifestDiff {
  const what = `"manifests"[${index}]`
  const m = fields(value, what, ['manifest', 'type', 'counts', 'entries', 'error'])
  const manifest = text(m.manifest, `${what}.manifest`, 300)
  const problem = manifestNameProblem(manifest, index)
  if (problem !== undefined) throw new ReportError(`${what}: ${problem}`)
  const type = text(m.type, `${what}.type`, 32)
  if (!/^[a-z][a-z0-9-]*$/.test(type)) throw new ReportError(`${what}.type is not a manifest type`)
  const entries = list(m.entries, `${what}.entries`, limits.entries).map((e, i) =>
    entryOf(e, `${what}.entries[${i}]`, manifest)
  )
  sameCounts(m.counts, { ...countEntries(entries) }, `${what}.counts`)
  return {
    manifest,
    type,
    entries,
    ...(m.error === undefined
      ? {}
      : { error: neutralise(text(m.error, `${what}.error`, limits.text)) })
  }
}

function entryOf(value: unknown, what: string, manifest: string): DiffEntry {
  const e = fields(value, what, ['type', 'key', 'oldHash', 'newHash'])
  if (!(diffTypes as readonly unknown[]).includes(e.type)) {
    throw new ReportError(`${what}.type is not a Diff entry type`)
  }
  const key = stateKeyOf(e.key, `${what}.key`, manifest)
  const hash = (name: 'oldHash' | 'newHash'): { oldHash?: string; newHash?: string } => {
    if (e[name] === undefined) return {}
    const h = text(e[name], `${what}.${name}`, 128)
    if (!hashPattern.test(h)) throw new ReportError(`${what}.${name} is not a content hash`)
    return { [name]: h }
  }
  return { type: e.type as DiffEntry['type'], key, ...hash('oldHash'), ...hash('newHash') }
}

// A state key of the manifest it is listed under (5 or 6 parts), without spaces or controls.
function stateKeyOf(value: unknown, what: string, manifest: string): string {
  const key = text(value, what, 1024)
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(key))
    throw new ReportError(`${what} has spaces or control characters`)
  let owner: string
  try {
    owner = parseStateKey(key).manifest
  } catch {
    throw new ReportError(`${what} is not a state key`)
  }
  if (owner !== manifest)
    throw new ReportError(
      `${what} belongs to manifest ${JSON.stringify(owner)}, not ${JSON.stringify(manifest)}`
    )
  return neutralise(key)
}

function sameCounts(value: unknown, expected: Record<string, number>, what: string): void {
  const counts = fields(value, what, Object.keys(expected))
  for (const [name, n] of Object.entries(expected)) {
    if (counts[name] !== n) throw new ReportError(`${what}.${name} does not match the entries`)
  }
}

function checkTotals(doc: Record<string, Json>, manifests: readonly ManifestDiff[]): void {
  const all = countEntries(manifests.flatMap((m) => m.entries))
  if (manifests.flatMap((m) => m.entries).length > limits.entries) {
    throw new ReportError(`the report lists more than ${limits.entries} entries`)
  }
  sameCounts(doc.counts, { ...all }, '"counts"')
}

// Read for their shape only: the published comment shows neither.
function checkPlanAndRenderers(doc: Record<string, Json>): void {
  list(doc.layers, '"layers"', limits.manifests).forEach((layer, i) =>
    list(layer, `"layers"[${i}]`, limits.manifests).forEach((name, j) =>
      text(name, `"layers"[${i}][${j}]`, 300)
    )
  )
  if (doc.renderers === null) return
  const renderers = fields(doc.renderers, '"renderers"', Object.keys(doc.renderers ?? {}))
  for (const [name, version] of Object.entries(renderers)) text(version, `"renderers".${name}`, 200)
}

function problemOf(value: unknown, index: number): ConfigProblem {
  const what = `"problems"[${index}]`
  const p = fields(value, what, ['file', 'line', 'message'])
  const line = p.line
  if (line !== undefined && (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 0)) {
    throw new ReportError(`${what}.line is not a line number`)
  }
  return {
    file: neutralise(text(p.file, `${what}.file`, 1000)),
    ...(line === undefined ? {} : { line }),
    message: neutralise(text(p.message, `${what}.message`, limits.text))
  }
}

function riskOf(value: unknown, index: number): Risk {
  const what = `"risks"[${index}]`
  const r = fields(value, what, [
    'kind',
    'manifest',
    'key',
    'path',
    'message',
    'accepted',
    'server',
    'serverWarnings'
  ])
  if (!(riskKinds as readonly unknown[]).includes(r.kind))
    throw new ReportError(`${what}.kind is not a risk kind`)
  if (typeof r.accepted !== 'boolean') throw new ReportError(`${what}.accepted is not a boolean`)
  const manifest = text(r.manifest, `${what}.manifest`, 300)
  if (manifestNameProblem(manifest, 0) !== undefined)
    throw new ReportError(`${what}.manifest is not a manifest name`)
  return {
    kind: r.kind as Risk['kind'],
    manifest,
    key: stateKeyOf(r.key, `${what}.key`, manifest),
    path: neutralise(text(r.path, `${what}.path`, 1000)),
    message: inertMarkdown(text(r.message, `${what}.message`, limits.text)),
    ...(r.accepted ? { accepted: true } : {}),
    ...(r.server === undefined
      ? {}
      : { server: inertMarkdown(text(r.server, `${what}.server`, limits.text)) }),
    ...(r.serverWarnings === undefined
      ? {}
      : {
          serverWarnings: list(r.serverWarnings, `${what}.serverWarnings`, limits.warnings).map(
            (w, i) => inertMarkdown(text(w, `${what}.serverWarnings[${i}]`, limits.text))
          )
        })
  }
}

function snapshotOf(value: unknown): SnapshotSource {
  const s = fields(value, '"snapshot"', ['ref', 'commit', 'createdAt', 'writtenBy', 'baseSha'])
  const commit = text(s.commit, '"snapshot".commit', 64)
  if (commit !== '' && !shaPattern.test(commit))
    throw new ReportError('"snapshot".commit is not a commit id')
  const baseSha = s.baseSha === undefined ? undefined : text(s.baseSha, '"snapshot".baseSha', 64)
  if (baseSha !== undefined && !shaPattern.test(baseSha))
    throw new ReportError('"snapshot".baseSha is not a commit id')
  return {
    ref: neutralise(text(s.ref, '"snapshot".ref', 1000)),
    commit,
    createdAt: neutralise(text(s.createdAt, '"snapshot".createdAt', 100)),
    // Shown as code, never as a link: the fork could name any page.
    writtenBy: `${neutralise(text(s.writtenBy, '"snapshot".writtenBy', 1000))} (as the report says)`,
    ...(baseSha === undefined ? {} : { baseSha })
  }
}

function notComparedOf(value: unknown, index: number): NotComparedEntry {
  const what = `"notCompared"[${index}]`
  const e = fields(value, what, ['manifest', 'key'])
  const manifest = text(e.manifest, `${what}.manifest`, 300)
  if (manifestNameProblem(manifest, 0) !== undefined)
    throw new ReportError(`${what}.manifest is not a manifest name`)
  return { manifest, key: stateKeyOf(e.key, `${what}.key`, manifest) }
}
