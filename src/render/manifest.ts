/**
 * Building one manifest (docs/compatibility.md#rendering): the raw text `tazuna build` prints
 * (docs/compatibility.md#build-output) and the objects, state entries and always-sync keys that
 * diff and apply use (docs/compatibility.md#yaml-to-objects, #diff-classification). Dispatches on
 * the manifest type; every error leaves here with registered secret values redacted.
 */
import path from 'node:path'
import { ConfigError } from '../errors.js'
import type { JsonObject } from '../go/yaml.js'
import type { BuildContext, BuildManifestSpec } from './context.js'
import { buildGenesisSecret } from './genesissecret/genesissecret.js'
import { renderHelmfile, type BuildRun } from './helmfile/helmfile.js'
import { renderKustomize } from './kustomize/kustomize.js'
import { delegateDefaultNamespace, delegateManifest } from './oras/oras.js'
import { desiredEntries, objectsFromYaml } from '../objects/objects.js'
import { createSecretRegistry } from './secrets.js'

/** A manifest's desired objects with their state entries (state key → ContentHash). */
export interface BuiltManifest {
  objects: JsonObject[]
  entries: Map<string, string>
  /**
   * Keys that are always applied and reported as `always-sync` (genesissecret,
   * docs/compatibility.md#diff-classification).
   */
  alwaysSync: Set<string>
  /** What kustomize rendered (its render record is made from it); absent for other types. */
  rendered?: string
}

/**
 * Renders the manifest and converts it with its type's default namespace (kustomize and
 * helmfile `defaultNamespace`; none for genesissecret; for oras see defaultNamespaceOf), then
 * computes state entries. Throws for unknown types.
 */
export async function buildManifest(
  manifest: BuildManifestSpec,
  ctx: BuildContext
): Promise<BuiltManifest> {
  return withRedaction(ctx, async (run) => {
    if (manifest.type === 'genesissecret') {
      const { objects } = await buildGenesisSecret(manifest, run)
      const entries = desiredEntries(manifest.name, objects)
      return { objects, entries, alwaysSync: new Set(entries.keys()) }
    }
    const text = await renderText(manifest, run)
    const objects = objectsFromYaml(
      text,
      {
        file: renderedFileName(manifest, run),
        defaultNamespace: defaultNamespaceOf(manifest, ctx.orasNamespace)
      },
      run.renderer.documentsOf?.(text)
    )
    const entries = desiredEntries(manifest.name, objects)
    const rendered = manifest.type === 'kustomize' ? { rendered: text } : {}
    return { objects, entries, alwaysSync: new Set(), ...rendered }
  })
}

/** The manifest's raw Build output, as `tazuna build` collects it (no namespace injection). */
export async function renderManifestText(
  manifest: BuildManifestSpec,
  ctx: BuildContext
): Promise<string> {
  return withRedaction(ctx, (run) => renderText(manifest, run))
}

/**
 * The default namespace docs/compatibility.md#yaml-to-objects applies to this manifest type's
 * objects. For oras it is none, as Tazuna's runner has it for diff and sync, unless `oras` is
 * `delegate` (plain apply and destroy, which Tazuna runs through the delegate's own
 * conversion): docs/compatibility.md#oras-default-namespace.
 */
export function defaultNamespaceOf(
  manifest: BuildManifestSpec,
  oras: 'none' | 'delegate' = 'none'
): string {
  if (manifest.type === 'kustomize') return manifest.kustomize?.defaultNamespace ?? ''
  if (manifest.type === 'helmfile') return manifest.helmfile?.defaultNamespace ?? ''
  if (manifest.type === 'oras' && oras === 'delegate')
    return delegateDefaultNamespace(manifest.oras)
  return ''
}

async function renderText(manifest: BuildManifestSpec, run: BuildRun): Promise<string> {
  switch (manifest.type) {
    case 'kustomize': {
      const dir = path.resolve(run.configDir, manifest.path)
      // kustomize reads the directory itself: one outside the repository is refused here, with
      // the engine's own message, whatever the render says. The render is asked for at once
      // (docs/ARCHITECTURE.md#rendering-ahead); it cannot read outside either, as the program
      // confines its reads to the same directories (docs/renderers.md#native-kustomize).
      const rendering = renderKustomize(dir, run, shownPath(manifest.path, run.configDir))
      rendering.catch(() => undefined) // the check's failure is the one reported
      await run.files.kindOf(dir)
      return rendering
    }
    case 'helmfile':
      return renderHelmfile(manifest, run)
    case 'genesissecret':
      return (await buildGenesisSecret(manifest, run)).text
    case 'oras':
      return renderText(await delegateManifest(manifest, run), run)
    default:
      throw new ConfigError(
        [],
        `manifest ${manifest.name}: unsupported manifest type: ${manifest.type}`
      )
  }
}

/**
 * A manifest's directory for messages: relative to tazuna.yaml's directory, as the user wrote
 * it (normalised); an absolute path (an oras delegate's, in the artifact cache) as it is.
 */
function shownPath(manifestPath: string, configDir: string): string {
  if (path.isAbsolute(manifestPath)) return manifestPath
  return path.relative(path.resolve(configDir), path.resolve(configDir, manifestPath)) || '.'
}

function renderedFileName(manifest: BuildManifestSpec, run: BuildRun): string {
  const file = path.relative(run.configDir, path.resolve(run.configDir, manifest.path)) || '.'
  return `${file} (rendered by ${manifest.type} for manifest ${manifest.name})`
}

/**
 * Runs `fn` with a registry that forwards to ctx.registerSecret and can redact; any error
 * thrown is rebuilt with every value registered so far replaced by `***`.
 */
async function withRedaction<T>(ctx: BuildContext, fn: (run: BuildRun) => Promise<T>): Promise<T> {
  const secrets = createSecretRegistry(ctx.registerSecret)
  try {
    return await fn({ ...ctx, registerSecret: secrets.registerSecret, redact: secrets.redact })
  } catch (error) {
    throw redactError(error, secrets.redact)
  }
}

function redactError(error: unknown, redact: (text: string) => string): unknown {
  if (!(error instanceof Error)) return error
  const redacted =
    error instanceof ConfigError
      ? new ConfigError(error.problems.map((p) => ({ ...p, message: redact(p.message) })))
      : error
  redacted.message = redact(error.message)
  redacted.stack = error.stack === undefined ? undefined : redact(error.stack)
  return redacted
}
