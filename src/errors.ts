/**
 * The few error classes the action reports to users. Each carries what the user must look at
 * (an input, a file and line, a manifest, an object, a command); none may carry a token, a
 * response header (but the texts of `Warning` headers, which users are shown) or a Secret value.
 */

/** Where in a user's file a problem is; `line` is 1-based. */
export interface SourceLocation {
  file: string
  line?: number
}

/** A wrong action input or command-line flag; names the input and the accepted values. */
export class InputError extends Error {
  override name = 'InputError'
}

/** One problem in tazuna.yaml, an include file, a helmfile or a rendered document. */
export interface ConfigProblem extends SourceLocation {
  message: string
}

/** Formats a problem as `file:line: message` (or `file: message` when the line is unknown). */
export function formatProblem(p: ConfigProblem): string {
  return p.line === undefined ? `${p.file}: ${p.message}` : `${p.file}:${p.line}: ${p.message}`
}

/** At most this many problems are printed; `problems` keeps them all. */
const MAX_PRINTED_PROBLEMS = 100

/**
 * Problems as lines for a message: the first 100, then `... and N more problems` (a hostile
 * file can hold thousands, docs/reliability.md#hostile-input).
 */
export function formatProblems(problems: readonly ConfigProblem[]): string[] {
  const lines = problems.slice(0, MAX_PRINTED_PROBLEMS).map(formatProblem)
  const rest = problems.length - lines.length
  return rest > 0 ? [...lines, `... and ${rest} more problems`] : lines
}

/**
 * Every problem found in a configuration, reported at once; the message lists the first
 * MAX_PRINTED_PROBLEMS and counts the rest (a hostile file can hold thousands).
 */
export class ConfigError extends Error {
  override name = 'ConfigError'
  readonly problems: readonly ConfigProblem[]
  /** The line before the problems (Tazuna's `check failed for tazuna.yaml at <path>`). */
  readonly headline: string | undefined
  constructor(problems: readonly ConfigProblem[], headline?: string) {
    const lines = formatProblems(problems)
    super(headline === undefined ? lines.join('\n') : [headline, ...lines].join('\n'))
    this.problems = problems
    this.headline = headline
  }
}

/**
 * An error as the action reports it (the failed step's annotation shows the first line): the
 * cause first. A ConfigError lists its problems (`file:line: message`) before its headline,
 * which names only the configuration's path; other errors keep their message, which already
 * starts with what failed and states the cause on the same line.
 */
export function causeFirst(error: unknown): string {
  if (error instanceof ConfigError && error.headline !== undefined && error.problems.length > 0) {
    return [...formatProblems(error.problems), `(${error.headline})`].join('\n')
  }
  return error instanceof Error ? error.message : String(error)
}

/** An external program that is missing or failed: names the command, exit code, stderr tail. */
export class ToolError extends Error {
  override name = 'ToolError'
}

/**
 * A size limit was exceeded (docs/reliability.md#size-limits): names the limit, what exceeded it
 * (file and line, or manifest and object) and by how much.
 */
export class LimitError extends Error {
  override name = 'LimitError'
}

/** A request to the Kubernetes API that failed: names the verb, the object and the API's message. */
export class ClusterError extends Error {
  override name = 'ClusterError'
  /**
   * The texts of the `Warning` headers the refusal came with (a deprecated version's), which a
   * refused dry run shows as an accepted one's (docs/risks.md#what-live-mode-adds); a Secret's
   * without the values they quote.
   */
  warnings: readonly string[] = []
  constructor(
    message: string,
    readonly code?: number
  ) {
    super(message)
  }
}

/** The `Warning` texts a refused request came with; none for other errors. */
export function warningsOfRefusal(error: unknown): readonly string[] {
  return error instanceof ClusterError ? error.warnings : []
}

/**
 * The server serves no such kind at that group/version (a removed API, a CRD not installed):
 * no object of it exists, and none can be written.
 */
export class NotServedError extends ClusterError {
  override name = 'NotServedError'
}

/** No kubeconfig at all (none named, none at ~/.kube/config, not in a cluster). */
export class NoKubeconfigError extends ClusterError {
  override name = 'NoKubeconfigError'
}
