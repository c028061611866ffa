/**
 * Resolving `helmfile.vars` (docs/compatibility.md#helmfile step 1): `from: env` reads an
 * environment variable (it must be set), `from: static` takes `static` / `staticSlice` /
 * `staticMap`, `from: op` reads one field of a 1Password item by `id` or `label`. Values from
 * 1Password are registered as secrets.
 */
import { ConfigError } from '../../errors.js'
import type { JsonObject, JsonValue } from '../../go/yaml.js'
import type { HelmfileVarSpec } from '../context.js'
import type { OpField } from '../genesissecret/onepassword.js'

/** What resolving vars needs from the outside. */
export interface VarSources {
  lookupEnv: (name: string) => string | undefined
  fetchOpItem: (vault: string, item: string, describe: string) => Promise<OpField[]>
  registerSecret: (value: string) => void
}

/**
 * Resolves every var (in name order, so the first error is stable) into the object the helmfile
 * template sees as `.Values`. `where` names the manifest for errors.
 */
export async function resolveHelmfileVars(
  vars: Readonly<Record<string, HelmfileVarSpec>>,
  sources: VarSources,
  where: string
): Promise<JsonObject> {
  const out: JsonObject = {}
  for (const name of Object.keys(vars).sort()) {
    const spec = vars[name] ?? {}
    out[name] = await resolveVar(name, spec, sources, `${where}: helmfile var '${name}'`)
  }
  return out
}

async function resolveVar(
  name: string,
  spec: HelmfileVarSpec,
  sources: VarSources,
  where: string
): Promise<JsonValue> {
  switch (spec.from) {
    case 'env': {
      const value = spec.env ? sources.lookupEnv(spec.env) : undefined
      if (value === undefined)
        throw varError(`${where}: environment variable ${spec.env ?? '(none)'} is not set`)
      return value
    }
    case 'static':
      return staticValue(spec)
    case 'op':
      return opValue(spec, sources, where)
    case undefined:
    case '':
      throw varError(`helmfile var '${name}' has no From field, supported From is 'env/static/op'`)
    default:
      throw varError(
        `${where}: unsupported from ${JSON.stringify(spec.from)} (supported: env, static, op)`
      )
  }
}

// `check` requires exactly one of static/staticSlice/staticMap; the config decoder gives absent
// slices and maps their zero value, so "set" means non-empty, as Go's len() checks would.
function staticValue(spec: HelmfileVarSpec): JsonValue {
  if (Array.isArray(spec.staticSlice) && spec.staticSlice.length > 0) return spec.staticSlice
  const map = spec.staticMap
  if (
    typeof map === 'object' &&
    map !== null &&
    !Array.isArray(map) &&
    Object.keys(map).length > 0
  ) {
    return map
  }
  return spec.static ?? ''
}

async function opValue(spec: HelmfileVarSpec, sources: VarSources, where: string): Promise<string> {
  const { key, vault, item, field } = spec.op ?? {}
  if (!vault || !item || !field || (key !== 'id' && key !== 'label')) {
    throw varError(`${where}: op needs key (id or label), vault, item and field`)
  }
  const fields = await sources.fetchOpItem(vault, item, where)
  const match = fields.find((f) => (key === 'id' ? f.id : f.label) === field)
  if (match === undefined) {
    throw varError(
      `${where}: 1Password item ${vault}/${item} has no field with ${key} ${JSON.stringify(field)}`
    )
  }
  sources.registerSecret(match.value)
  return match.value
}

function varError(message: string): ConfigError {
  return new ConfigError([], message)
}
