/**
 * `tazuna check` (docs/compatibility.md#check): load, schema-validate the unexpanded document,
 * check the `-e` environment, expand includes, then manifest names and dependsOn on the expanded
 * list. Never contacts a cluster. Unlike upstream, which stops at the first failing step, every
 * problem of every step that can run is returned, each with its file and line.
 */
import path from 'node:path'
import { ConfigError, type ConfigProblem } from '../errors.js'
import { PathOutsideRepositoryError } from './confinement.js'
import { validateDependsOn } from './depends-on.js'
import type { ConfigFiles } from './files.js'
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
  problems.push(...(await pathProblems(loaded, expanded.manifests, options.files)))
  return { config: loaded, manifests: expanded.manifests, problems }
}

/**
 * Manifest paths and provider envfiles that resolve outside the repository
 * (src/config/confinement.ts). The file port refuses them; here each becomes a problem on its
 * field, before anything is rendered. Whether the path exists is not checked (as upstream).
 */
async function pathProblems(
  loaded: LoadedConfig,
  manifests: readonly Manifest[],
  files: ConfigFiles
): Promise<ConfigProblem[]> {
  const fields = [
    ...manifests
      .filter((m) => m.path !== '')
      .map((m) => ({
        at: loaded.sources.locate(m, 'path', m.source),
        what: `manifest ${goQuote(m.name)} path`,
        file: path.resolve(loaded.dir, m.path)
      })),
    ...loaded.config.spec.providers.flatMap((p) =>
      p.envfile?.path
        ? [
            {
              at: loaded.sources.locate(p.envfile, 'path', { file: loaded.file }),
              what: `provider ${goQuote(p.name)} envfile.path`,
              file: path.resolve(loaded.dir, p.envfile.path)
            }
          ]
        : []
    )
  ]
  const problems: ConfigProblem[] = []
  for (const field of fields) {
    try {
      await files.exists(field.file)
    } catch (error) {
      if (!(error instanceof PathOutsideRepositoryError)) throw error
      problems.push({ ...field.at, message: `${field.what}: ${error.message}` })
    }
  }
  return problems
}

/** `-e X` requires `spec.environments.X` (docs/compatibility.md#context-guard). */
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
