/**
 * `type: genesissecret` Build (docs/compatibility.md#genesissecret): fetch every `secrets[]` entry
 * through the provider (`default-op` via the op CLI, or an `envfile` provider), map the listed
 * items to their output keys, merge (later wins), put `static` on top, and emit one v1 Secret with
 * `stringData` per `kubernetesSecret` output. Every value that ends up in a Secret is registered as
 * a secret; errors name keys, files and items, never values.
 */
import path from 'node:path'
import { ConfigError } from '../../errors.js'
import type { JsonObject, JsonValue } from '../../go/yaml.js'
import type { BuildManifestSpec } from '../context.js'
import type { BuildFiles } from '../ports.js'
import { parseDotenv } from './dotenv.js'
import {
  parseGenesisSecret,
  type GenesisSecretSource,
  type KubernetesSecretOutput
} from './genesissecret-spec.js'
import type { BuildRun } from '../helmfile/helmfile.js'
import { fetchOpItem, parseOpUri } from './onepassword.js'
import { jsonToYamlString } from '../../go/yaml-scalar.js'
import { marshalSecretYaml } from '../../go/yaml-emitter.js'

/** The built-in 1Password provider, used when `spec.provider` is empty. */
export const DEFAULT_OP_PROVIDER = 'default-op'

/** Build output: the text `tazuna build` prints and the objects it parses to. */
export interface GenesisSecretBuild {
  text: string
  objects: JsonObject[]
}

/** Builds a GenesisSecret manifest; `text` is "" when only stdout outputs exist. */
export async function buildGenesisSecret(
  manifest: BuildManifestSpec,
  run: BuildRun
): Promise<GenesisSecretBuild> {
  const where = `manifest ${manifest.name}`
  const file = path.resolve(run.configDir, manifest.path)
  const spec = parseGenesisSecret(await readConfigFile(run.files, file, where), file)
  if (spec.outputs.length === 0) throw new ConfigError([], `${where}: ${file}: no outputs defined`)
  const fetch = providerFetcher(spec.provider, run, where)
  const data = new Map<string, string>()
  for (const source of spec.secrets) {
    const fetched = await fetch(source)
    for (const [key, value] of mapItems(source, fetched, where)) data.set(key, value)
  }
  for (const [key, value] of Object.entries(spec.static ?? {})) data.set(key, value)
  for (const value of data.values()) run.registerSecret(value)
  const objects = spec.outputs.flatMap((o) =>
    o.kind === 'kubernetesSecret' ? [asMarshalled(secretObject(o.secret, data), where)] : []
  )
  return { text: objects.map(marshalSecretYaml).join('---\n'), objects }
}

/**
 * The output data of one `secrets[]` entry: each `items` key must exist in the fetched data
 * (`key %s not found in fetched data`), and lands under its `mapTo` name.
 */
export function mapItems(
  source: GenesisSecretSource,
  fetched: ReadonlyMap<string, string>,
  where: string
): Map<string, string> {
  const out = new Map<string, string>()
  for (const [key, mapTo] of source.items) {
    const value = fetched.get(key)
    if (value === undefined)
      throw new ConfigError([], `${where}: key ${key} not found in fetched data`)
    out.set(mapTo, value)
  }
  return out
}

/**
 * The v1 Secret as sigs.k8s.io/yaml would marshal Tazuna's corev1.Secret: empty name,
 * namespace, labels, annotations and stringData are omitted (omitempty), type defaults to
 * Opaque. `metadata.creationTimestamp` is omitted too: docs/compatibility.md#genesissecret says it
 * is emitted as null, but since k8s.io/apimachinery v0.35 (Tazuna's Helm v3.21.0 requires v0.35.1)
 * the field is tagged `omitempty,omitzero`, and the Go oracle (__tests__/oracle/render) confirms it
 * is absent. The ContentHash is the same either way (the hash drops creationTimestamp,
 * docs/compatibility.md#contenthash).
 */
export function secretObject(
  output: KubernetesSecretOutput,
  data: ReadonlyMap<string, string>
): JsonObject {
  const metadata: JsonObject = {}
  if (output.name !== '') metadata.name = output.name
  if (output.namespace !== '') metadata.namespace = output.namespace
  if (output.labels && Object.keys(output.labels).length > 0) metadata.labels = { ...output.labels }
  if (output.annotations && Object.keys(output.annotations).length > 0) {
    metadata.annotations = { ...output.annotations }
  }
  const secret: JsonObject = { apiVersion: 'v1', kind: 'Secret', metadata }
  if (data.size > 0) secret.stringData = Object.fromEntries(data)
  secret.type = output.type === '' ? 'Opaque' : output.type
  return secret
}

/**
 * The Secret as Tazuna's Build text parses back (diff and sync hash that): every string goes
 * through sigs.k8s.io/yaml's JSON → YAML read (see jsonToYamlString); a value it refuses fails
 * the build, as Marshal fails in Go.
 */
export function asMarshalled(obj: JsonObject, where: string): JsonObject {
  const convert = (value: JsonValue, path: string): JsonValue => {
    if (typeof value === 'string') {
      const result = jsonToYamlString(value)
      if ('error' in result)
        throw new ConfigError([], `${where}: Secret field ${path} ${result.error}`)
      return result.value
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
    const out: JsonObject = {}
    for (const [key, v] of Object.entries(value)) {
      const k = jsonToYamlString(key)
      if ('error' in k)
        throw new ConfigError([], `${where}: a key in Secret field ${path} ${k.error}`)
      out[k.value] = convert(v, path === '' ? key : `${path}.${key}`)
    }
    return out
  }
  return convert(obj, '') as JsonObject
}

type Fetcher = (source: GenesisSecretSource) => Promise<Map<string, string>>

function providerFetcher(name: string, run: BuildRun, where: string): Fetcher {
  if (name === '' || name === DEFAULT_OP_PROVIDER)
    return (source) => fetchFromOp(source, run, where)
  const provider = run.providers.find((p) => p.name === name)
  if (provider === undefined) {
    throw new ConfigError(
      [],
      `${where}: provider ${JSON.stringify(name)} is not declared in spec.providers`
    )
  }
  if (provider.type !== 'envfile' || !provider.envfile?.path) {
    throw new ConfigError(
      [],
      `${where}: provider ${JSON.stringify(name)} must be an envfile provider with envfile.path`
    )
  }
  const envfile = path.resolve(run.configDir, provider.envfile.path)
  let loaded: Promise<Map<string, string>> | undefined
  return () =>
    (loaded ??= readConfigFile(run.files, envfile, `${where}: provider ${name}`).then(parseDotenv))
}

async function fetchFromOp(
  source: GenesisSecretSource,
  run: BuildRun,
  where: string
): Promise<Map<string, string>> {
  const ref = parseOpUri(source.uri)
  if ('error' in ref) throw new ConfigError([], `${where}: ${ref.error}`)
  const fields = await fetchOpItem(
    { runner: run.runner, command: run.tools?.op, redact: run.redact },
    ref.vault,
    ref.item,
    where
  )
  return new Map(fields.map((f) => [source.preferLabel ? f.label : f.id, f.value]))
}

async function readConfigFile(files: BuildFiles, file: string, where: string): Promise<string> {
  try {
    return await files.readText(file)
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(error)
    throw new ConfigError([{ file, message: `${where}: cannot read: ${reason}` }])
  }
}
