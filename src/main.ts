/**
 * The action's composition root: inputs -> adapters -> flows. The one place that catches
 * everything and fails the step (house style); every other module throws.
 */
import * as core from '@actions/core'
import * as github from '@actions/github'
import os from 'node:os'
import path from 'node:path'
import packageJson from '../package.json' with { type: 'json' }
import { pullRequestOf } from './action/github-event.js'
import { runCheckFlow } from './action/check-flow.js'
import { runDiffFlow } from './action/diff-flow.js'
import { runMergeFlow } from './action/merge-flow.js'
import { runDriftFlow } from './action/drift-flow.js'
import { publishDriftIssue } from './adapters/github-issues.js'
import { createActionsRunner } from './adapters/actions-reporting.js'
import { writeKubeconfigFile } from './adapters/actions-files.js'
import { processEnginePorts } from './adapters/engine-ports.js'
import { firstKnownAncestry, gitAncestry } from './adapters/git.js'
import { githubAncestry } from './adapters/github-compare.js'
import { kubeconfigFileSecrets, kubeconfigSecrets } from './adapters/kubeconfig-secrets.js'
import { upsertStickyComment } from './adapters/github-comments.js'
import type { Runner } from './action/ports.js'
import type { CommitAncestry } from './apply/commit-guard.js'
import type { PathPolicy } from './config/confinement.js'
import { createEngine, type Engine, type LockRequest } from './engine/engine.js'
import { readSettings, type KubeconfigSource, type Settings } from './inputs.js'

/**
 * Runs the action: check, Diff (pull requests), apply (pushes) or drift (scheduled runs), as
 * the inputs say.
 */
export async function run(): Promise<void> {
  try {
    const settings = readSettings({
      input: (name) => core.getInput(name),
      env: (name) => process.env[name],
      eventName: github.context.eventName ?? ''
    })
    if (settings.githubToken !== '') core.setSecret(settings.githubToken)
    await runMode(settings)
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error))
  }
}

async function runMode(settings: Settings): Promise<void> {
  const env = process.env
  const runner = createActionsRunner({
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
    runnerTemp: env.RUNNER_TEMP,
    summaryFile: env.GITHUB_STEP_SUMMARY
  })
  const kubeconfig = kubeconfigPath(settings.kubeconfig, env.RUNNER_TEMP)
  const engine = createEngine(
    {
      file: settings.config,
      environment: settings.environment,
      tags: settings.tags,
      version: packageJson.version
    },
    processEnginePorts({
      env,
      ...(kubeconfig === undefined ? {} : { kubeconfig }),
      codeDir: import.meta.dirname,
      registerSecret: (value) => core.setSecret(value),
      log: { info: (message) => core.info(message), warn: (message) => core.warning(message) },
      onSessionOpened: (describe) => core.info(`Cluster: ${describe}`),
      ...(env.RUNNER_TEMP ? { tempDir: env.RUNNER_TEMP } : {}),
      confine: workspacePolicy(settings)
    })
  )
  const target = {
    config: settings.config,
    environment: settings.environment,
    sha: github.context.sha ?? ''
  }
  try {
    await runFlow(settings, engine, runner, target)
  } catch (error) {
    // Messages can quote rendered output or a tool's stderr: mask what the renderers registered.
    throw new Error(engine.redact(error instanceof Error ? error.message : String(error)), {
      cause: error
    })
  } finally {
    engine.close()
  }
}

async function runFlow(
  settings: Settings,
  engine: Engine,
  runner: Runner,
  target: { config: string; environment: string; sha: string }
): Promise<void> {
  if (settings.mode === 'check') return runCheckFlow({ engine, runner }, target)
  if (settings.mode === 'apply') {
    const { sync, prune, atomic } = settings
    return runMergeFlow(
      { engine, runner },
      {
        ...target,
        switches: { sync, prune, atomic },
        lock: actionLock(settings),
        commitGuard: {
          ancestry: actionAncestry(settings),
          allowOlderCommit: settings.allowOlderCommit
        }
      }
    )
  }
  const repository = repositoryOf()
  if (settings.mode === 'drift') {
    return runDriftFlow(
      { engine, runner, publishIssue: (issue) => publishDriftIssue(settings.githubToken, issue) },
      {
        ...target,
        failOnDrift: settings.failOnDrift,
        issue: settings.driftIssue,
        ...(repository ? { repository } : {}),
        hasToken: settings.githubToken !== '',
        ...summaryUrlOf()
      }
    )
  }
  const pullRequest = repository && pullRequestOf(github.context.payload, repository)
  return runDiffFlow(
    {
      engine,
      runner,
      postComment: (comment) => upsertStickyComment(settings.githubToken, comment)
    },
    {
      ...target,
      ...(pullRequest ? { pullRequest } : {}),
      comment: settings.comment,
      hasToken: settings.githubToken !== '',
      failOnDiff: settings.failOnDiff,
      ...summaryUrlOf()
    }
  )
}

// The kubeconfig input's text goes to a 0600 file under RUNNER_TEMP, never into the log. Every
// secret of the kubeconfig the run uses is masked first, as its bare value.
function kubeconfigPath(
  source: KubeconfigSource,
  runnerTemp: string | undefined
): string | undefined {
  if (source.kind === 'content') {
    for (const secret of kubeconfigSecrets(source.content)) core.setSecret(secret)
    return writeKubeconfigFile(runnerTemp, source.content)
  }
  const file = source.kind === 'path' ? source.path : undefined
  for (const secret of kubeconfigFileSecrets(file, process.env, os.homedir())) {
    core.setSecret(secret)
  }
  return file
}

// Reads stay in the checked-out repository, plus the directories the workflow allowed.
function workspacePolicy(settings: Settings): PathPolicy {
  const root = process.env.GITHUB_WORKSPACE || process.cwd()
  return { root, allowed: settings.allowedPaths.map((dir) => path.resolve(root, dir)) }
}

// Ancestry from the checkout's history; a shallow checkout (actions/checkout's default) asks
// GitHub's compare API, which has the whole history.
function actionAncestry(settings: Settings): CommitAncestry {
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  const repository = repositoryOf()
  return firstKnownAncestry([
    gitAncestry(workspace),
    ...(settings.githubToken !== '' && repository !== undefined
      ? [githubAncestry(settings.githubToken, repository.owner, repository.repo)]
      : [])
  ])
}

// The holder names the run, so whoever waits for the lock knows which one holds it.
function actionLock(settings: Settings): LockRequest {
  const { runId, runAttempt } = github.context
  const repository = process.env.GITHUB_REPOSITORY ?? ''
  return {
    holder: `github-actions ${repository} run ${runId} attempt ${runAttempt} on ${os.hostname()}`,
    waitSeconds: settings.lockTimeoutSeconds
  }
}

// context.repo throws when neither GITHUB_REPOSITORY nor the payload names the repository.
function repositoryOf(): { owner: string; repo: string } | undefined {
  try {
    return github.context.repo
  } catch {
    return undefined
  }
}

function summaryUrlOf(): { summaryUrl?: string } {
  const { serverUrl, runId } = github.context
  const repository = process.env.GITHUB_REPOSITORY
  if (!repository || !Number.isFinite(runId)) return {}
  const attempt = github.context.runAttempt
  const suffix = Number.isFinite(attempt) && attempt > 1 ? `/attempts/${attempt}` : ''
  return { summaryUrl: `${serverUrl}/${repository}/actions/runs/${runId}${suffix}` }
}
