/**
 * `tazuna check`'s schema validation of the *unexpanded* document (docs/compatibility.md#check step
 * 2): root identity, context guard regexes and modes, environments, every manifest, providers.
 * Unlike upstream, which stops at the first failure, every problem is returned.
 */
import type { ConfigProblem } from '../errors.js'
import type { ConfigFiles } from './files.js'
import { compileGoRegexp } from '../go/regexp.js'
import { goQuote } from '../go/quote.js'
import type { LoadedConfig } from './load.js'
import type { ProviderConfig } from './schema.js'
import { validateManifest } from './validate-manifest.js'

/** The only accepted `apiVersion` and `kind` (when set). */
export const TAZUNA_API_VERSION = 'tazuna.pepabo.com/v1'
export const TAZUNA_KIND = 'Tazuna'

/** Every schema problem of a loaded tazuna.yaml (includes are checked during expansion). */
export async function validateConfig(
  loaded: LoadedConfig,
  files: ConfigFiles
): Promise<ConfigProblem[]> {
  const { config, sources } = loaded
  const problems: ConfigProblem[] = []
  const add = (at: object, key: string | number | undefined, message: string) =>
    problems.push({ ...sources.locate(at, key, { file: loaded.file }), message })
  if (config.apiVersion !== '' && config.apiVersion !== TAZUNA_API_VERSION) {
    add(
      config,
      'apiVersion',
      `apiVersion must be ${goQuote(TAZUNA_API_VERSION)}, got ${goQuote(config.apiVersion)}`
    )
  }
  if (config.kind !== '' && config.kind !== TAZUNA_KIND) {
    add(config, 'kind', `kind must be ${goQuote(TAZUNA_KIND)}, got ${goQuote(config.kind)}`)
  }
  const { spec } = config
  contextGuardProblems(spec.context_matches, spec.context_match_mode, '', (key, message) =>
    key === 'mode'
      ? add(spec, 'context_match_mode', message)
      : add(spec.context_matches, key, message)
  )
  for (const [name, environment] of Object.entries(spec.environments)) {
    const prefix = `environments[${goQuote(name)}].`
    if (name === '') add(spec.environments, name, `environments[""]: environment name is required`)
    contextGuardProblems(
      environment.context_matches,
      environment.context_match_mode,
      prefix,
      (key, message) =>
        key === 'mode'
          ? add(environment, 'context_match_mode', message)
          : add(environment.context_matches, key, message)
    )
  }
  for (const [i, manifest] of spec.manifests.entries()) {
    problems.push(...(await validateManifest(loaded, manifest, i, files)))
  }
  spec.providers.forEach((provider, i) =>
    providerProblems(provider, i, spec.providers).forEach((message) =>
      add(provider, undefined, message)
    )
  )
  return problems
}

/** context_matches must compile as Go regexps; the mode must be "", `or` or `and`. */
function contextGuardProblems(
  patterns: readonly string[],
  mode: string,
  prefix: string,
  report: (key: number | 'mode', message: string) => void
): void {
  patterns.forEach((pattern, i) => {
    try {
      compileGoRegexp(pattern)
    } catch (error) {
      report(i, `${prefix}context_matches[${i}] is not a valid regex: ${(error as Error).message}`)
    }
  })
  if (mode !== '' && mode !== 'or' && mode !== 'and') {
    report('mode', `${prefix}context_match_mode must be 'or' or 'and', got: ${mode}`)
  }
}

/**
 * Provider rules (docs/compatibility.md#providers); `default-op` is built in and cannot be
 * redefined.
 */
function providerProblems(
  provider: ProviderConfig,
  index: number,
  all: readonly ProviderConfig[]
): string[] {
  const p = `providers[${index}]`
  const problems: string[] = []
  if (provider.name === '') problems.push(`${p}.name is required`)
  else if (provider.name === 'default-op') {
    problems.push(`${p}.name ${goQuote(provider.name)} is reserved for the built-in provider`)
  } else if (all.findIndex((other) => other.name === provider.name) < index) {
    problems.push(`${p}.name ${goQuote(provider.name)} is duplicated`)
  }
  if (provider.type === '') problems.push(`${p}.type is required`)
  else if (provider.type === 'onepassword') {
    problems.push(`explicit "onepassword" type is not supported yet; use the built-in "default-op"`)
  } else if (provider.type === 'envfile') {
    if (provider.envfile === undefined || provider.envfile.path === '') {
      problems.push(`${p}.envfile.path is required`)
    }
  } else problems.push(`${p}.type ${goQuote(provider.type)} is not supported (want envfile)`)
  return problems
}
