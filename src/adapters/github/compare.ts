/**
 * Ancestry from GitHub's compare API (`GET /repos/{owner}/{repo}/compare/{base}...{head}`),
 * which knows the whole history even when the checkout is shallow (actions/checkout's default).
 */
import * as github from '@actions/github'
import type { CommitAncestry } from '../../apply/commit-guard.js'
import { statusOf } from './rest.js'

/** Compare-API ancestry for one repository; any failure is `unknown` with the reason. */
export function githubAncestry(token: string, owner: string, repo: string): CommitAncestry {
  const octokit = github.getOctokit(token)
  return {
    async relate(recorded, current) {
      try {
        const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
          owner,
          repo,
          basehead: `${recorded}...${current}`,
          per_page: 1
        })
        // `ahead`: current descends from recorded; `identical`: the same commit.
        if (data.status === 'ahead' || data.status === 'identical') return { ancestry: 'ancestor' }
        return { ancestry: 'not-ancestor' }
      } catch (error) {
        const status = statusOf(error)
        return {
          ancestry: 'unknown',
          reason: `GitHub compare API: ${status === undefined ? 'no answer' : `HTTP ${status}`}`
        }
      }
    }
  }
}
