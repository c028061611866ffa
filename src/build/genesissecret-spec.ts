/**
 * A GenesisSecret file (spec §4.3), decoded as Tazuna's Go struct would be: `spec.provider`,
 * `spec.secrets[]` {uri, preferLabel, items: {providerKey: {mapTo}}}, `spec.static`,
 * `spec.outputs[]` (stdout or kubernetesSecret). The file's own apiVersion/kind are not checked.
 */
import { ConfigError } from '../errors.js'
import { parseYamlDocuments, type JsonValue } from '../yaml/go-yaml.js'
import {
  DecodeError,
  decodeBool,
  decodeList,
  decodeObject,
  decodeString,
  decodeStringMap,
  goField
} from './go-decode.js'

/** One `secrets[]` entry; `items` maps a provider key to the output key (`mapTo`). */
export interface GenesisSecretSource {
  uri: string
  preferLabel: boolean
  items: Map<string, string>
}

/** A `kubernetesSecret` output. */
export interface KubernetesSecretOutput {
  namespace: string
  name: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
  type: string
}

/** One `outputs[]` entry: `kubernetesSecret` when present, else `stdout` (or nothing). */
export type GenesisSecretOutput =
  | { kind: 'kubernetesSecret'; secret: KubernetesSecretOutput }
  | { kind: 'stdout' }
  | { kind: 'none' }

/** The decoded file. */
export interface GenesisSecretSpec {
  provider: string
  secrets: GenesisSecretSource[]
  static?: Record<string, string>
  outputs: GenesisSecretOutput[]
}

/** Decodes a GenesisSecret file's text; problems name `file` and the line. */
export function parseGenesisSecret(text: string, file: string): GenesisSecretSpec {
  const doc = parseYamlDocuments(text, file)[0]
  try {
    return decodeGenesisSecret(doc?.value ?? null)
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error
    const line = doc?.lineOf(error.path) ?? doc?.line
    throw new ConfigError([{ file, line, message: `invalid GenesisSecret: ${error.message}` }])
  }
}

function decodeGenesisSecret(value: JsonValue): GenesisSecretSpec {
  const root = decodeObject(value, []) ?? {}
  const spec = decodeObject(goField(root, 'spec'), ['spec']) ?? {}
  const secrets = decodeList(goField(spec, 'secrets'), ['spec', 'secrets']).map((item, i) => {
    const path = ['spec', 'secrets', i]
    const s = decodeObject(item, path) ?? {}
    const items = new Map<string, string>()
    const rawItems = decodeObject(goField(s, 'items'), [...path, 'items']) ?? {}
    for (const [key, mapping] of Object.entries(rawItems)) {
      const m = decodeObject(mapping, [...path, 'items', key]) ?? {}
      items.set(key, decodeString(goField(m, 'mapTo'), [...path, 'items', key, 'mapTo']))
    }
    return {
      uri: decodeString(goField(s, 'uri'), [...path, 'uri']),
      preferLabel: decodeBool(goField(s, 'preferLabel'), [...path, 'preferLabel']),
      items
    }
  })
  const outputs = decodeList(goField(spec, 'outputs'), ['spec', 'outputs']).map((item, i) =>
    decodeOutput(item, ['spec', 'outputs', i])
  )
  return {
    provider: decodeString(goField(spec, 'provider'), ['spec', 'provider']),
    secrets,
    static: decodeStringMap(goField(spec, 'static'), ['spec', 'static']),
    outputs
  }
}

function decodeOutput(item: JsonValue, path: (string | number)[]): GenesisSecretOutput {
  const o = decodeObject(item, path) ?? {}
  const k8s = decodeObject(goField(o, 'kubernetesSecret'), [...path, 'kubernetesSecret'])
  if (k8s !== undefined) {
    const at = (field: string): (string | number)[] => [...path, 'kubernetesSecret', field]
    return {
      kind: 'kubernetesSecret',
      secret: {
        namespace: decodeString(goField(k8s, 'namespace'), at('namespace')),
        name: decodeString(goField(k8s, 'name'), at('name')),
        labels: decodeStringMap(goField(k8s, 'labels'), at('labels')),
        annotations: decodeStringMap(goField(k8s, 'annotations'), at('annotations')),
        type: decodeString(goField(k8s, 'type'), at('type'))
      }
    }
  }
  return decodeObject(goField(o, 'stdout'), [...path, 'stdout']) !== undefined
    ? { kind: 'stdout' }
    : { kind: 'none' }
}
