/**
 * The action's composition root: inputs -> adapters -> flows. The one place that catches
 * everything and fails the step (house style); every other module throws.
 */
import * as core from '@actions/core'
import * as github from '@actions/github'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import packageJson from '../package.json' with { type: 'json' }
import { pullRequestOf } from './action/github-event.js'
import { runCheckFlow } from './action/check-flow.js'
import { runDiffFlow } from './action/diff-flow.js'
import { runMergeFlow } from './action/merge-flow.js'
import { runDriftFlow } from './action/drift-flow.js'
import { runPublishFlow } from './action/publish-flow.js'
import { triggeringRunOf } from './action/workflow-run.js'
import { maxReportBytes } from './report/published-report.js'
import { readReportFile } from './adapters/files/report-file.js'
import { getPullRequest } from './adapters/github/pulls.js'
import {
  lockHolderOf,
  repositoryOf,
  runUrlOf,
  summaryUrlOf
} from './adapters/github/run-context.js'
import { publishDriftIssue } from './adapters/github/issues.js'
import { createActionsRunner } from './adapters/github/actions-reporting.js'
import { writeKubeconfigFile } from './adapters/github/actions-files.js'
import { processEnginePorts } from './adapters/engine-ports.js'
import { repositoryRootOf } from './adapters/files/repository-root.js'
import type { TwinCheckout } from './adapters/render/reuse.js'
import { firstKnownAncestry, gitAncestry } from './adapters/git.js'
import { gitSnapshotRefs } from './adapters/git-snapshot.js'
import { hasAmbientKubeconfig } from './adapters/kube/ambient-kubeconfig.js'
import type { ChosenStateSource } from './action/state-source.js'
import {
  snapshotPublishingOf,
  snapshotSourceOf,
  stateSourceOf,
  withStateSource,
  type SnapshotWorld
} from './action/snapshot-wiring.js'
import { githubAncestry } from './adapters/github/compare.js'
import { kubeconfigFileSecrets, kubeconfigSecrets } from './adapters/kube/kubeconfig-secrets.js'
import type { BearerAuth } from './adapters/kube/config.js'
import { IdTokenSource } from './adapters/kube/id-token.js'
import { upsertStickyComment } from './adapters/github/comments.js'
import { newFingerprintKey } from './adapters/fingerprint-key.js'
import { findReviewedDiff, postAppliedSection } from './adapters/github/reviewed.js'
import type { ReviewOptions } from './action/review-flow.js'
import type { Runner } from './action/ports.js'
import type { CommitAncestry } from './apply/commit-guard.js'
import { BASE_TREE, type PathPolicy } from './config/confinement.js'
import { createEngine, type Engine } from './engine/engine.js'
import type { EnginePorts, EngineSettings } from './engine/ports.js'
import { readSettings, type ClusterAuth, type KubeconfigSource, type Settings } from './inputs.js'
import { renderAtCommit } from './engine/base-render.js'
import type { BeforeSide } from './engine/content-diff.js'
import type { PullRequest } from './action/ports.js'
import { systemClock } from './adapters/clock.js'
import { stopOnSignals, type Termination } from './adapters/termination.js'
import { causeFirst } from './errors.js'
import { createSecretRegistry } from './render/secrets.js'

/**
 * Runs the action: check, Diff (pull requests), apply (pushes), drift (scheduled runs) or
 * publish (a fork's Diff, on workflow_run), as the inputs say.
 */
export async function run(): Promise<void> {
  let stop: Termination | undefined
  try {
    const settings = readSettings({
      input: (name) => core.getInput(name),
      env: (name) => process.env[name],
      eventName: github.context.eventName ?? ''
    })
    if (settings.githubToken !== '') core.setSecret(settings.githubToken)
    runSecrets.registerSecret(settings.githubToken)
    // A cancelled merge run ends its apply and reports it; every other mode holds no lock and
    // posts whole texts only, so the runner's signal ends it at once (docs/reliability.md#cancellation).
    if (settings.mode === 'apply') stop = stopOnSignals(actionStopMessages)
    await runMode(settings, stop)
  } catch (error) {
    core.setFailed(causeFirst(error))
  } finally {
    // A cancelled run that left something holding the process still ends at the grace
    // period's end (src/adapters/termination.ts).
    stop?.dispose()
  }
}

const actionStopMessages = {
  onFirst: (name: string) =>
    core.warning(
      `${name}: the run was cancelled. No request starts any more; the requests in flight ` +
        'finish, the manifests whose objects were all applied record their State, the lock is ' +
        'released, and the summary and the pull request say what was applied.'
    ),
  onUrgent: (why: string) => core.error(`stopping now (${why}): releasing the lock`)
}

async function runMode(settings: Settings, stop: Termination | undefined): Promise<void> {
  const env = process.env
  const runner = createActionsRunner({
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
    runnerTemp: env.RUNNER_TEMP,
    summaryFile: env.GITHUB_STEP_SUMMARY
  })
  if (settings.mode === 'publish') return runPublish(settings, runner)
  const kubeconfig = kubeconfigPath(settings.kubeconfig, env.RUNNER_TEMP)
  const bearer = bearerOf(settings.clusterAuth, env.GITHUB_WORKSPACE || process.cwd())
  const state = await stateSourceOf(settings, snapshotWorldOf(settings), runner)
  const engineSettings: EngineSettings = {
    file: settings.config,
    environment: settings.environment,
    tags: settings.tags,
    version: packageJson.version,
    orasPull: { offline: settings.orasOffline, noCache: settings.orasNoCache },
    ...(settings.skipUnchangedRenders ? {} : { renderAll: true })
  }
  const portsFor = (confine: PathPolicy, twin?: TwinCheckout): EnginePorts =>
    withStateSource(
      state,
      processEnginePorts({
        env,
        ...(kubeconfig === undefined ? {} : { kubeconfig }),
        ...(bearer === undefined ? {} : { bearer }),
        codeDir: import.meta.dirname,
        registerSecret: (value) => core.setSecret(value),
        onCredential: (value) => {
          core.setSecret(value)
          runSecrets.registerSecret(value)
        },
        log: { info: (message) => core.info(message), warn: (message) => core.warning(message) },
        announceRenderers: true,
        renderLimits: {
          timeoutMs: settings.renderTimeoutSeconds * 1000,
          maxOutputBytes: settings.maxRenderBytes,
          maxMemoryBytes: settings.maxRenderMemory
        },
        onSessionOpened: (describe) => core.info(`Cluster: ${describe}`),
        ...(env.RUNNER_TEMP ? { tempDir: env.RUNNER_TEMP } : {}),
        confine,
        ...(twin ? { twin } : {}),
        ...(stop ? { signal: stop.signal, beforeExit: stop.beforeExit } : {})
      })
    )
  const workspace = env.GITHUB_WORKSPACE || process.cwd()
  const ports = portsFor(pathPolicy(workspace, settings))
  // The base commit is rendered from a worktree outside the workspace: its reads are confined
  // to that worktree, with the same allowed directories.
  const basePortsFor = (file: string, twin: TwinCheckout): EnginePorts => {
    const dir = path.dirname(path.resolve(file))
    const policy = pathPolicy(repositoryRootOf(dir) ?? dir, settings)
    return portsFor({ ...policy, name: BASE_TREE }, twin)
  }
  const engine = createEngine(engineSettings, ports)
  const target = {
    config: settings.config,
    environment: settings.environment,
    ...(settings.target === '' ? {} : { target: settings.target }),
    sha: github.context.sha ?? ''
  }
  try {
    await runFlow(settings, { engine, ports, basePortsFor, engineSettings, state }, runner, target)
  } catch (error) {
    // Messages can quote rendered output or a tool's stderr: mask what the renderers registered.
    throw new Error(engine.redact(error instanceof Error ? error.message : String(error)), {
      cause: error
    })
  } finally {
    engine.close()
  }
}

// Mode publish reads one file, the report, and talks to GitHub only: no kubeconfig, no engine,
// no checkout, nothing of the fork run (docs/fork-pull-requests.md).
async function runPublish(settings: Settings, runner: Runner): Promise<void> {
  const repository = repositoryOf()
  const token = settings.githubToken
  if (repository === undefined) throw new Error('the run names no repository (GITHUB_REPOSITORY)')
  if (token === '') throw new Error('input "github-token" is empty: mode publish posts a comment')
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  await runPublishFlow(
    {
      runner,
      readReport: () => readReportFile(settings.report, workspace, maxReportBytes),
      getPullRequest: (number) => getPullRequest(token, repository, number),
      // The report cannot know this run's token; redacted all the same, as every posted text.
      postComment: (comment) =>
        upsertStickyComment(token, { ...comment, body: runSecrets.redact(comment.body) })
    },
    {
      repository,
      config: settings.config,
      environment: settings.environment,
      ...(settings.target === '' ? {} : { target: settings.target }),
      reportPath: settings.report,
      run: triggeringRunOf(github.context.eventName ?? '', github.context.payload)
    }
  )
}

/** Which report a run makes: config, environment, target (input, when set) and commit. */
interface FlowTarget {
  config: string
  environment: string
  target?: string
  sha: string
}

/** The head engine and what a second engine (over the base commit's files) is built from. */
interface Engines {
  engine: Engine
  ports: EnginePorts
  /** Ports for an engine over another checkout's tazuna.yaml (the base worktree). */
  basePortsFor: (file: string, twin: TwinCheckout) => EnginePorts
  engineSettings: EngineSettings
  /** Where a Diff reads State (input state-source). */
  state: ChosenStateSource
}

async function runFlow(
  settings: Settings,
  { engine, ports, basePortsFor, engineSettings, state }: Engines,
  runner: Runner,
  target: FlowTarget
): Promise<void> {
  if (settings.mode === 'check') return runCheckFlow({ engine, runner }, target)
  if (settings.mode === 'apply') {
    const { sync, prune, atomic, wait } = settings
    const review = reviewOptionsOf(settings, target)
    const snapshot = snapshotPublishing(settings, target)
    return runMergeFlow(
      { engine, runner, redact: (text) => runSecrets.redact(engine.redact(text)) },
      {
        ...target,
        switches: { sync, prune, atomic, ...(wait === undefined ? {} : { wait }) },
        lock: {
          holder:
            target.target === undefined
              ? lockHolderOf()
              : `${lockHolderOf()} target ${target.target}`,
          waitSeconds: settings.lockTimeoutSeconds
        },
        commitGuard: {
          ancestry: actionAncestry(settings),
          allowOlderCommit: settings.allowOlderCommit
        },
        ...(review === undefined ? {} : { review }),
        ...(snapshot === undefined ? {} : { snapshot })
      }
    )
  }
  const repository = repositoryOf()
  if (settings.mode === 'drift') {
    const snapshot = snapshotPublishing(settings, target)
    return runDriftFlow(
      { engine, runner, publishIssue: (issue) => publishDriftIssue(settings.githubToken, issue) },
      {
        ...target,
        failOnDrift: settings.failOnDrift,
        issue: settings.driftIssue,
        ...(repository ? { repository } : {}),
        hasToken: settings.githubToken !== '',
        ...summaryUrlOf(),
        ...(snapshot === undefined ? {} : { snapshot })
      }
    )
  }
  const pullRequest = repository && pullRequestOf(github.context.payload, repository)
  return runDiffFlow(
    {
      engine,
      runner,
      postComment: (comment) => upsertStickyComment(settings.githubToken, comment),
      ...beforeSideOf(settings, pullRequest, { ports, basePortsFor, engineSettings }),
      now: () => systemClock.now(),
      redact: (text) => runSecrets.redact(engine.redact(text)),
      // Made for this run and never written: its fingerprints confirm no guess of a value.
      fingerprintKey: newFingerprintKey()
    },
    {
      ...target,
      ...(pullRequest ? { pullRequest } : {}),
      comment: settings.comment,
      hasToken: settings.githubToken !== '',
      failOnDiff: settings.failOnDiff,
      failOnRisk: settings.failOnRisk,
      prune: settings.prune,
      ...summaryUrlOf(),
      ...snapshotSourceOf(state, pullRequest)
    }
  )
}

// The before side of content diffs. Base mode renders the pull request's base commit with a
// second engine over the same ports; live mode reads the cluster; without a pull request
// there is nothing to compare with.
function beforeSideOf(
  settings: Settings,
  pullRequest: PullRequest | undefined,
  head: Pick<Engines, 'ports' | 'basePortsFor' | 'engineSettings'>
): { before?: BeforeSide } {
  if (settings.contentDiff === 'off' || pullRequest === undefined) return {}
  if (settings.contentDiff === 'live') return { before: { source: 'live' } }
  const baseSha = pullRequest.baseSha ?? ''
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  return {
    before: {
      source: 'base',
      baseSha,
      render: (headRendered) =>
        renderAtCommit(
          baseSha,
          { workspace, config: settings.config },
          {
            runner: head.ports.runner,
            makeTempDir: (prefix) => head.ports.files.makeTempDir(prefix),
            engineFor: (file, twin) =>
              createEngine({ ...head.engineSettings, file }, head.basePortsFor(file, twin))
          },
          headRendered
        )
    }
  }
}

// Git, the file system and the environment, as the State snapshot wiring uses them.
function snapshotWorldOf(settings: Settings): SnapshotWorld {
  return {
    repositoryRootOf,
    refsOf: (root) => gitSnapshotRefs(root),
    kubeconfigGiven: () =>
      settings.kubeconfig.kind !== 'ambient' ||
      (settings.clusterAuth.kind === 'github-oidc' && settings.clusterAuth.server !== undefined) ||
      hasAmbientKubeconfig(process.env, os.homedir())
  }
}

// Secrets of the run itself (the token, the kubeconfig's credentials): masked in the log by the
// runner, and redacted here from what is posted through the API, which the runner never sees.
const runSecrets = createSecretRegistry()

// The kubeconfig input's text goes to a 0600 file under RUNNER_TEMP, never into the log. Every
// secret of the kubeconfig the run uses is masked first, as its bare value.
function kubeconfigPath(
  source: KubeconfigSource,
  runnerTemp: string | undefined
): string | undefined {
  if (source.kind === 'content') {
    for (const secret of kubeconfigSecrets(source.content)) {
      core.setSecret(secret)
      runSecrets.registerSecret(secret)
    }
    return writeKubeconfigFile(runnerTemp, source.content)
  }
  const file = source.kind === 'path' ? source.path : undefined
  for (const secret of kubeconfigFileSecrets(file, process.env, os.homedir())) {
    core.setSecret(secret)
    runSecrets.registerSecret(secret)
  }
  return file
}

// cluster-auth github-oidc: the job's ID token, requested as @actions/core requests it
// (ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN, which `permissions: id-token: write` sets), is the
// bearer token; getIDToken masks each token it gets, and the run's registry redacts it from
// what is posted through the API. One source per run: the head and base engines share it.
function bearerOf(auth: ClusterAuth, workspace: string): BearerAuth | undefined {
  if (auth.kind !== 'github-oidc') return undefined
  const tokens = new IdTokenSource(async () => {
    const token = await core.getIDToken(auth.audience)
    runSecrets.registerSecret(token)
    return token
  }, systemClock)
  const ca = auth.certificateAuthority
  let certificateAuthority: string | undefined
  if (ca?.kind === 'content') certificateAuthority = ca.content
  else if (ca?.kind === 'path') {
    const file = path.resolve(workspace, ca.path)
    try {
      certificateAuthority = readFileSync(file, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
      throw new Error(`input "certificate-authority": cannot read ${file} (${code})`, {
        cause: error
      })
    }
  }
  return {
    tokens,
    ...(auth.server === undefined ? {} : { server: auth.server }),
    ...(certificateAuthority === undefined ? {} : { certificateAuthority })
  }
}

// Reads stay in the checked-out repository, plus the directories the workflow allowed.
function pathPolicy(root: string, settings: Settings): PathPolicy {
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

// The review gate runs on push events only: there the pushed commit came from a merge (or a
// direct push); a manual apply run has no pull request to compare with.
function reviewOptionsOf(settings: Settings, target: FlowTarget): ReviewOptions | undefined {
  const mode = settings.reviewedDiff
  if (mode === 'off' || github.context.eventName !== 'push') return undefined
  const repository = repositoryOf()
  const token = settings.githubToken
  return {
    mode,
    lookup: () =>
      repository === undefined
        ? Promise.resolve({
            source: { missing: 'the run names no repository (GITHUB_REPOSITORY)' }
          })
        : findReviewedDiff(token, repository, target),
    postApplied: (post) => postAppliedSection(token, post),
    ...runUrlOf()
  }
}

// Input state-snapshot of a merge or drift run: published as this run (drift runs relabel it
// with the commit State records, src/action/snapshot-flow.ts).
function snapshotPublishing(settings: Settings, target: { sha: string }) {
  return snapshotPublishingOf(settings, snapshotWorldOf(settings), {
    commit: target.sha,
    writtenBy: runUrlOf().runUrl ?? `tazuna-action ${packageJson.version}`,
    version: packageJson.version,
    now: () => systemClock.now()
  })
}
