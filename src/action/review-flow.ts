/**
 * The merge flow's review gate and its report on the pull request (README.md#gated-deploys):
 * the gate the engine calls under the lock, what the log and the job summary say about it, and
 * the "Applied" section posted after the run, whatever its end. Missing `pull-requests: write`
 * is one warning, never a failure.
 */
import { compareWithReviewed, type GateVerdict } from '../report/diff-gate.js'
import { describeVerdict, refusalMessage } from '../report/gate-text.js'
import type { AppliedNote } from '../report/applied-section.js'
import type { ApplyReport } from '../report/model.js'
import type { ReviewGate } from '../engine/requests.js'
import {
  CommentForbiddenError,
  type AppliedPoster,
  type ReviewLookup,
  type Runner
} from './ports.js'

/** What the merge flow needs for the gate (input `reviewed-diff` warn or require, on push). */
export interface ReviewOptions {
  mode: 'warn' | 'require'
  /** Finds the pull request and its reviewed Diff; never throws. */
  lookup: () => Promise<ReviewLookup>
  postApplied: AppliedPoster
  /** The run's page, linked from the pull request. */
  runUrl?: string
}

/** The apply was refused by `reviewed-diff: require`; nothing was sent. */
export class ReviewRefusedError extends Error {
  override name = 'ReviewRefusedError'
}

/** One run's gate: the engine's callback and, once it ran, its verdict. */
export interface GateRun {
  gate: ReviewGate
  verdict(): GateVerdict | undefined
}

/** The gate for one lookup: logs the verdict, and refuses in require mode. */
export function gateOf(mode: ReviewOptions['mode'], lookup: ReviewLookup, runner: Runner): GateRun {
  let verdict: GateVerdict | undefined
  return {
    verdict: () => verdict,
    gate(diff) {
      verdict = compareWithReviewed(lookup.source, diff)
      const { headline, details } = describeVerdict(verdict)
      if (verdict.reviewed) return runner.info(headline)
      if (mode === 'require') throw new ReviewRefusedError(refusalMessage(verdict))
      runner.warning(
        [
          `${headline} Applying anyway (reviewed-diff: warn).`,
          ...details.map((d) => `  - ${d}`)
        ].join('\n')
      )
    }
  }
}

/** The job summary's review section (empty without a verdict). */
export function reviewSummary(verdict: GateVerdict | undefined): string {
  if (verdict === undefined) return ''
  const { headline, details } = describeVerdict(verdict)
  const mark = verdict.reviewed ? '✅' : '⚠️'
  return `### Review\n\n${mark} ${headline}\n${details.map((d) => `- ${d}\n`).join('')}\n`
}

/** Posts the "Applied" section when a pull request was found; a 403 becomes one warning. */
export async function reportOnPullRequest(
  deps: { runner: Runner; redact: (text: string) => string },
  review: ReviewOptions,
  lookup: ReviewLookup,
  outcome: { report?: ApplyReport; sha: string; verdict?: GateVerdict; refusal?: string }
): Promise<void> {
  if (lookup.pullRequest === undefined) return
  const note: AppliedNote = {
    sha: outcome.sha,
    ...(outcome.report === undefined ? {} : { report: outcome.report }),
    ...(review.runUrl === undefined ? {} : { runUrl: review.runUrl }),
    ...(outcome.verdict === undefined
      ? {}
      : { verdict: { ...describeVerdict(outcome.verdict), reviewed: outcome.verdict.reviewed } }),
    ...(outcome.refusal === undefined ? {} : { refusal: deps.redact(outcome.refusal) })
  }
  try {
    const posted = await review.postApplied({ lookup, note: redactedNote(note, deps.redact) })
    deps.runner.info(`The apply is reported on #${lookup.pullRequest.number}: ${posted.url}`)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (!(error instanceof CommentForbiddenError)) {
      deps.runner.warning(`The apply was not reported on #${lookup.pullRequest.number}: ${message}`)
      return
    }
    deps.runner.warning(
      `The apply was not reported on #${lookup.pullRequest.number}: ${message}. The workflow ` +
        'lacks `permissions: pull-requests: write`; the apply itself is unaffected.'
    )
  }
}

// Failure texts can quote rendered output: the same redaction as everything else posted.
function redactedNote(note: AppliedNote, redact: (text: string) => string): AppliedNote {
  if (note.report === undefined) return note
  const report = note.report
  return {
    ...note,
    report: {
      ...report,
      layers: report.layers.map((l) =>
        l.map((m) => (m.error === undefined ? m : { ...m, error: redact(m.error) }))
      ),
      ...(report.failure === undefined
        ? {}
        : { failure: { ...report.failure, message: redact(report.failure.message) } })
    }
  }
}
