/**
 * The engine's content-diff step, driven the same way by the action's Diff flow
 * (src/action/diff-flow.ts) and by `state diff --content` (src/cli/state-commands.ts): the
 * head's Diff and render run concurrently with the before side (the base commit's render, or
 * the live objects), then each added / modified / removed object gets its diff. A before side
 * that cannot be had leaves one notice and the hashes — never a failed job.
 */
import type { ConfigRun, Engine } from './engine.js'
import {
  computeContentDiffs,
  type ContentSource,
  type RenderedObjects
} from '../report/content-diff.js'
import { assessRisks, needsRecordedKeys } from '../risk/assess.js'
import type { Risk } from '../risk/model.js'
import type { ContentReport } from '../report/content-diff-markdown.js'
import type { ManifestDiff } from '../report/model.js'
import type { BeforeRender, HeadRendered } from './base-render.js'
import type { ApiReview } from './api-review.js'
import { canonicalJson } from '../state/hash.js'
import { settleWithheldSecrets, type NotComparedEntry } from '../state/snapshot-diff.js'

/**
 * Where the before side comes from: the base commit's render (rendered by `render`), or the
 * live objects, read after the Diff (each entry's live object and the dry run of its head).
 */
export type BeforeSide =
  | {
      source: 'base'
      /** The base commit, for the comment's wording. */
      baseSha?: string
      /**
       * Renders the base. `headRendered` settles when the head's renders are done: the base
       * renders after it (its checkout and load may start at once), so that it can reuse the
       * head's renders of unchanged manifests (docs/renderers.md#reusing-a-render), and only
       * the manifests it names (those with Diff entries).
       */
      render: (headRendered: HeadRendered) => Promise<BeforeRender>
    }
  | { source: 'live' }

/** The Diff, its risks and, when a before side is given, its content report. */
export interface DiffWithContent {
  manifests: ManifestDiff[]
  content?: ContentReport
  /** The risk pass over the Diff and both sides of its content diff (docs/risks.md). */
  risks: Risk[]
  /**
   * Against a State snapshot: the Secret entries whose change could not be told (their base and
   * head renders differ, or there is no base render); empty against the cluster.
   */
  notCompared: NotComparedEntry[]
}

/** What {@link diffWithContent} takes besides the engine and the run. */
export interface ContentDeps {
  before?: BeforeSide
  /** Milliseconds, for the render timings in the job summary. */
  now: () => number
  notice: (message: string) => void
  /**
   * The run's random key for Secret fingerprints (src/report/secret-fingerprint.ts), made by
   * the entry point; both sides of every diff take it.
   */
  fingerprintKey: Uint8Array
  /** Whether this run prunes (input `prune`), for the risk pass; undefined on the command line. */
  prune?: boolean
  /** A manifest that fails to render gets its error in the Diff (engine.diff's option). */
  keepFailures?: boolean
}

type ContentEngine = Pick<Engine, 'diff' | 'renderObjects' | 'liveObjects' | 'redact'> &
  Partial<Pick<Engine, 'listState' | 'reviewApis' | 'prepareReview'>>

const none: RenderedObjects = new Map()

/**
 * Runs the Diff and the before side concurrently (`now` times both for the job summary), then
 * the risk pass over both sides.
 */
export async function diffWithContent(
  engine: ContentEngine,
  run: ConfigRun,
  deps: ContentDeps
): Promise<DiffWithContent> {
  // The API checks start as soon as the Diff is known, beside the before side's render; their
  // program is unpacked from the start.
  if (engine.reviewApis !== undefined) engine.prepareReview?.()
  let review: Promise<ApiReview> = Promise.resolve({})
  const found = await contentOf(engine, run, deps, (manifests) => {
    if (engine.reviewApis !== undefined) review = engine.reviewApis(run, manifests)
  })
  const { apis, schema, notices = [] } = await review
  for (const notice of notices) deps.notice(engine.redact(notice))
  const risks = assessRisks({
    manifests: found.manifests,
    before: found.sides?.before ?? none,
    head: found.sides?.head ?? none,
    ...(deps.prune === undefined ? {} : { prune: deps.prune }),
    ...(found.sides?.refusals === undefined ? {} : { refusals: found.sides.refusals }),
    ...(found.sides?.warnings === undefined ? {} : { warnings: found.sides.warnings }),
    ...(apis === undefined ? {} : { apis }),
    ...(schema === undefined ? {} : { schema }),
    ...(await recordedKeys(engine, run, found.manifests))
  })
  return {
    manifests: found.manifests,
    ...(found.content === undefined ? {} : { content: found.content }),
    risks,
    notCompared: found.notCompared ?? []
  }
}

// A removed Namespace or CRD is told with what State records inside it: read State's keys then
// (the Diff does not keep them), and only then.
async function recordedKeys(
  engine: ContentEngine,
  run: ConfigRun,
  manifests: readonly ManifestDiff[]
): Promise<{ recorded?: string[] }> {
  if (engine.listState === undefined || !needsRecordedKeys(manifests)) return {}
  const listed = await engine.listState(run)
  return { recorded: listed.flatMap((l) => [...l.state.entries.keys()]) }
}

/** The Diff, its content report and the two sides the risk pass reads. */
interface FoundContent {
  manifests: ManifestDiff[]
  notCompared?: NotComparedEntry[]
  content?: ContentReport
  sides?: {
    before: RenderedObjects
    head: RenderedObjects
    refusals?: ReadonlyMap<string, ReadonlyMap<string, string>>
    warnings?: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>
  }
}

async function contentOf(
  engine: ContentEngine,
  run: ConfigRun,
  deps: ContentDeps,
  onDiff: (manifests: readonly ManifestDiff[]) => void
): Promise<FoundContent> {
  const { before } = deps
  const diff = diffTapped(engine, onDiff)
  if (before === undefined)
    return settled(await diff(run, { keepFailures: deps.keepFailures === true }))
  if (before.source === 'live') return liveContent(engine, run, deps, diff)
  const started = deps.now()
  // Only manifests with Diff entries have objects to show: the others render on neither side
  // (and a manifest its render record shows unchanged renders not at all).
  const head = timed(deps.now, started, async () => {
    const manifests = await diff(run, { keepFailures: deps.keepFailures === true })
    const changed = new Set(manifests.filter((m) => m.entries.length > 0).map((m) => m.manifest))
    return { manifests, changed, objects: await engine.renderObjects(run, changed) }
  })
  const headRendered = head.then(
    (h) => h.result.changed,
    () => undefined
  )
  const other = timed(deps.now, started, () => before.render(headRendered))
  const [h, b] = await Promise.allSettled([head, other])
  if (h.status === 'rejected') throw h.reason
  const { objects } = h.value.result
  const { manifests, notCompared } = settled(
    h.value.result.manifests,
    b.status === 'fulfilled' ? { before: b.value.result.objects, head: objects } : undefined
  )
  const common = {
    source: before.source,
    ...(before.baseSha ? { baseSha: before.baseSha } : {})
  }
  if (b.status === 'rejected') {
    const notice = unavailableNotice(before.source, engine.redact(messageOf(b.reason)))
    deps.notice(notice)
    return { manifests, notCompared, content: { ...common, diffs: [], notice } }
  }
  const redact = (text: string): string => engine.redact(b.value.result.redact(text))
  const diffs = computeContentDiffs(
    manifests,
    { before: b.value.result.objects, head: objects },
    { source: before.source, redact, fingerprintKey: deps.fingerprintKey }
  )
  const timings = { headMs: h.value.ms, beforeMs: b.value.ms }
  return {
    manifests,
    notCompared,
    content: { ...common, diffs, timings },
    sides: { before: b.value.result.objects, head: objects }
  }
}

// Live mode: the Diff first (it says which objects to read), then every entry's live object and
// dry run; a cluster that refuses (no patch permission) leaves the hashes and one notice.
async function liveContent(
  engine: Pick<Engine, 'liveObjects' | 'redact'>,
  run: ConfigRun,
  deps: Omit<ContentDeps, 'before'>,
  diff: Engine['diff']
): Promise<FoundContent> {
  const started = deps.now()
  const { manifests, notCompared } = settled(
    await diff(run, { keepFailures: deps.keepFailures === true })
  )
  const headMs = deps.now() - started
  try {
    const { live, proposed, refusals, warnings } = await engine.liveObjects(run, manifests)
    const diffs = computeContentDiffs(
      manifests,
      { before: live, head: proposed },
      {
        source: 'live',
        redact: (text) => engine.redact(text),
        fingerprintKey: deps.fingerprintKey
      }
    )
    const timings = { headMs, beforeMs: deps.now() - started - headMs }
    return {
      manifests,
      notCompared,
      content: { source: 'live', diffs, timings },
      sides: { before: live, head: proposed, refusals, warnings }
    }
  } catch (error) {
    const notice = unavailableNotice('live', engine.redact(messageOf(error)))
    deps.notice(notice)
    return { manifests, notCompared, content: { source: 'live', diffs: [], notice } }
  }
}

// The engine's diff, telling `onDiff` the Diff as soon as it is known.
function diffTapped(
  engine: Pick<Engine, 'diff'>,
  onDiff: (manifests: readonly ManifestDiff[]) => void
): Engine['diff'] {
  return async (run, options) => {
    const manifests = await engine.diff(run, options)
    onDiff(manifests)
    return manifests
  }
}

// A Diff against a State snapshot has Secret entries without a stored hash
// (docs/state-snapshots.md#the-diff-against-a-snapshot): one whose base and head renders are the
// same object is unchanged, any other is not compared. Against the cluster this changes nothing.
function settled(
  manifests: ManifestDiff[],
  sides?: { before: RenderedObjects; head: RenderedObjects }
): { manifests: ManifestDiff[]; notCompared: NotComparedEntry[] } {
  return settleWithheldSecrets(manifests, (manifest, key) => {
    const before = sides?.before.get(manifest)?.get(key)
    const head = sides?.head.get(manifest)?.get(key)
    return (
      before !== undefined && head !== undefined && canonicalJson(before) === canonicalJson(head)
    )
  })
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
