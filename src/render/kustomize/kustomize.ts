/**
 * `type: kustomize` (docs/compatibility.md#kustomize): krusty with MakeDefaultOptions() on the
 * directory, as Tazuna runs it, in the render module (docs/renderers.md). Those options keep
 * resources in kustomization order (no legacy sort), restrict loads to the kustomization root,
 * and enable no Helm inflation, plugins or exec functions.
 */
import { ToolError } from '../../errors.js'
import { RenderModuleError, type RenderModule } from '../ports.js'

/** The module to render with and how to redact its messages. */
export interface KustomizeRun {
  renderer: RenderModule
  redact: (text: string) => string
}

/**
 * Renders `dir` like Tazuna's kustomize Build; returns the YAML stream unchanged. A failure
 * names the directory as `shown` (the manifest's path as tazuna.yaml gives it), else `dir`.
 */
export async function renderKustomize(
  dir: string,
  run: KustomizeRun,
  shown: string = dir
): Promise<string> {
  try {
    return await run.renderer.kustomize(dir)
  } catch (error) {
    if (error instanceof RenderModuleError) {
      throw new ToolError(`kustomize build ${shown}: ${run.redact(error.message)}`)
    }
    throw error
  }
}
