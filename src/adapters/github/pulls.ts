/**
 * One pull request of the repository, as mode publish checks it against the triggering run
 * (src/action/publish-flow.ts): `GET /repos/{owner}/{repo}/pulls/{number}`.
 */
import * as github from '@actions/github'
import type { PullRequestState } from '../../action/publish-flow.js'
import { describeFailure } from './rest.js'

/** Reads pull request `number`; throws naming it when GitHub has none or refuses. */
export async function getPullRequest(
  token: string,
  repository: { owner: string; repo: string },
  number: number
): Promise<PullRequestState> {
  const octokit = github.getOctokit(token)
  try {
    const { data } = await octokit.rest.pulls.get({ ...repository, pull_number: number })
    return {
      number: data.number,
      state: data.state,
      headSha: data.head.sha,
      headRef: data.head.ref,
      headRepository: data.head.repo?.full_name ?? null,
      baseRepository: data.base.repo.full_name
    }
  } catch (error) {
    throw describeFailure(error, `reading pull request #${number}`, (m) => new Error(m))
  }
}
