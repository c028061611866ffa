/**
 * The Diff with content diffs: the head's Diff and render run concurrently with the before
 * side (the base commit's render, or the live objects), then each added / modified / removed
 * object gets its diff. A before side that cannot be had leaves one notice and the hashes —
 * never a failed job.
 */
import type { ConfigRun, Engine } from '../engine/engine.js'
import { computeContentDiffs, type ContentSource } from '../report/content-diff.js'
import type { ContentReport } from '../report/content-diff-markdown.js'
import type { ManifestDiff } from '../report/model.js'
import type { BeforeRender } from './base-render.js'

/** Where the before side comes from, and what it is (for the comment's wording). */
export interface BeforeSide {
  source: ContentSource
  /** The base commit (base mode). */
  baseSha?: string
  render: () => Promise<BeforeRender>
}

/** The Diff and, when a before side is given, its content report. */
export interface DiffWithContent {
  manifests: ManifestDiff[]
  content?: ContentReport
}

/** Runs the Diff and the before side concurrently; `now` times both for the job summary. */
export async function diffWithContent(
  engine: Pick<Engine, 'diff' | 'renderObjects' | 'redact'>,
  run: ConfigRun,
  deps: { before?: BeforeSide; now: () => number; notice: (message: string) => void }
): Promise<DiffWithContent> {
  const { before } = deps
  if (before === undefined) return { manifests: await engine.diff(run) }
  const started = deps.now()
  const head = timed(deps.now, started, async () => {
    const manifests = await engine.diff(run)
    return { manifests, objects: await engine.renderObjects(run) }
  })
  const other = timed(deps.now, started, before.render)
  const [h, b] = await Promise.allSettled([head, other])
  if (h.status === 'rejected') throw h.reason
  const { manifests, objects } = h.value.result
  const common = { source: before.source, ...(before.baseSha ? { baseSha: before.baseSha } : {}) }
  if (b.status === 'rejected') {
    const notice = unavailableNotice(before.source, engine.redact(messageOf(b.reason)))
    deps.notice(notice)
    return { manifests, content: { ...common, diffs: [], notice } }
  }
  const redact = (text: string): string => engine.redact(b.value.result.redact(text))
  const diffs = computeContentDiffs(
    manifests,
    { before: b.value.result.objects, head: objects },
    { source: before.source, redact }
  )
  const timings = { headMs: h.value.ms, beforeMs: b.value.ms }
  return { manifests, content: { ...common, diffs, timings } }
}

async function timed<T>(
  now: () => number,
  started: number,
  fn: () => Promise<T>
): Promise<{ result: T; ms: number }> {
  const result = await fn()
  return { result, ms: now() - started }
}

const unavailableNotice = (source: ContentSource, reason: string): string =>
  source === 'live'
    ? `No content diffs: the live objects could not be read (${reason}). The Diff shows hashes only.`
    : `No content diffs: the base commit could not be rendered (${reason}). The Diff shows hashes only.`

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error)
