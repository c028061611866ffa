/**
 * What the GitHub adapters share: who the token writes as, and how a failed request is worded
 * without what Octokit errors carry besides (the request, its headers, the token).
 */
import type * as github from '@actions/github'

/** An Octokit client as @actions/github makes it. */
export type Octokit = ReturnType<typeof github.getOctokit>

/** The login GITHUB_TOKEN writes as; GET /user is refused for that token. */
export const actionsBotLogin = 'github-actions[bot]'

/**
 * The login the token writes as: a personal access token can say who it is; GITHUB_TOKEN (an
 * integration token) cannot and always writes as github-actions[bot].
 */
export async function authorLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated()
    return data.login
  } catch (error) {
    if (statusOf(error) === 403 || statusOf(error) === 401) return actionsBotLogin
    throw error
  }
}

/** The HTTP status of an Octokit error, if it has one. */
export function statusOf(error: unknown): number | undefined {
  return typeof error === 'object' &&
    error !== null &&
    typeof (error as { status?: unknown }).status === 'number'
    ? (error as { status: number }).status
    : undefined
}

/**
 * A failed request as the user reads it: `forbidden` for a 403 (a read-only token: the caller
 * turns it into a notice), else "<doing> failed", with only the status and GitHub's message.
 */
export function describeFailure(
  error: unknown,
  doing: string,
  forbidden: (message: string) => Error
): Error {
  const status = statusOf(error)
  const message = error instanceof Error ? error.message : String(error)
  if (status === 403) return forbidden(`GitHub answered 403: ${message}`)
  return new Error(
    status === undefined
      ? `${doing} failed: ${message}`
      : `${doing} failed: GitHub answered ${status}: ${message}`
  )
}
