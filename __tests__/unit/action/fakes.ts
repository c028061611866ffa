import type { GateManifest } from '../../../src/report/diff-gate.js'
import type { ConfigProblem } from '../../../src/errors.js'
import type {
  CheckOutcome,
  EngineLog,
  FlowEngine,
  Runner,
  StickyComment
} from '../../../src/action/ports.js'
import type { ConfigRun, ListedState } from '../../../src/engine/engine.js'
import type { ApplyOutcome, ManifestDiff } from '../../../src/report/model.js'
import type { RenderedObjects } from '../../../src/report/content-diff.js'

/** A Runner that records what the flows published. */
export class RecordingRunner implements Runner {
  readonly log: string[] = []
  readonly notices: string[] = []
  readonly groups: { title: string; lines: readonly string[] }[] = []
  readonly annotations: ConfigProblem[] = []
  readonly outputs: Record<string, string> = {}
  summary = ''
  reports: { json: string; text: string; diff?: string }[] = []

  info(message: string): void {
    this.log.push(message)
  }
  notice(message: string): void {
    this.notices.push(message)
  }
  warning(message: string): void {
    this.log.push(`warning: ${message}`)
  }
  group(title: string, lines: readonly string[]): void {
    this.groups.push({ title, lines })
  }
  annotate(problems: readonly ConfigProblem[]): void {
    this.annotations.push(...problems)
  }
  writeSummary(markdown: string): Promise<void> {
    this.summary = markdown
    return Promise.resolve()
  }
  setOutputs(outputs: Readonly<Record<string, string>>): void {
    Object.assign(this.outputs, outputs)
  }
  writeReport(files: { json: string; text: string; diff?: string }): string {
    this.reports.push(files)
    return `/tmp/report-${this.reports.length}/report.json`
  }
}

/** The run a fake check hands out when it finds no problem (the flows only pass it back). */
export const fakeRun = { config: {}, manifests: [] } as unknown as ConfigRun

/**
 * An engine answering from fixed data; `secret` is what redact() hides. Its check returns
 * {@link fakeRun} when there is no problem, and diff and apply insist on getting it back.
 */
export function fakeEngine(options: {
  check?: CheckOutcome
  diffs?: ManifestDiff[]
  apply?: (log: EngineLog) => ApplyOutcome
  secret?: string
  /** What renderObjects answers (the head render for content diffs). */
  objects?: RenderedObjects
  /** The Diff apply hands a review gate, if the request has one, before it applies. */
  gateDiff?: GateManifest[]
  /** What listState answers. */
  states?: ListedState[]
}): FlowEngine & { calls: string[] } {
  const calls: string[] = []
  const redact = (text: string): string =>
    options.secret === undefined ? text : text.split(options.secret).join('***')
  return {
    calls,
    check: () => {
      calls.push('check')
      const outcome = options.check ?? { problems: [] }
      return Promise.resolve(outcome.problems.length > 0 ? outcome : { ...outcome, run: fakeRun })
    },
    diff: (run) => {
      calls.push('diff')
      if (run !== fakeRun) throw new Error('diff got a run that check did not return')
      return Promise.resolve(options.diffs ?? [])
    },
    renderObjects: (run, only) => {
      calls.push(only === undefined ? 'renderObjects' : `renderObjects ${[...only].join(',')}`)
      if (run !== fakeRun) throw new Error('renderObjects got a run that check did not return')
      return Promise.resolve(options.objects ?? new Map())
    },
    liveObjects: () => Promise.reject(new Error('live objects are not faked')),
    listState: () => {
      calls.push('listState')
      return Promise.resolve(options.states ?? [])
    },
    apply: async (run, { gitCommitHash, log, sync, prune, atomic, reviewGate }) => {
      if (run !== fakeRun) throw new Error('apply got a run that check did not return')
      calls.push(
        `apply ${gitCommitHash}${sync ? ' sync' : ''}${prune ? ' prune' : ''}${atomic ? ' atomic' : ''}`
      )
      if (reviewGate !== undefined) await reviewGate(options.gateDiff ?? [])
      return options.apply?.(log) ?? { layers: [] }
    },
    connect: () => void calls.push('connect'),
    redact,
    // The render module is not loaded by these fakes (flows report no renderers then).
    renderers: () => undefined
  }
}

/** A comment poster that records the comments. */
export function recordingPoster(
  answer: (c: StickyComment) => Promise<unknown> = () => Promise.resolve()
) {
  const posted: StickyComment[] = []
  const post = async (c: StickyComment) => {
    posted.push(c)
    await answer(c)
    return {
      action: 'created' as const,
      url: 'https://github.com/o/r/pull/1#issuecomment-1',
      id: 1
    }
  }
  return { posted, post }
}
