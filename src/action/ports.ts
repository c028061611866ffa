/**
 * What the action's flows (check, PR Diff, merge apply) need from the world, as small ports:
 * the Tazuna engine (src/engine), the runner (log, summary, outputs,
 * annotations, files) and the pull-request comment. main.ts binds them to @actions/* and the
 * engine; the flows stay free of side-effect imports.
 */
import type { Engine } from '../engine/engine.js'
import type { ConfigProblem } from '../errors.js'
import type { ReportTarget } from '../report/model.js'
import type { ReviewSource } from '../report/diff-gate.js'
import type { AppliedNote } from '../report/applied-section.js'

export type { CheckOutcome } from '../engine/engine.js'
export type { EngineLog } from '../engine/ports.js'

/**
 * The engine as the flows use it: check, then the Diff or the apply of the checked run
 * (src/engine/engine.ts; the command line drives the same engine).
 */
export type FlowEngine = Pick<
  Engine,
  | 'check'
  | 'diff'
  | 'renderObjects'
  | 'liveObjects'
  | 'listState'
  | 'apply'
  | 'connect'
  | 'redact'
  | 'renderers'
>

/** The runner: log, job summary, outputs, annotations and the report files. */
export interface Runner {
  info(message: string): void
  notice(message: string): void
  warning(message: string): void
  /** A collapsible log group around `lines`. */
  group(title: string, lines: readonly string[]): void
  annotate(problems: readonly ConfigProblem[]): void
  writeSummary(markdown: string): Promise<void>
  setOutputs(outputs: Readonly<Record<string, string>>): void
  /** Writes report.json, report.txt and (content diffs) report.diff; returns report.json's path. */
  writeReport(files: { json: string; text: string; diff?: string }): string
}

/** Where the sticky comment goes and what it says. */
export interface StickyComment {
  owner: string
  repo: string
  issueNumber: number
  /** Identifies the comment (with its author): one per config and environment. */
  target: ReportTarget
  body: string
}

/** What happened: created, updated, or left alone because the body was already the same. */
export interface StickyCommentResult {
  action: 'created' | 'updated' | 'unchanged'
  url: string
  id: number
}

/** GitHub refused a write (403): a read-only token, typically a fork's or Dependabot's. */
export class CommentForbiddenError extends Error {
  override name = 'CommentForbiddenError'
}

/** Posts or updates the sticky comment; throws CommentForbiddenError on a 403. */
export type CommentPoster = (comment: StickyComment) => Promise<StickyCommentResult>

/** The pull request a run is about, from the event payload. */
export interface PullRequest {
  owner: string
  repo: string
  number: number
  headSha: string
  /** The base branch's commit the pull request compares with (`pull_request.base.sha`). */
  baseSha?: string
  /** `owner/repo` of the head when it differs from the base (a fork). */
  forkOf?: string
}

/** The merged pull request a pushed commit came from, and this action's comment on it. */
export interface ReviewLookup {
  /** The reviewed Diff, or why none was found. */
  source: ReviewSource
  /** The merged pull request, when one was found. */
  pullRequest?: { owner: string; repo: string; number: number }
  /** This action's sticky comment on it (found by marker and author), when there is one. */
  comment?: { id: number; body: string }
}

/** Where the "Applied" section goes. */
export interface AppliedPost {
  lookup: ReviewLookup
  note: AppliedNote
}

/**
 * Adds the "Applied" section to the comment (or posts it as a new comment when that cannot be
 * edited); throws CommentForbiddenError on a 403.
 */
export type AppliedPoster = (post: AppliedPost) => Promise<{ url: string }>
