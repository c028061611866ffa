/**
 * `type: helmfile` — Tazuna's "helmfile subset" (docs/compatibility.md#helmfile): resolve vars,
 * apply tazuna.hint.yaml, find and render the helmfile as a Go template, then render every release
 * with `helm template` (≤4 at a time, output in release order) and join the outputs.
 */
import path from 'node:path'
import { ConfigError, ToolError } from '../../errors.js'
import { helmfileTemplateData, TemplateError } from '../../go/template/engine.js'
import { parseYamlDocument, type JsonObject } from '../../go/yaml.js'
import type { BuildContext, BuildManifestSpec } from '../context.js'
import { RenderModuleError, type BuildFiles, type HelmReleaseRender } from '../ports.js'
import { HINT_FILE, applyHint, parseHint } from './hint.js'
import { resolveChartSource, selectCapabilities, type ChartSource } from './helm-release.js'
import { parseHelmfileSpec, type HelmRelease, type HelmfileSpec } from './helmfile-spec.js'
import { resolveHelmfileVars } from './helmfile-vars.js'
import { fetchOpItem } from '../genesissecret/onepassword.js'
import { ChartFetchError, fetchChart } from './chart-fetch.js'
import { planValuesSources, ValuesEntryError, type ValuesSource } from './values.js'

/**
 * Helmfile names tried, in order, when `path` is a directory (docs/compatibility.md#helmfile step
 * 2).
 */
export const HELMFILE_NAMES = [
  'helmfile.yaml.gotmpl',
  'helmfile.yaml',
  'helmfile.yml.gotmpl',
  'helmfile.yml'
] as const

/** Releases rendered at the same time, as in Tazuna. */
export const RELEASE_CONCURRENCY = 4

/** A BuildContext whose secrets can also be redacted. */
export type BuildRun = BuildContext & { redact: (text: string) => string }

/** Renders a helmfile manifest to the YAML text Tazuna's Build returns. */
export async function renderHelmfile(manifest: BuildManifestSpec, run: BuildRun): Promise<string> {
  return joinReleases(await renderHelmfileReleases(manifest, run))
}

/** One release's output, in release order, and the render that made it. */
export interface RenderedRelease {
  release: { name: string; namespace: string }
  text: string
  /** What the render module was asked: the release's whole input (its render record's part). */
  request: HelmReleaseRender
}

/** The text of rendered releases as Tazuna's Build returns it: empty outputs left out. */
export function joinReleases(releases: readonly RenderedRelease[]): string {
  return releases
    .map((r) => r.text)
    .filter((o) => o !== '')
    .join('\n---\n')
}

/** Renders every release of a helmfile manifest, in release order. */
export async function renderHelmfileReleases(
  manifest: BuildManifestSpec,
  run: BuildRun
): Promise<RenderedRelease[]> {
  const prepared = run.preparedHelmfile?.(manifest)
  if (prepared !== undefined) {
    for (const secret of prepared.secrets) run.registerSecret(secret)
    // The check resolved them with the capabilities of the run's start, and an earlier layer may
    // have added a CRD since (docs/compatibility.md#crd-establishment): they render with the
    // capabilities this render is given, as a render without a check does.
    const capabilities = selectCapabilities(manifest.helmfile?.kubeVersion, run.capabilities)
    return mapInOrder(prepared.requests, RELEASE_CONCURRENCY, async (resolved, index) => {
      const request = { ...resolved, ...capabilities }
      return {
        release: { name: request.name, namespace: request.namespace },
        text: await renderRequest(manifest, run, request, index),
        request
      }
    })
  }
  const { file, spec } = await readHelmfileSpec(manifest, run)
  const outputs = await mapInOrder(spec.releases, RELEASE_CONCURRENCY, (release, index) =>
    renderRelease({ manifest, run, spec, release, index, helmfileDir: path.dirname(file) })
  )
  return outputs.map(({ text, request }, i) => {
    const { name, namespace } = spec.releases[i] ?? { name: '', namespace: '' }
    return { release: { name, namespace }, text, request }
  })
}

/**
 * The helmfile of a manifest, found, rendered as a template with the manifest's vars (hint
 * applied) and parsed, as Tazuna's Build and ListReleases read it; repository passwords are
 * registered as secrets.
 */
export async function readHelmfileSpec(
  manifest: BuildManifestSpec,
  run: BuildRun
): Promise<{ file: string; spec: HelmfileSpec }> {
  const where = `manifest ${manifest.name}`
  const manifestPath = path.resolve(run.configDir, manifest.path)
  const vars = await helmfileVars(manifest, manifestPath, run, where)
  const file = await resolveHelmfileFile(run.files, manifestPath, where)
  const spec = await renderHelmfileSpec(file, vars, run)
  for (const repo of spec.repositories) if (repo.password !== '') run.registerSecret(repo.password)
  return { file, spec }
}

async function helmfileVars(
  manifest: BuildManifestSpec,
  manifestPath: string,
  run: BuildRun,
  where: string
): Promise<JsonObject> {
  const vars = await resolveHelmfileVars(
    manifest.helmfile?.vars ?? {},
    {
      lookupEnv: run.lookupEnv,
      registerSecret: run.registerSecret,
      fetchOpItem: (vault, item, describe) =>
        fetchOpItem(
          { runner: run.runner, command: run.tools?.op, redact: run.redact },
          vault,
          item,
          describe
        )
    },
    where
  )
  // docs/compatibility.md#hint-file-lookup: Tazuna looks in dir(path) — the parent directory when
  // `path` is a directory.
  const hintPath = path.join(path.dirname(manifestPath), HINT_FILE)
  const hintText = await readIfExists(run.files, hintPath)
  if (hintText === undefined) return vars
  return applyHint(parseHint(parseYamlDocument(hintText, hintPath), hintPath), vars)
}

/** The helmfile itself: `path` when it is a file, else the first of HELMFILE_NAMES inside it. */
export async function resolveHelmfileFile(
  files: BuildFiles,
  manifestPath: string,
  where: string
): Promise<string> {
  const kind = await files.kindOf(manifestPath)
  if (kind === undefined) throw new ConfigError([], `${where}: path ${manifestPath} does not exist`)
  if (kind !== 'directory') return manifestPath
  for (const name of HELMFILE_NAMES) {
    const candidate = path.join(manifestPath, name)
    if ((await files.kindOf(candidate)) === 'file') return candidate
  }
  throw new ConfigError(
    [],
    `${where}: no helmfile in ${manifestPath} (looked for ${HELMFILE_NAMES.join(', ')})`
  )
}

async function renderHelmfileSpec(
  file: string,
  vars: JsonObject,
  run: BuildRun
): Promise<HelmfileSpec> {
  const text = await run.files.readText(file)
  const name = path.relative(run.configDir, file) || path.basename(file)
  let rendered: string
  try {
    rendered = await run.templates.render({
      text,
      name,
      mode: 'helmfile',
      data: helmfileTemplateData(vars, run.environment)
    })
  } catch (error) {
    if (error instanceof TemplateError) {
      throw new ConfigError([{ file, line: error.line, message: run.redact(error.message) }])
    }
    throw error
  }
  return parseHelmfileSpec(rendered, file)
}

interface ReleaseJob {
  manifest: BuildManifestSpec
  run: BuildRun
  spec: HelmfileSpec
  release: HelmRelease
  index: number
  helmfileDir: string
}

async function renderRelease(
  job: ReleaseJob
): Promise<{ text: string; request: HelmReleaseRender }> {
  const { manifest, run, release, helmfileDir } = job
  const where = `manifest ${manifest.name}: release ${release.name || `#${job.index}`}`
  if (release.chart === '') throw new ConfigError([], `${where}: chart is required`)
  const chart = resolveChartSource(release.chart, job.spec.repositories, (p) =>
    path.resolve(helmfileDir, p)
  )
  const options = manifest.helmfile ?? {}
  const capabilities = selectCapabilities(options.kubeVersion, run.capabilities)
  await checkLocalChart(run.files, chart, release, where)
  const values = await readValues(job, planSources(job, where), where)
  const request: HelmReleaseRender = {
    name: release.name,
    namespace: release.namespace,
    chart: await chartInput(run, chart, release, where),
    values,
    includeCRDs: options.includeCRDs === true,
    kubeVersion: capabilities.kubeVersion,
    apiVersions: capabilities.apiVersions
  }
  return { text: await renderRequest(manifest, run, request, job.index), request }
}

/** One release's render: its output trimmed, or its Go error as the manifest's ToolError. */
async function renderRequest(
  manifest: BuildManifestSpec,
  run: BuildRun,
  request: HelmReleaseRender,
  index: number
): Promise<string> {
  try {
    return (await run.renderer.helm(request)).trim()
  } catch (error) {
    if (error instanceof RenderModuleError) {
      const release = request.name || `#${index}`
      throw new ToolError(
        `manifest ${manifest.name}: release ${release}: ${run.redact(error.message)}`
      )
    }
    throw error
  }
}

/** The values sources as texts, in merge order (files read through the confined file port). */
async function readValues(
  job: ReleaseJob,
  sources: ValuesSource[],
  where: string
): Promise<{ name: string; text: string }[]> {
  const values: { name: string; text: string }[] = []
  for (const source of sources) {
    if (source.kind === 'inline') {
      values.push({ name: 'inline values', text: JSON.stringify(source.values) })
      continue
    }
    if ((await job.run.files.kindOf(source.path)) !== 'file') {
      throw new ToolError(`${where}: values file ${source.entry} not found at ${source.path}`)
    }
    values.push({ name: source.entry, text: await job.run.files.readText(source.path) })
  }
  return values
}

function planSources(job: ReleaseJob, where: string): ValuesSource[] {
  try {
    return planValuesSources(
      job.release.values,
      job.manifest.helmfile?.extraValueFiles ?? [],
      job.helmfileDir
    )
  } catch (error) {
    if (error instanceof ValuesEntryError) throw new ConfigError([], `${where}: ${error.message}`)
    throw error
  }
}

async function checkLocalChart(
  files: BuildFiles,
  chart: ChartSource,
  release: HelmRelease,
  where: string
): Promise<void> {
  if (chart.kind !== 'local') return
  if ((await files.kindOf(chart.path)) === undefined) {
    throw new ToolError(
      `${where}: chart ${release.chart} not found at ${chart.path} (not an oci:// reference and ` +
        `not <alias>/<chart> of a declared repository, so it is read as a local chart path)`
    )
  }
}

/**
 * A local chart by path; a repository's or registry's chart downloaded (docs/compatibility.md#chart-download)
 * and handed over as bytes.
 */
async function chartInput(
  run: BuildRun,
  chart: ChartSource,
  release: HelmRelease,
  where: string
): Promise<HelmReleaseRender['chart']> {
  if (chart.kind === 'local') return { path: chart.path }
  try {
    const fetched = await fetchChart(run.http, {
      source: chart,
      version: release.version,
      release: release.name
    })
    return { archive: fetched.archive }
  } catch (error) {
    if (error instanceof ChartFetchError) {
      throw new ToolError(`${where}: ${run.redact(error.message)}`)
    }
    throw error
  }
}

async function readIfExists(files: BuildFiles, file: string): Promise<string | undefined> {
  try {
    return await files.readText(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/**
 * Maps with at most `limit` calls in flight; results keep the input order. After a failure no
 * new call starts, the calls in flight are awaited, and the first failure is thrown.
 */
export async function mapInOrder<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++
      try {
        results[index] = await fn(items[index] as T, index)
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  const settled = await Promise.allSettled(
    Array.from({ length: Math.min(limit, items.length) }, worker)
  )
  const rejected = settled.find((s) => s.status === 'rejected')
  if (rejected !== undefined) throw rejected.reason
  return results
}
