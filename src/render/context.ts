/**
 * What building a manifest needs from the outside world, and the manifest fields it reads.
 * Everything that touches the world comes in here (command runner, files, template engine, the
 * environment, the secret sink), so the builders stay testable with real tools and no mocks.
 */
import type {
  BuildFiles,
  CommandRunner,
  HelmReleaseRender,
  HttpClient,
  RenderModule
} from './ports.js'
import type { TemplateEngine } from '../go/template/engine.js'
import type { JsonValue } from '../go/yaml.js'
import type { OrasPullSpec } from './oras/pull.js'
import type { OrasContext } from './oras/ports.js'
import type { NamespacedLookup } from '../objects/kind-scope.js'

/** Kubernetes version and API versions Helm templates see (`.Capabilities`). */
export interface HelmCapabilities {
  /** A semver, e.g. the server's gitVersion `v1.32.13`. */
  kubeVersion: string
  /** Every served group/version and group/version/Kind. */
  apiVersions: string[]
}

/** One `helmfile.vars` entry of tazuna.yaml (docs/compatibility.md#check, #helmfile step 1). */
export interface HelmfileVarSpec {
  from?: string
  env?: string
  static?: string
  staticSlice?: JsonValue
  staticMap?: JsonValue
  op?: { key?: string; vault?: string; item?: string; field?: string }
}

/** `manifests[].helmfile` (docs/compatibility.md#helmfile). */
export interface HelmfileOptionsSpec {
  vars?: Record<string, HelmfileVarSpec>
  includeCRDs?: boolean
  defaultNamespace?: string
  extraValueFiles?: string[]
  kubeVersion?: string
}

/** The fields of one (include-expanded) tazuna.yaml manifest that building reads. */
export interface BuildManifestSpec {
  name: string
  type: string
  /** As written in tazuna.yaml: relative to the tazuna.yaml directory (or absolute). */
  path: string
  kustomize?: { defaultNamespace?: string }
  helmfile?: HelmfileOptionsSpec
  oras?: OrasOptionsSpec
}

/** `spec.providers[]` (docs/compatibility.md#providers). */
export interface ProviderSpec {
  name: string
  type: string
  envfile?: { path?: string }
}

/** Programs the builders run (only `op`: rendering is in-process); default: `op` on PATH. */
export interface ToolCommands {
  op?: string
}

/** Everything a build needs besides the manifest. */
export interface BuildContext {
  /** Runs `op` (1Password) for genesissecret and helmfile vars. */
  runner: CommandRunner
  /** kustomize and Helm, in-process (docs/renderers.md). */
  renderer: RenderModule
  /** Chart downloads from chart repositories and OCI registries. */
  http: HttpClient
  templates: TemplateEngine
  /** Absolute directory of tazuna.yaml; manifest and envfile paths are relative to it. */
  configDir: string
  /** The `-e` value, or "". */
  environment: string
  /**
   * From cluster discovery; absent when building without a cluster
   * (docs/compatibility.md#build-without-a-cluster).
   */
  capabilities?: HelmCapabilities
  providers: readonly ProviderSpec[]
  /** Called with every secret value met; the action wires it to core.setSecret. */
  registerSecret: (value: string) => void
  /** The process environment, for helmfile vars `from: env`. */
  lookupEnv: (name: string) => string | undefined
  tools?: ToolCommands
  /** Manifest, envfile, helmfile and values files, and private temporary files. */
  files: BuildFiles
  /** The artifact cache and pull mode for `type: oras`; without it, oras manifests fail. */
  oras?: OrasContext
  /**
   * Which default namespace objects of an oras manifest get: none (diff, sync, plan: Tazuna's
   * runner) unless `delegate` (plain apply and destroy go through the delegate), the quirk of
   * docs/compatibility.md#oras-default-namespace.
   */
  orasNamespace?: 'none' | 'delegate'
  /**
   * When present, a namespaced object left without a namespace fails the build
   * (docs/compatibility.md#objects-without-a-namespace); `lookup` answers for kinds that are
   * neither built in nor defined by a CustomResourceDefinition of the same manifest (the
   * server's discovery).
   */
  namespaceCheck?: { lookup?: NamespacedLookup }
  /**
   * What a render-record check of this run already resolved for a helmfile manifest whose
   * record did not hold: its render makes these requests instead of resolving vars, template,
   * values and charts again (docs/renderers.md#helm-records).
   */
  preparedHelmfile?: (manifest: BuildManifestSpec) => PreparedHelmfile | undefined
}

/**
 * A helmfile manifest's render requests, in release order, and the Secret values met while
 * resolving them: the render that uses them redacts those values as if it had met them itself.
 */
export interface PreparedHelmfile {
  requests: readonly HelmReleaseRender[]
  secrets: readonly string[]
}

/** `manifests[].oras` as building reads it. */
export interface OrasOptionsSpec extends OrasPullSpec {
  target?: string
  delegate?: {
    type?: string
    helmfile?: HelmfileOptionsSpec
    kustomize?: { defaultNamespace?: string }
  }
}
