/**
 * `type: oras` (docs/compatibility.md#oras): pull the artifact (pull.ts), then render it with
 * its delegate as Tazuna does, through a synthesized manifest: the same name, type = the
 * delegate's type, path = the extracted directory joined with `target` (which may not leave
 * it), options = the delegate's options.
 */
import path from 'node:path'
import { ConfigError } from '../../errors.js'
import { goQuote } from '../../go/quote.js'
import type { BuildManifestSpec, OrasOptionsSpec } from '../context.js'
import type { OrasContext } from './ports.js'
import { pullArtifact } from './pull.js'
import type { HttpClient } from '../../http/ports.js'

/** Pulls the artifact and returns the manifest its delegate renders. */
export async function delegateManifest(
  manifest: BuildManifestSpec,
  deps: { oras?: OrasContext; http: HttpClient; registerSecret: (value: string) => void }
): Promise<BuildManifestSpec> {
  const spec = manifest.oras
  if (spec === undefined) {
    throw new ConfigError([], `oras: manifest ${goQuote(manifest.name)} has no oras spec`)
  }
  if (deps.oras === undefined) {
    throw new ConfigError(
      [],
      `manifest ${manifest.name}: type oras needs the artifact cache, which this run has not ` +
        '(it is $XDG_CACHE_HOME/tazuna/oras or $HOME/.cache/tazuna/oras: set one of them)'
    )
  }
  let pulled
  try {
    pulled = await pullArtifact(spec, {
      ...deps.oras,
      http: deps.http,
      registerSecret: deps.registerSecret
    })
  } catch (error) {
    throw prefixed(`oras: pull ${goQuote(spec.reference)}: `, error)
  }
  return delegatedSpec(manifest, spec, pulled.dir)
}

/** Tazuna's buildDelegateManifest: the delegate's manifest over the extracted directory. */
export function delegatedSpec(
  manifest: BuildManifestSpec,
  spec: OrasOptionsSpec,
  dir: string
): BuildManifestSpec {
  const target = (spec.target ?? '').replace(/^\//, '')
  const full = target === '' ? dir : path.join(dir, target)
  const relative = path.relative(path.resolve(dir), path.resolve(full))
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new ConfigError(
      [],
      `oras: invalid target path ${goQuote(spec.target ?? '')} (escapes artifact root)`
    )
  }
  const base = { name: manifest.name, path: full }
  switch (spec.delegate?.type) {
    case 'helmfile':
      return {
        ...base,
        type: 'helmfile',
        ...(spec.delegate.helmfile ? { helmfile: spec.delegate.helmfile } : {})
      }
    case 'kustomize':
      return {
        ...base,
        type: 'kustomize',
        ...(spec.delegate.kustomize ? { kustomize: spec.delegate.kustomize } : {})
      }
    default:
      throw new ConfigError(
        [],
        `oras: unsupported delegate type ${goQuote(spec.delegate?.type ?? '')}`
      )
  }
}

/** The default namespace of the delegate's options (plain apply's, see the caller). */
export function delegateDefaultNamespace(spec: OrasOptionsSpec | undefined): string {
  const delegate = spec?.delegate
  if (delegate?.type === 'kustomize') return delegate.kustomize?.defaultNamespace ?? ''
  if (delegate?.type === 'helmfile') return delegate.helmfile?.defaultNamespace ?? ''
  return ''
}

function prefixed(prefix: string, error: unknown): unknown {
  if (!(error instanceof Error)) return error
  error.message = prefix + error.message
  return error
}
