/**
 * `tazuna check` (spec §3): load, schema-validate the unexpanded document, check the `-e`
 * environment, expand includes, then manifest names and dependsOn on the expanded list. Never
 * contacts a cluster. Unlike upstream, which stops at the first failing step, every problem
 * of every step that can run is returned, each with its file and line.
 */
import path from 'node:path'
import { ConfigError, type ConfigProblem } from '../errors.js'
import { validateDependsOn } from './depends-on.js'
import { goQuote } from '../go/quote.js'
import { expandIncludes } from './includes.js'
import { loadConfig, type LoadConfigOptions, type LoadedConfig } from './load.js'
import { validateManifestNames } from './names.js'
import type { Manifest } from './schema.js'
import { validateConfig } from './validate.js'

/** What `check` needs: what loading needs. */
export type CheckConfigOptions = LoadConfigOptions

/** The outcome: the loaded file and expanded manifests when loading succeeded, and all problems. */
export interface CheckResult {
  config?: LoadedConfig
  manifests: Manifest[]
  problems: ConfigProblem[]
}

/** Runs every check; throws only for failures that are not the user's (engine, I/O bugs). */
export async function checkConfig(options: CheckConfigOptions): Promise<CheckResult> {
  let loaded: LoadedConfig
  try {
    loaded = await loadConfig(options)
  } catch (error) {
    if (error instanceof ConfigError) return { manifests: [], problems: [...error.problems] }
    throw error
  }
  const problems = await validateConfig(loaded, options.files)
  problems.push(...environmentProblems(loaded, options.environment))
  const expanded = await expandIncludes(loaded, options)
  problems.push(...expanded.problems)
  problems.push(...validateManifestNames(expanded.manifests))
  problems.push(...validateDependsOn(expanded.manifests))
  return { config: loaded, manifests: expanded.manifests, problems }
}

/** `-e X` requires `spec.environments.X` (spec §2.3). */
export function environmentProblems(loaded: LoadedConfig, environment: string): ConfigProblem[] {
  const { spec } = loaded.config
  if (environment === '' || Object.hasOwn(spec.environments, environment)) return []
  return [
    {
      ...loaded.sources.locate(spec, 'environments', { file: loaded.file }),
      message: `environment ${goQuote(environment)} is not declared under spec.environments`
    }
  ]
}

/** The headline upstream puts before check problems: `check failed for tazuna.yaml at <abs path>`. */
export function checkFailedHeadline(file: string): string {
  return `check failed for tazuna.yaml at ${path.resolve(file)}`
}
