/**
 * The tazuna.yaml schema (docs/compatibility.md#schema, #context-guard, #test-plugins, #providers,
 * #helmfile, #oras; pepabo/tazuna:api/v1). Field names are the exact JSON names, including the
 * snake_case `context_matches` and `context_match_mode`. Values are decoded with Go semantics
 * (go-json.ts): scalars, slices and maps always hold at least their zero value; optional
 * sub-objects (Go pointers) may be absent.
 */
import type { SourceLocation } from '../errors.js'
import type { JsonValue } from '../go/yaml.js'

/** The whole file (docs/compatibility.md#schema). */
export interface TazunaConfig {
  apiVersion: string
  kind: string
  spec: TazunaSpec
}

/** `spec` (docs/compatibility.md#context-guard). */
export interface TazunaSpec {
  minimumSupportedTazunaVersion: string
  context_matches: string[]
  context_match_mode: string
  environments: Record<string, EnvironmentSpec>
  manifests: Manifest[]
  tests: TestPluginSpec[]
  providers: ProviderConfig[]
}

/** `spec.environments.<name>`: replaces the root context guard when `-e <name>` is given. */
export interface EnvironmentSpec {
  context_matches: string[]
  context_match_mode: string
}

/** One `spec.manifests[]` entry (docs/compatibility.md#schema). */
export interface Manifest {
  name: string
  description: string
  includes: Include[]
  type: string
  path: string
  tags: string[]
  dependsOn: string[]
  kustomize?: ManifestKustomize
  helmfile?: ManifestHelmfile
  genesisSecret?: Record<string, never>
  oras?: ManifestORAS
  tests: TestPluginSpec[]
  /** Not in the YAML: the file and line of this entry (an include file for included ones). */
  source: SourceLocation
}

/** `includes[]` (docs/compatibility.md#includes). */
export interface Include {
  path: string
}

/** `kustomize` options (docs/compatibility.md#kustomize). */
export interface ManifestKustomize {
  defaultNamespace: string
}

/** `helmfile` options (docs/compatibility.md#helmfile). */
export interface ManifestHelmfile {
  vars: Record<string, HelmfileVar>
  includeCRDs: boolean
  defaultNamespace: string
  extraValueFiles: string[]
  wait: boolean
  timeoutSeconds: number
  kubeVersion: string
}

/**
 * One helmfile var: `from` is `env`, `static` or `op` (docs/compatibility.md#check step 2,
 * docs/compatibility.md#helmfile). The Go types of `staticSlice` and `staticMap` are not
 * documented; they are decoded as any JSON values.
 */
export interface HelmfileVar {
  from: string
  env: string
  static: string
  staticSlice: JsonValue[]
  staticMap: Record<string, JsonValue>
  op?: HelmfileVarOnePassword
}

/** `from: op`: a 1Password item field, picked by its `id` or `label` (`key`). */
export interface HelmfileVarOnePassword {
  vault: string
  item: string
  field: string
  key: string
}

/** `oras` options (docs/compatibility.md#oras). */
export interface ManifestORAS {
  reference: string
  target: string
  plainHTTP: boolean
  insecureSkipVerify: boolean
  auth?: { username: string; password: string }
  delegate: ORASDelegate
}

/** What renders the pulled artifact. */
export interface ORASDelegate {
  type: string
  helmfile?: ManifestHelmfile
  kustomize?: ManifestKustomize
}

/** A test plugin (docs/compatibility.md#test-plugins). */
export interface TestPluginSpec {
  type: string
  minConsecutiveSuccessCount: number
  minConsecutiveFailureCount: number
  timeoutSeconds: number
  intervalSeconds: number
  waitUntil?: WaitUntilSpec
  existNonExist?: ExistNonExistSpec
}

/** The object a test plugin looks at. */
export interface TestResource {
  apiVersion: string
  kind: string
}

/** `WaitUntil`: a CEL `condition` over `object`. */
export interface WaitUntilSpec {
  resource: TestResource
  namespace: string
  name: string
  condition: string
}

/** `ExistNonExist`: whether the object should exist. */
export interface ExistNonExistSpec {
  resource: TestResource
  namespace: string
  name: string
  shouldExist: boolean
}

/** A secret provider for genesissecret (docs/compatibility.md#providers). */
export interface ProviderConfig {
  name: string
  type: string
  onepassword?: Record<string, never>
  envfile?: { path: string }
}

/** The manifest types Tazuna registers (docs/compatibility.md#command-line-and-kubeconfig). */
export const MANIFEST_TYPES = ['kustomize', 'helmfile', 'genesissecret', 'oras'] as const
