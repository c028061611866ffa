/**
 * `type: kustomize` (docs/compatibility.md#kustomize): Tazuna runs krusty in-process with
 * MakeDefaultOptions(); we run the kustomize v5 CLI (or kubectl's embedded copy) with the flags
 * that make it the same build.
 */
import type { CommandRunner } from '../ports.js'
import type { ToolCommands } from '../context.js'
import { missingToolMessage, MissingToolError, runTool, type ToolName } from '../tools.js'

/**
 * krusty.MakeDefaultOptions() uses ReorderOptionNone, so Tazuna keeps resources in kustomization
 * order, whereas the CLI without `--reorder` applies the legacy sort (Namespaces first,
 * webhooks last). `--reorder none` restores Tazuna's order; it is deprecated (a warning on
 * stderr) but accepted by kustomize v5.8 and kubectl's kustomize. A kustomization's own
 * `sortOptions` still wins in both. Everything else is the CLI default and equals the krusty
 * defaults: load restrictor RootOnly, no Helm inflation, no alpha plugins or exec functions, no
 * managed-by label.
 */
export const KUSTOMIZE_BUILD_FLAGS = ['--reorder', 'none'] as const

/** Where to find kustomize and how to redact its output. */
export interface KustomizeRun {
  runner: CommandRunner
  tools?: ToolCommands
  redact: (text: string) => string
}

/**
 * Renders `dir` like `kustomize build`; when kustomize is not on PATH (and no explicit path was
 * configured) falls back to `kubectl kustomize`. Returns the YAML stream unchanged.
 */
export async function renderKustomize(dir: string, run: KustomizeRun): Promise<string> {
  const args = [...KUSTOMIZE_BUILD_FLAGS, dir]
  const describe = `kustomize build ${dir}`
  try {
    return await runTool(
      { runner: run.runner, tool: 'kustomize', command: run.tools?.kustomize, redact: run.redact },
      ['build', ...args],
      { describe }
    )
  } catch (error) {
    if (!isMissing(error, 'kustomize') || run.tools?.kustomize !== undefined) throw error
  }
  try {
    return await runTool(
      { runner: run.runner, tool: 'kubectl', command: run.tools?.kubectl, redact: run.redact },
      ['kustomize', ...args],
      { describe }
    )
  } catch (error) {
    if (isMissing(error, 'kubectl')) {
      throw new MissingToolError(
        `${describe}: ${missingToolMessage('kustomize')} (kubectl was not found either)`,
        'kustomize'
      )
    }
    throw error
  }
}

function isMissing(error: unknown, tool: ToolName): boolean {
  return error instanceof MissingToolError && error.tool === tool
}
