/**
 * The drift issue: one open issue per (config, environment), found by the hidden marker on its
 * body's first line AND its author (as the sticky comment is), so an issue a user opens with a
 * pasted marker is never edited or closed. Never a second open one: a drifted run updates the
 * issue it finds in place; a clean run comments and closes it.
 */
import * as github from '@actions/github'
import {
  IssueForbiddenError,
  type DriftIssue,
  type DriftIssueResult
} from '../../action/drift-flow.js'
import { isDriftIssueOf } from '../../report/drift-issue.js'
import { authorLogin, describeFailure, type Octokit } from './rest.js'

export { IssueForbiddenError }

interface ListedIssue {
  number: number
  html_url: string
  body?: string | null
  user: { login: string } | null
  pull_request?: unknown
}

/** Creates, updates or closes the drift issue; GITHUB_API_URL decides where requests go. */
export async function publishDriftIssue(
  token: string,
  issue: DriftIssue
): Promise<DriftIssueResult> {
  const octokit = github.getOctokit(token)
  const repo = { owner: issue.owner, repo: issue.repo }
  try {
    const existing = await findDriftIssue(octokit, issue, await authorLogin(octokit))
    if (!issue.drifted) {
      if (existing === undefined) return { action: 'none' }
      await octokit.rest.issues.createComment({
        ...repo,
        issue_number: existing.number,
        body: issue.resolvedComment
      })
      await octokit.rest.issues.update({
        ...repo,
        issue_number: existing.number,
        state: 'closed',
        state_reason: 'completed'
      })
      return { action: 'closed', url: existing.html_url }
    }
    if (existing === undefined) {
      const { data } = await octokit.rest.issues.create({
        ...repo,
        title: issue.title,
        body: issue.body
      })
      return { action: 'created', url: data.html_url }
    }
    if (existing.body === issue.body) return { action: 'unchanged', url: existing.html_url }
    await octokit.rest.issues.update({ ...repo, issue_number: existing.number, body: issue.body })
    return { action: 'updated', url: existing.html_url }
  } catch (error) {
    throw describeFailure(
      error,
      'keeping the drift issue current',
      (m) => new IssueForbiddenError(m)
    )
  }
}

async function findDriftIssue(
  octokit: Octokit,
  issue: DriftIssue,
  author: string
): Promise<ListedIssue | undefined> {
  const issues: ListedIssue[] = await octokit.paginate(octokit.rest.issues.listForRepo, {
    owner: issue.owner,
    repo: issue.repo,
    state: 'open',
    per_page: 100
  })
  return issues.find(
    (i) =>
      i.pull_request === undefined &&
      i.user?.login === author &&
      isDriftIssueOf(i.body ?? '', issue.target)
  )
}
