/**
 * `dependsOn` checks of `tazuna check` (docs/compatibility.md#check step 4) on the include-expanded
 * list: unknown and self references (all reported), then — only when there are none — a cycle,
 * found by the same layering the apply uses (src/plan/layers.ts).
 */
import type { ConfigProblem } from '../errors.js'
import { LayerError, resolveLayers } from '../plan/layers.js'
import { goQuote } from '../go/quote.js'
import type { Manifest } from './schema.js'

/** Every dependsOn problem of the expanded manifest list. */
export function validateDependsOn(manifests: readonly Manifest[]): ConfigProblem[] {
  const names = new Set(manifests.map((m) => m.name).filter((name) => name !== ''))
  const problems: ConfigProblem[] = []
  for (const manifest of manifests) {
    for (const dependency of manifest.dependsOn) {
      if (dependency === manifest.name) {
        problems.push({
          ...manifest.source,
          message: `manifest ${goQuote(manifest.name)} depends on itself`
        })
      } else if (!names.has(dependency)) {
        problems.push({
          ...manifest.source,
          message: `manifest ${goQuote(manifest.name)} dependsOn references unknown manifest ${goQuote(dependency)}`
        })
      }
    }
  }
  if (problems.length > 0) return problems
  return cycleProblems(manifests)
}

function cycleProblems(manifests: readonly Manifest[]): ConfigProblem[] {
  try {
    resolveLayers(manifests)
    return []
  } catch (error) {
    if (!(error instanceof LayerError)) throw error
    const first = manifests.find((m) => m.name === error.manifests[0]) ?? manifests[0]
    return [{ ...(first?.source ?? { file: '<unknown>' }), message: error.message }]
  }
}
