/**
 * The load steps of the engine: each turns tazuna.yaml into a {@link ConfigRun} with the
 * validation its command does upstream (docs/compatibility.md#check), or reports why not.
 * None of them contacts a cluster.
 */
import { checkConfig, checkFailedHeadline, environmentProblems } from '../config/check.js'
import { expandIncludes } from '../config/includes.js'
import { loadConfig, type LoadConfigOptions, type LoadedConfig } from '../config/load.js'
import { validateManifestNames } from '../config/names.js'
import type { Manifest } from '../config/schema.js'
import { validateConfig } from '../config/validate.js'
import { validateManifest } from '../config/validate-manifest.js'
import { ConfigError, formatProblem, type ConfigProblem } from '../errors.js'
import { resolveLayers } from '../plan/layers.js'
import type { ApplyPlan } from '../report/model.js'
import type { EngineLog, EnginePorts, EngineSettings } from './ports.js'

/** What loading takes from the world: the template engine and the user's files. */
export type LoadPorts = Pick<EnginePorts, 'templates' | 'files'>

/** A loaded tazuna.yaml and its include-expanded manifests: what every later step takes. */
export interface ConfigRun {
  config: LoadedConfig
  manifests: Manifest[]
}

/** The outcome of `check`: every problem; the run and its layer plan when there are none. */
export interface CheckOutcome {
  problems: ConfigProblem[]
  run?: ConfigRun
  plan?: ApplyPlan
}

/** The warning upstream logs when names fail the rules and build or apply only warns. */
export const NAME_WARNING =
  "manifest name validation failed (run 'tazuna check' to see details, or 'tazuna check --fix' to auto-fix)"

/** `tazuna check`: template, schema, environment, includes, names, dependsOn. */
export async function checkedRun(
  settings: EngineSettings,
  ports: LoadPorts
): Promise<CheckOutcome> {
  const result = await checkConfig(loadOptions(settings, ports))
  if (result.problems.length > 0 || result.config === undefined) {
    return { problems: result.problems }
  }
  const run = { config: result.config, manifests: result.manifests }
  return { problems: [], run, plan: planOf(run.manifests) }
}

/** Load and expand includes, validating nothing else (`state diff`, `state list`). */
export async function expandedRun(settings: EngineSettings, ports: LoadPorts): Promise<ConfigRun> {
  const options = loadOptions(settings, ports)
  const config = await loadConfig(options)
  const expanded = await expandIncludes(config, options)
  if (expanded.problems.length > 0) throw new ConfigError(expanded.problems)
  return { config, manifests: expanded.manifests }
}

/**
 * `build`'s validation: the unexpanded document, then every expanded manifest; manifest names
 * only warn.
 */
export async function runForBuild(
  settings: EngineSettings,
  ports: LoadPorts,
  log: EngineLog
): Promise<ConfigRun> {
  const options = loadOptions(settings, ports)
  const config = await loadConfig(options)
  const preProblems = await validateConfig(config, options.files)
  if (preProblems.length > 0) throw new ConfigError(preProblems)
  const expanded = await expandIncludes(config, options)
  const postProblems = [...expanded.problems]
  for (const [i, manifest] of expanded.manifests.entries()) {
    postProblems.push(...(await validateManifest(config, manifest, i, options.files)))
  }
  if (postProblems.length > 0) throw new ConfigError(postProblems)
  if (validateManifestNames(expanded.manifests).length > 0) log.warn(NAME_WARNING)
  return { config, manifests: expanded.manifests }
}

/**
 * `plan`'s validation: `-e` names a declared environment, then the unexpanded document only
 * (Tazuna validates before expanding includes and checks nothing after), names unchecked
 * (docs/compatibility.md#plan).
 */
export async function runForPlan(settings: EngineSettings, ports: LoadPorts): Promise<ConfigRun> {
  const options = loadOptions(settings, ports)
  const config = await loadConfig(options)
  const environment = environmentProblems(config, settings.environment)
  if (environment.length > 0) throw new ConfigError(environment)
  const preProblems = await validateConfig(config, options.files)
  if (preProblems.length > 0) throw new ConfigError(preProblems)
  const expanded = await expandIncludes(config, options)
  if (expanded.problems.length > 0) throw new ConfigError(expanded.problems)
  return { config, manifests: expanded.manifests }
}

/**
 * `apply`'s check: manifest names are strict with `--sync` or when any manifest uses
 * dependsOn, otherwise a bad name only warns (docs/compatibility.md#apply-flow).
 */
export async function runForApply(
  settings: EngineSettings,
  ports: LoadPorts,
  log: EngineLog,
  sync: boolean
): Promise<ConfigRun> {
  const result = await checkConfig(loadOptions(settings, ports))
  let problems: ConfigProblem[] = result.problems
  const strictNames = sync || result.manifests.some((m) => m.dependsOn.length > 0)
  if (!strictNames && result.config !== undefined) {
    const nameProblems = new Set(validateManifestNames(result.manifests).map(formatProblem))
    if (nameProblems.size > 0) log.warn(NAME_WARNING)
    problems = problems.filter((p) => !nameProblems.has(formatProblem(p)))
  }
  if (problems.length > 0 || result.config === undefined) {
    throw new ConfigError(problems, checkFailedHeadline(settings.file))
  }
  return { config: result.config, manifests: result.manifests }
}

/** The apply plan: layers of names and the dependsOn graph behind them. */
export function planOf(manifests: readonly Manifest[]): ApplyPlan {
  const layers = resolveLayers(manifests).map((layer) => layer.map((m) => m.name))
  return { layers, nodes: manifests.map((m) => ({ name: m.name, dependsOn: m.dependsOn })) }
}

function loadOptions(settings: EngineSettings, ports: LoadPorts): LoadConfigOptions {
  return {
    file: settings.file,
    environment: settings.environment,
    engine: ports.templates,
    version: settings.version,
    files: ports.files
  }
}
