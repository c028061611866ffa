import * as core from '@actions/core'

/** The action's composition root: the one place that catches everything and fails the step. */
export async function run(): Promise<void> {
  try {
    core.info(`tazuna-action on Node ${process.versions.node}`)
    await Promise.resolve()
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error))
  }
}
