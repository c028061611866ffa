/**
 * Which renderers produced a report's objects (docs/renderers.md): State hashes are computed
 * over rendered objects, so the versions belong next to every Diff and apply.
 */
import type { RendererVersions } from '../render/ports.js'

const NAMES: Readonly<Record<string, string>> = {
  'sigs.k8s.io/kustomize/api': 'kustomize api',
  'helm.sh/helm/v3': 'Helm SDK'
}

/** `kustomize api v0.21.1, Helm SDK v3.21.4` (renderers only, in a fixed order). */
export function describeRenderers(versions: RendererVersions): string {
  return Object.keys(NAMES)
    .filter((module) => versions[module] !== undefined)
    .map((module) => `${NAMES[module]} ${versions[module]}`)
    .join(', ')
}

/** The job summary's last line; empty when nothing was rendered by the module. */
export function renderersFooter(versions: RendererVersions | undefined): string {
  if (versions === undefined) return ''
  const described = describeRenderers(versions)
  return described === '' ? '' : `\n\n<sub>Rendered with ${described}, as Tazuna.</sub>\n`
}

/** `{ renderers }` for a report when the engine rendered with the module, else nothing. */
export function renderersOf(engine: { renderers(): RendererVersions | undefined }): {
  renderers?: RendererVersions
} {
  const versions = engine.renderers()
  return versions === undefined ? {} : { renderers: versions }
}
