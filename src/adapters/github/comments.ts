/**
 * The sticky pull-request comment: one comment per (config, environment), found again by its
 * hidden marker AND its author, then updated in place (README.md#the-pull-request-comment). A
 * user's comment that quotes the marker is never edited and never trusted.
 */
import * as github from '@actions/github'
import {
  CommentForbiddenError,
  type StickyComment,
  type StickyCommentResult
} from '../../action/ports.js'
import { parseMarker, sameTarget } from '../../report/marker.js'
import { authorLogin, describeFailure, type Octokit } from './rest.js'

export { CommentForbiddenError }

interface ListedComment {
  id: number
  html_url: string
  body?: string
  user: { login: string; type?: string } | null
}

/** Creates or updates the sticky comment; GITHUB_API_URL decides where requests go. */
export async function upsertStickyComment(
  token: string,
  comment: StickyComment
): Promise<StickyCommentResult> {
  const octokit = github.getOctokit(token)
  try {
    const author = await authorLogin(octokit)
    const existing = await findStickyComment(octokit, comment, author)
    if (existing === undefined) {
      const { data } = await octokit.rest.issues.createComment({
        owner: comment.owner,
        repo: comment.repo,
        issue_number: comment.issueNumber,
        body: comment.body
      })
      return { action: 'created', url: data.html_url, id: data.id }
    }
    if (existing.body === comment.body) {
      return { action: 'unchanged', url: existing.html_url, id: existing.id }
    }
    const { data } = await octokit.rest.issues.updateComment({
      owner: comment.owner,
      repo: comment.repo,
      comment_id: existing.id,
      body: comment.body
    })
    return { action: 'updated', url: data.html_url, id: data.id }
  } catch (error) {
    throw describeFailure(
      error,
      'posting the pull-request comment',
      (m) => new CommentForbiddenError(m)
    )
  }
}

async function findStickyComment(
  octokit: Octokit,
  comment: StickyComment,
  author: string
): Promise<ListedComment | undefined> {
  const comments: ListedComment[] = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: comment.owner,
    repo: comment.repo,
    issue_number: comment.issueNumber,
    per_page: 100
  })
  return comments.find((c) => {
    if (c.user?.login !== author) return false
    const marker = parseMarker(c.body ?? '')
    return marker !== undefined && sameTarget(marker, comment.target)
  })
}
