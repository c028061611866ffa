/**
 * The pull request a pushed commit came from and the Diff reviewed on it
 * (README.md#gated-deploys): `GET /repos/{owner}/{repo}/commits/{sha}/pulls` lists the pull
 * requests a commit belongs to — for a merge commit, a squash or a rebase merge, the merged pull
 * request whose merge_commit_sha it is — and the sticky comment there is found by marker AND
 * author, as the Diff flow finds it (src/adapters/github/comments.ts): a comment by anyone else
 * quoting the marker, with whatever digest, is never read.
 */
import * as github from '@actions/github'
import { CommentForbiddenError, type AppliedPost, type ReviewLookup } from '../../action/ports.js'
import { renderAppliedSection, withAppliedSection } from '../../report/applied-section.js'
import { commentBudget } from '../../report/comment.js'
import { parseMarker, sameTarget, type Marker } from '../../report/marker.js'
import type { ReportTarget } from '../../report/model.js'
import { parseEntriesBlock } from '../../report/reviewed-entries.js'
import { authorLogin, describeFailure, type Octokit } from './rest.js'

interface ListedPull {
  number: number
  html_url: string
  merged_at?: string | null
  merge_commit_sha?: string | null
  head: { sha: string }
}

interface ListedComment {
  id: number
  body?: string
  user: { login: string } | null
}

/** Finds the reviewed Diff of the pushed commit `target.sha`; never throws. */
export async function findReviewedDiff(
  token: string,
  repository: { owner: string; repo: string },
  target: ReportTarget
): Promise<ReviewLookup> {
  if (token === '') {
    return {
      source: { missing: 'the github-token input is empty, so no pull request was looked up' }
    }
  }
  const octokit = github.getOctokit(token)
  try {
    const pull = await mergedPullOf(octokit, repository, target.sha)
    if (pull === undefined) {
      return {
        source: {
          missing: `commit ${target.sha.slice(0, 12)} came from no merged pull request (a direct push)`
        }
      }
    }
    const pullRequest = { ...repository, number: pull.number }
    const comment = await stickyCommentOf(octokit, pullRequest, target)
    if (comment === undefined) {
      return {
        pullRequest,
        source: {
          pullRequest: pull.number,
          missing:
            `pull request #${pull.number} has no Diff comment of this action for this config and ` +
            'environment (its Diff job never ran, or could not comment)'
        }
      }
    }
    return {
      pullRequest,
      comment: { id: comment.id, body: comment.body },
      source: sourceOf(pull, comment)
    }
  } catch (error) {
    const failure = describeFailure(error, 'looking up the pull request', (m) => new Error(m))
    return { source: { missing: failure.message } }
  }
}

/** Adds the "Applied" section to the sticky comment, or posts it as a comment of its own. */
export async function postAppliedSection(
  token: string,
  post: AppliedPost
): Promise<{ url: string }> {
  const pr = post.lookup.pullRequest
  if (pr === undefined) throw new Error('no pull request to report the apply on')
  const octokit = github.getOctokit(token)
  try {
    const comment = post.lookup.comment
    const body = comment === undefined ? undefined : withAppliedSection(comment.body, post.note)
    if (comment !== undefined && body !== undefined) {
      const { data } = await octokit.rest.issues.updateComment({
        owner: pr.owner,
        repo: pr.repo,
        comment_id: comment.id,
        body
      })
      return { url: data.html_url }
    }
    const { data } = await octokit.rest.issues.createComment({
      owner: pr.owner,
      repo: pr.repo,
      issue_number: pr.number,
      body: renderAppliedSection(post.note, commentBudget)
    })
    return { url: data.html_url }
  } catch (error) {
    throw describeFailure(
      error,
      'reporting the apply on the pull request',
      (m) => new CommentForbiddenError(m)
    )
  }
}

async function mergedPullOf(
  octokit: Octokit,
  repository: { owner: string; repo: string },
  sha: string
): Promise<ListedPull | undefined> {
  const pulls: ListedPull[] = await octokit.paginate(
    octokit.rest.repos.listPullRequestsAssociatedWithCommit,
    { ...repository, commit_sha: sha, per_page: 100 }
  )
  const merged = pulls.filter((p) => typeof p.merged_at === 'string')
  return merged.find((p) => p.merge_commit_sha === sha) ?? merged[0]
}

async function stickyCommentOf(
  octokit: Octokit,
  pr: { owner: string; repo: string; number: number },
  target: ReportTarget
): Promise<{ id: number; body: string; marker: Marker } | undefined> {
  const author = await authorLogin(octokit)
  const comments: ListedComment[] = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: pr.owner,
    repo: pr.repo,
    issue_number: pr.number,
    per_page: 100
  })
  for (const c of comments) {
    if (c.user?.login !== author) continue
    const marker = parseMarker(c.body ?? '')
    if (marker !== undefined && sameTarget(marker, target)) {
      return { id: c.id, body: c.body ?? '', marker }
    }
  }
  return undefined
}

function sourceOf(
  pull: ListedPull,
  comment: { body: string; marker: Marker }
): ReviewLookup['source'] {
  const { marker } = comment
  if (marker.published === true) {
    return {
      pullRequest: pull.number,
      missing:
        `the comment on #${pull.number} was published from the pull request's own report (mode ` +
        'publish): the run that computed it could have altered it, so it records no reviewed Diff'
    }
  }
  if (marker.diff === undefined) {
    return {
      pullRequest: pull.number,
      missing:
        `the comment on #${pull.number} records no Diff (it predates reviewed-diff, or the ` +
        'configuration had problems when its Diff job ran)'
    }
  }
  const entries = parseEntriesBlock(comment.body)
  return {
    found: {
      where: `#${pull.number}`,
      pullRequest: pull.number,
      url: pull.html_url,
      lastHead: pull.head.sha,
      computedFor: marker.sha,
      digests: marker.diff,
      ...(entries === undefined ? {} : { entries })
    }
  }
}
