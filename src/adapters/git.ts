/** The git facts the command line records: the commit checked out where tazuna.yaml is. */
import type { CommandRunner } from '../render/ports.js'
import { createExecRunner } from './command-runner.js'

/**
 * `git rev-parse HEAD` in `dir` (docs/compatibility.md#entry-and-metadata-bytes); any failure,
 * including git not being installed, gives `''` and never an error, as Tazuna does.
 */
export async function gitCommitOf(
  dir: string,
  runner: CommandRunner = createExecRunner()
): Promise<string> {
  try {
    const result = await runner.run('git', ['rev-parse', 'HEAD'], { cwd: dir })
    return result.exitCode === 0 ? result.stdout.trim() : ''
  } catch {
    return ''
  }
}
