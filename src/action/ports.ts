/**
 * What the action's flows (check, PR Diff, merge apply) need from the world, as small ports:
 * the Tazuna engine (config, renderers, cluster), the runner (log, summary, outputs,
 * annotations, files) and the pull-request comment. main.ts binds them to @actions/*, the
 * kube session and the renderers; the flows stay free of side-effect imports.
 */
import type { ConfigProblem } from '../errors.js'
import type { ApplyOutcome, ApplyPlan, ManifestDiff, ReportTarget } from '../report/model.js'

/** The outcome of `tazuna check` (no cluster): every problem, and the plan when it resolved. */
export interface CheckOutcome {
  problems: ConfigProblem[]
  plan?: ApplyPlan
}

/** Log lines a layered apply emits while it runs (manifests of a layer run concurrently). */
export interface EngineLog {
  info(message: string): void
  warn(message: string): void
}

/** Tazuna's engine over one configuration, environment and kubeconfig. */
export interface Engine {
  /** Template, schema, includes, names, dependsOn; never contacts the cluster. */
  check(): Promise<CheckOutcome>
  /** Every manifest's Diff against its recorded State (read-only, `tazuna state diff`). */
  diff(): Promise<ManifestDiff[]>
  /** `tazuna state diff`'s exact text for the Diffs. */
  diffText(diffs: readonly ManifestDiff[]): string
  /** Layered apply with the run's sync/prune/atomic/tags; records `gitCommitHash` in State. */
  apply(options: { gitCommitHash: string; log: EngineLog }): Promise<ApplyOutcome>
  /** Replaces every registered secret value in `text`. */
  redact(text: string): string
  /** Releases connections; the engine is not used afterwards. */
  close(): void
}

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
  /** Writes report.json and report.txt; returns report.json's path. */
  writeReport(files: { json: string; text: string }): string
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
  /** `owner/repo` of the head when it differs from the base (a fork). */
  forkOf?: string
}
