/**
 * The runner's reporting channels: job summary, step outputs, file/line annotations. Thin
 * wrappers over @actions/core so main.ts reads as the flow it is.
 */
import * as core from '@actions/core'
import { relative, resolve, sep } from 'node:path'
import type { Runner } from '../../action/ports.js'
import type { ConfigProblem } from '../../errors.js'
import { writeReportFiles } from './actions-files.js'

/**
 * Replaces this step's job summary. Outside a runner (no GITHUB_STEP_SUMMARY) the summary is
 * skipped with a log line instead of failing the run.
 */
export async function writeJobSummary(
  markdown: string,
  summaryFile: string | undefined
): Promise<boolean> {
  if (summaryFile === undefined || summaryFile === '') {
    core.info('GITHUB_STEP_SUMMARY is not set; no job summary written')
    return false
  }
  await core.summary.emptyBuffer().addRaw(markdown, true).write({ overwrite: true })
  return true
}

/** Sets step outputs (strings only: counts, names, paths; never report bodies). */
export function setOutputs(outputs: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value)
}

/**
 * One error annotation per problem on its file and line. GitHub places annotations by paths
 * relative to the repository root, so paths inside the workspace are made relative to it.
 */
export function annotateProblems(problems: readonly ConfigProblem[], workspace: string): void {
  for (const p of problems) {
    core.error(p.message, {
      title: 'tazuna check',
      file: workspacePath(p.file, workspace),
      ...(p.line === undefined ? {} : { startLine: p.line })
    })
  }
}

const workspacePath = (file: string, workspace: string): string => {
  const path = relative(workspace, resolve(workspace, file))
  return path.startsWith(`..${sep}`) || path === '..' ? file : path.split(sep).join('/')
}

/** Where the runner wants files and which paths annotations are relative to. */
export interface RunnerPaths {
  workspace: string
  runnerTemp: string | undefined
  summaryFile: string | undefined
}

/** The flows' Runner port on @actions/core and the files under RUNNER_TEMP. */
export function createActionsRunner(paths: RunnerPaths): Runner {
  return {
    info: (message) => core.info(message),
    notice: (message) => core.notice(message),
    warning: (message) => core.warning(message),
    group: (title, lines) => {
      core.startGroup(title)
      for (const line of lines) core.info(line)
      core.endGroup()
    },
    annotate: (problems) => annotateProblems(problems, paths.workspace),
    writeSummary: async (markdown) => {
      await writeJobSummary(markdown, paths.summaryFile)
    },
    setOutputs,
    writeReport: (files) => writeReportFiles(paths.runnerTemp, files)
  }
}
