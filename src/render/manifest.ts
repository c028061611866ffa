/**
 * Building one manifest (docs/compatibility.md#rendering): the raw text `tazuna build` prints
 * (docs/compatibility.md#build-output) and the objects, state entries and always-sync keys that
 * diff and apply use (docs/compatibility.md#yaml-to-objects, #diff-classification). Dispatches on
 * the manifest type; every error leaves here with registered secret values redacted.
 */
import path from 'node:path'
import { ConfigError } from '../errors.js'
import type { JsonObject } from '../go/yaml.js'
import type { BuildContext, BuildManifestSpec, PreparedHelmfile } from './context.js'
import type { HelmReleaseRender } from './ports.js'
import { buildGenesisSecret } from './genesissecret/genesissecret.js'
import {
  joinReleases,
  readHelmfileSpec,
  renderHelmfileReleases,
  type BuildRun,
  type RenderedRelease
} from './helmfile/helmfile.js'
import type { HelmfileSpec } from './helmfile/helmfile-spec.js'
import { renderKustomize } from './kustomize/kustomize.js'
import { delegateDefaultNamespace, delegateManifest } from './oras/oras.js'
import { desiredEntries, objectsFromYaml } from '../objects/objects.js'
import { createSecretRegistry } from './secrets.js'
import { objectsWithoutNamespace } from '../objects/kind-scope.js'
import { formatStateKey, stateKeyOf } from '../state/key.js'
import { missingNamespaceError, type ReleaseOrigin } from './missing-namespace.js'

/** A manifest's desired objects with their state entries (state key → ContentHash). */
export interface BuiltManifest {
  objects: JsonObject[]
  entries: Map<string, string>
  /**
   * Keys that are always applied and reported as `always-sync` (genesissecret,
   * docs/compatibility.md#diff-classification).
   */
  alwaysSync: Set<string>
  /** What its render record is made from; absent for types that are not recorded. */
  rendered?: RenderedSource
}

/**
 * What a render record is made from (docs/renderers.md#skipping-unchanged-renders): kustomize's
 * text (the program noted its reads by it), or a helmfile's text and every release's request in
 * release order (the program noted the chart's reads and volatile calls by the request).
 */
export type RenderedSource =
  | { type: 'kustomize'; text: string }
  | { type: 'helmfile'; text: string; releases: readonly HelmReleaseRender[] }

/**
 * Renders the manifest and converts it with its type's default namespace (kustomize and
 * helmfile `defaultNamespace`; none for genesissecret; for oras see defaultNamespaceOf), then
 * computes state entries. With `ctx.namespaceCheck`, a namespaced object left without a
 * namespace fails the build (docs/compatibility.md#objects-without-a-namespace). Throws for
 * unknown types.
 */
export async function buildManifest(
  manifest: BuildManifestSpec,
  ctx: BuildContext
): Promise<BuiltManifest> {
  return withRedaction(ctx, async (run) => {
    if (manifest.type === 'genesissecret') {
      const { objects } = await buildGenesisSecret(manifest, run)
      await checkNamespaces(objects, { manifest, run, defaultNamespace: '' })
      const entries = desiredEntries(manifest.name, objects)
      return { objects, entries, alwaysSync: new Set(entries.keys()) }
    }
    const { text, releases } = await renderOutput(manifest, run)
    const defaultNamespace = defaultNamespaceOf(manifest, ctx.orasNamespace)
    const objects = objectsFromYaml(
      text,
      { file: renderedFileName(manifest, run), defaultNamespace },
      run.renderer.documentsOf?.(text) ?? (await run.renderer.decode?.(text))
    )
    await checkNamespaces(objects, { manifest, run, defaultNamespace, releases })
    const entries = desiredEntries(manifest.name, objects)
    const rendered = renderedSource(manifest, text, releases)
    return { objects, entries, alwaysSync: new Set(), ...(rendered ? { rendered } : {}) }
  })
}

function renderedSource(
  manifest: BuildManifestSpec,
  text: string,
  releases: readonly RenderedRelease[] | undefined
): RenderedSource | undefined {
  if (manifest.type === 'kustomize') return { type: 'kustomize', text }
  if (manifest.type !== 'helmfile' || releases === undefined) return undefined
  return { type: 'helmfile', text, releases: releases.map((r) => r.request) }
}

/**
 * The requests a helmfile manifest's render would make of the render module, in release order,
 * without rendering: vars, hint, the helmfile's template, values files and remote charts are
 * resolved as for a render (docs/renderers.md#skipping-unchanged-renders), and the Secret values
 * met on the way, so that a render can take them over (BuildContext.preparedHelmfile).
 */
export async function helmfileRequests(
  manifest: BuildManifestSpec,
  ctx: BuildContext
): Promise<PreparedHelmfile> {
  const renderer = { ...ctx.renderer, helm: () => Promise.resolve('') }
  const secrets: string[] = []
  const registerSecret = (value: string): void => {
    secrets.push(value)
    ctx.registerSecret(value)
  }
  const { preparedHelmfile: _, ...fresh } = ctx
  const releases = await withRedaction({ ...fresh, renderer, registerSecret }, (run) =>
    renderHelmfileReleases(manifest, run)
  )
  return { requests: releases.map((r) => r.request), secrets }
}

/**
 * A helmfile manifest's helmfile as `chart list` reads it (vars, hint, template; no chart is
 * downloaded or rendered): its path and parsed spec. Errors leave with the secrets met redacted.
 */
export function readHelmfileOf(
  manifest: BuildManifestSpec,
  ctx: BuildContext
): Promise<{ file: string; spec: HelmfileSpec }> {
  return withRedaction(ctx, (run) => readHelmfileSpec(manifest, run))
}

interface NamespaceCheckInput {
  manifest: BuildManifestSpec
  run: BuildRun
  defaultNamespace: string
  releases?: readonly RenderedRelease[]
}

/** Throws the manifest's error when a namespaced object has no namespace (and ctx asks). */
async function checkNamespaces(objects: JsonObject[], input: NamespaceCheckInput): Promise<void> {
  const { manifest, run, defaultNamespace, releases } = input
  if (run.namespaceCheck === undefined) return
  const missing = await objectsWithoutNamespace(objects, run.namespaceCheck.lookup)
  if (missing.length === 0) return
  throw missingNamespaceError(missing, {
    manifest,
    file: renderedFileName(manifest, run),
    orasNamespace: run.orasNamespace ?? 'none',
    ...(releases === undefined
      ? {}
      : { releaseOf: releaseFinder(manifest, releases, defaultNamespace) })
  })
}

/** Which release rendered an object: each release's own output, converted again (errors only). */
function releaseFinder(
  manifest: BuildManifestSpec,
  releases: readonly RenderedRelease[],
  defaultNamespace: string
): (object: JsonObject) => ReleaseOrigin | undefined {
  const keyOf = (o: JsonObject): string => formatStateKey(stateKeyOf(manifest.name, o))
  let owners: Map<string, ReleaseOrigin> | undefined
  return (object) => {
    if (owners === undefined) {
      owners = new Map()
      for (const { release, text } of releases) {
        const file = `release ${release.name}`
        for (const o of objectsFromYaml(text, { file, defaultNamespace })) {
          if (!owners.has(keyOf(o))) owners.set(keyOf(o), release)
        }
      }
    }
    return owners.get(keyOf(object))
  }
}

/**
 * `build`'s warnings for the objects a diff or apply would refuse for their missing namespace
 * (docs/compatibility.md#objects-without-a-namespace): `text` is the manifest's raw output, `ctx`
 * the build's context (its `namespaceCheck.lookup`, if any, asked for kinds not built in).
 */
export async function missingNamespaceWarnings(
  manifest: BuildManifestSpec,
  text: string,
  ctx: BuildContext
): Promise<string[]> {
  const run = { ...ctx, redact: (t: string) => t, namespaceCheck: ctx.namespaceCheck ?? {} }
  const file = renderedFileName(manifest, run)
  let objects: JsonObject[]
  try {
    objects = objectsFromYaml(
      text,
      { file, defaultNamespace: defaultNamespaceOf(manifest) },
      ctx.renderer.documentsOf?.(text) ?? (await ctx.renderer.decode?.(text))
    )
  } catch {
    return [] // build does not convert: a diff or apply reports this one
  }
  try {
    await checkNamespaces(objects, { manifest, run, defaultNamespace: '' })
    return []
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.message.split('\n')
  }
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

/**
 * The directory a kustomize manifest renders, as its render asks the module for it (and a
 * render started early is looked up by, src/render/kustomize/early.ts).
 */
export function kustomizeDirOf(configDir: string, manifestPath: string): string {
  return path.resolve(configDir, manifestPath)
}

async function renderText(manifest: BuildManifestSpec, run: BuildRun): Promise<string> {
  return (await renderOutput(manifest, run)).text
}

/** The manifest's text and, for helmfile (and an oras helmfile delegate), each release's. */
async function renderOutput(
  manifest: BuildManifestSpec,
  run: BuildRun
): Promise<{ text: string; releases?: RenderedRelease[] }> {
  switch (manifest.type) {
    case 'kustomize': {
      const dir = kustomizeDirOf(run.configDir, manifest.path)
      // kustomize reads the directory itself: one outside the repository is refused here, with
      // the engine's own message, whatever the render says. The render is asked for at once
      // (docs/ARCHITECTURE.md#rendering-ahead); it cannot read outside either, as the program
      // confines its reads to the same directories (docs/renderers.md#native-programs).
      const rendering = renderKustomize(dir, run, shownPath(manifest.path, run.configDir))
      rendering.catch(() => undefined) // the check's failure is the one reported
      await run.files.kindOf(dir)
      return { text: await rendering }
    }
    case 'helmfile': {
      const releases = await renderHelmfileReleases(manifest, run)
      return { text: joinReleases(releases), releases }
    }
    case 'genesissecret':
      return { text: (await buildGenesisSecret(manifest, run)).text }
    case 'oras':
      return renderOutput(await delegateManifest(manifest, run), run)
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
