/**
 * A GenesisSecret file (docs/compatibility.md#genesissecret), decoded as Tazuna's Go struct would
 * be: `spec.provider`, `spec.secrets[]` {uri, preferLabel, items: {providerKey: {mapTo}}},
 * `spec.static`, `spec.outputs[]` (stdout or kubernetesSecret). The file's own apiVersion/kind are
 * not checked.
 */
import { unmarshalGoFile } from '../../go/json.js'
import { genesisSecretGoType } from '../../go/schema-types.js'

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

/**
 * Decodes a GenesisSecret file's text like sigs.k8s.io/yaml.Unmarshal (first document only);
 * type mismatches throw a ConfigError with Go's messages, each naming `file` and the line.
 */
export function parseGenesisSecret(text: string, file: string): GenesisSecretSpec {
  const value = unmarshalGoFile(text, file, genesisSecretGoType, 'GenesisSecret')
  return specOf((value as DecodedGenesisSecret).spec)
}

/** The shape decodeGo gives for genesisSecretGoType: zero values filled in, pointers optional. */
interface DecodedGenesisSecret {
  spec: {
    provider: string
    secrets: { uri: string; preferLabel: boolean; items: Record<string, { mapTo: string }> }[]
    static: Record<string, string>
    outputs: { stdout?: object; kubernetesSecret?: Required<KubernetesSecretOutput> }[]
  }
}

function specOf(spec: DecodedGenesisSecret['spec']): GenesisSecretSpec {
  return {
    provider: spec.provider,
    secrets: spec.secrets.map((s) => ({
      uri: s.uri,
      preferLabel: s.preferLabel,
      items: new Map(Object.entries(s.items).map(([key, item]) => [key, item.mapTo]))
    })),
    static: spec.static,
    outputs: spec.outputs.map((o): GenesisSecretOutput => {
      const k8s = o.kubernetesSecret
      if (k8s !== undefined) {
        const { labels, annotations } = k8s
        const secret = { ...k8s, labels: nonEmpty(labels), annotations: nonEmpty(annotations) }
        return { kind: 'kubernetesSecret', secret }
      }
      return o.stdout !== undefined ? { kind: 'stdout' } : { kind: 'none' }
    })
  }
}

/** Go's nil and empty maps both mean "none" to the Secret (omitempty). */
function nonEmpty(map: Record<string, string>): Record<string, string> | undefined {
  return Object.keys(map).length > 0 ? map : undefined
}
