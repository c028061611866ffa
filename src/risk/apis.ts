/**
 * The API checks of the risk pass (docs/risks.md#apis-the-cluster-does-not-serve): an added or
 * modified object whose group/version (or kind) the cluster does not serve is `will-fail`, with
 * the version Kubernetes names to move to; a served built-in version that Kubernetes' own API
 * packages declare deprecated at the server's release, or a CustomResourceDefinition version
 * marked `deprecated`, is `deprecated-api`, saying when it goes away. Pure: discovery and the
 * definitions are read by the engine (src/engine/api-review.ts).
 */
import { isJsonObject, type JsonObject } from '../go/yaml.js'
import type { StateKey } from '../state/key.js'
import lifecycleTable from './api-lifecycle.json' with { type: 'json' }
import type { Finding } from './model.js'

/** What the cluster serves (discovery), and its version. */
export interface ServedApis {
  /** The server's gitVersion, as `v1.37.2`. */
  kubeVersion: string
  /** Every served group/version and group/version/Kind (`v1`, `apps/v1/Deployment`). */
  apiVersions: ReadonlySet<string>
}

/** One version of a CustomResourceDefinition, as its spec declares it. */
export interface DefinedVersion {
  served: boolean
  deprecated: boolean
  deprecationWarning?: string
}

/** A kind's CustomResourceDefinition: its versions by name. */
export type Definition = ReadonlyMap<string, DefinedVersion>

/** One entry of src/risk/api-lifecycle.json: releases as `1.25`, the replacement as `policy/v1/PodDisruptionBudget`. */
export interface ApiLifecycle {
  introduced?: string
  deprecated?: string
  removed?: string
  replacement?: string
}

const LIFECYCLE: ReadonlyMap<string, ApiLifecycle> = new Map(
  Object.entries((lifecycleTable as { kinds: Record<string, ApiLifecycle> }).kinds)
)

/** Where the lifecycle table comes from (its generator names the k8s.io/api releases). */
export const lifecycleSource: string = (lifecycleTable as { source: string }).source

/** `group/version/Kind` (`v1/Pod` for the core group), as the table and discovery key kinds. */
export function gvk(ref: Pick<StateKey, 'group' | 'version' | 'kind'>): string {
  return `${groupVersion(ref)}/${ref.kind}`
}

function groupVersion(ref: Pick<StateKey, 'group' | 'version'>): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`
}

/** The lifecycle Kubernetes declares for a built-in kind of a prerelease version. */
export function lifecycleOf(
  ref: Pick<StateKey, 'group' | 'version' | 'kind'>
): ApiLifecycle | undefined {
  return LIFECYCLE.get(gvk(ref))
}

/** `v1.37.2` → `[1, 37]`; undefined when it is not a version. */
function releaseOf(version: string): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version)
  return m === null ? undefined : [Number(m[1]), Number(m[2])]
}

function atLeast(server: [number, number], release: string): boolean {
  const r = releaseOf(release)
  return r !== undefined && (server[0] > r[0] || (server[0] === r[0] && server[1] >= r[1]))
}

/** The server's release for messages, as `Kubernetes v1.37`. */
function serverName(kubeVersion: string): string {
  const r = releaseOf(kubeVersion)
  return r === undefined ? `Kubernetes ${kubeVersion}` : `Kubernetes v${r[0]}.${r[1]}`
}

/** `policy/v1/PodDisruptionBudget` → `policy/v1` (the kind named when it differs). */
function replacementText(replacement: string, kind: string): string {
  const i = replacement.lastIndexOf('/')
  const gv = replacement.slice(0, i)
  const to = replacement.slice(i + 1)
  return to === kind ? gv : `${gv} ${to}`
}

/** Kinds the Diff itself makes served: its CustomResourceDefinitions' and APIServices'. */
export interface DiffDefinitions {
  /** `group/Kind` → the CRD's versions, from the head renders. */
  crds: ReadonlyMap<string, Definition>
  /** Group/versions an APIService of the Diff registers. */
  apiServices: ReadonlySet<string>
}

/** The CRDs and APIServices among head objects. */
export function definitionsIn(objects: Iterable<JsonObject>): DiffDefinitions {
  const crds = new Map<string, Definition>()
  const apiServices = new Set<string>()
  for (const o of objects) {
    const av = typeof o.apiVersion === 'string' ? o.apiVersion : ''
    if (o.kind === 'CustomResourceDefinition' && av.startsWith('apiextensions.k8s.io/')) {
      const found = definitionOf(o)
      if (found !== undefined) crds.set(found.key, found.versions)
    } else if (o.kind === 'APIService' && av.startsWith('apiregistration.k8s.io/')) {
      const spec = isJsonObject(o.spec) ? o.spec : {}
      if (typeof spec.group === 'string' && typeof spec.version === 'string')
        apiServices.add(groupVersion({ group: spec.group, version: spec.version }))
    }
  }
  return { crds, apiServices }
}

/** A CustomResourceDefinition's `group/Kind` and versions; undefined when it names none. */
export function definitionOf(crd: JsonObject): { key: string; versions: Definition } | undefined {
  const spec = isJsonObject(crd.spec) ? crd.spec : {}
  const names = isJsonObject(spec.names) ? spec.names : {}
  if (typeof spec.group !== 'string' || typeof names.kind !== 'string') return undefined
  const versions = new Map<string, DefinedVersion>()
  for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
    if (!isJsonObject(v) || typeof v.name !== 'string') continue
    versions.set(v.name, {
      served: v.served === true,
      deprecated: v.deprecated === true,
      ...(typeof v.deprecationWarning === 'string'
        ? { deprecationWarning: v.deprecationWarning }
        : {})
    })
  }
  return { key: `${spec.group}/${names.kind}`, versions }
}

/** What {@link apiFindings} looks at for one object. */
export interface ApiContext {
  served: ServedApis
  diff: DiffDefinitions
  /** `group/Kind` → the cluster's CRD of that kind, for the kinds the Diff touches. */
  cluster: ReadonlyMap<string, Definition>
}

/** A finding of the API checks: its kind and the finding. */
export interface ApiFinding extends Finding {
  kind: 'will-fail' | 'deprecated-api'
  /**
   * A `deprecated-api` finding's warning as the API server words it on every request to the
   * version, or the start of it; see {@link confirmsDeprecation}.
   */
  serverWarning?: string
}

/**
 * Whether `warning`, sent by the API server, is the deprecation warning `expected` names: the
 * same text (a CRD's), or it followed by more (a built-in's releases and replacement).
 */
export function confirmsDeprecation(warning: string, expected: string): boolean {
  return warning === expected || warning.startsWith(`${expected} `)
}

/**
 * The API findings for one added or modified object: not served (`will-fail`), or served and
 * deprecated (`deprecated-api`). A kind the Diff's own CRD or APIService defines is served once
 * that is applied, and is judged by the Diff's definition.
 */
export function apiFindings(ref: StateKey, context: ApiContext): ApiFinding[] {
  const { served } = context
  const gv = groupVersion(ref)
  const named = gvk(ref)
  const release = releaseOf(served.kubeVersion)
  const server = serverName(served.kubeVersion)
  const lifecycle = lifecycleOf(ref)
  const groupKind = `${ref.group}/${ref.kind}`
  const own = context.diff.crds.get(groupKind)
  const crd = own ?? context.cluster.get(groupKind)
  const definedVersion = crd?.get(ref.version)
  if (own !== undefined || context.diff.apiServices.has(gv)) {
    if (own !== undefined && definedVersion?.served !== true) {
      return [
        {
          kind: 'will-fail',
          path: 'apiVersion',
          message: `${gv} is not a served version of the ${ref.kind} CustomResourceDefinition of this Diff${servedList(own)}`
        }
      ]
    }
    return deprecatedCrd(ref, definedVersion)
  }
  if (!served.apiVersions.has(gv) || !served.apiVersions.has(named)) {
    const use =
      lifecycle?.replacement !== undefined
        ? `; use ${replacementText(lifecycle.replacement, ref.kind)}`
        : crd !== undefined && servedNames(crd).length > 0
          ? `; its CustomResourceDefinition serves ${servedNames(crd).join(', ')}`
          : ''
    const removed =
      lifecycle?.removed !== undefined &&
      release !== undefined &&
      atLeast(release, lifecycle.removed)
        ? `; removed in ${lifecycle.removed}`
        : ''
    const message = served.apiVersions.has(gv)
      ? `${gv} serves no kind ${ref.kind} on this cluster (${server})${use}`
      : `${gv} is not served by this cluster (${server}${removed})${use}`
    return [{ kind: 'will-fail', path: 'apiVersion', message }]
  }
  if (crd !== undefined) return deprecatedCrd(ref, definedVersion)
  if (lifecycle?.deprecated !== undefined && release !== undefined) {
    if (!atLeast(release, lifecycle.deprecated)) return []
    const goes =
      lifecycle.removed === undefined ? '' : `; it is removed in Kubernetes ${lifecycle.removed}`
    const use =
      lifecycle.replacement === undefined
        ? ''
        : `: use ${replacementText(lifecycle.replacement, ref.kind)}`
    const gvKind = named.replace(/\/([^/]+)$/, ' $1')
    return [
      {
        kind: 'deprecated-api',
        path: 'apiVersion',
        message: `${gvKind} is deprecated since Kubernetes ${lifecycle.deprecated}${goes}${use}`,
        // k8s.io/apiserver's deprecation.WarningMessage: "<group/version> <Kind> is deprecated
        // in v<release>+", then the release that removes it and the replacement.
        serverWarning: `${gvKind} is deprecated`
      }
    ]
  }
  return []
}

// The API server's warning for a deprecated custom resource version: the CRD's
// deprecationWarning, else "<group>/<version> <Kind> is deprecated" (apiextensions-apiserver).
function deprecatedCrd(ref: StateKey, version: DefinedVersion | undefined): ApiFinding[] {
  if (version?.deprecated !== true) return []
  const warning = version.deprecationWarning ?? `${groupVersion(ref)} ${ref.kind} is deprecated`
  return [
    {
      kind: 'deprecated-api',
      path: 'apiVersion',
      message: `the CustomResourceDefinition marks ${groupVersion(ref)} deprecated: ${JSON.stringify(warning)}`,
      serverWarning: warning
    }
  ]
}

function servedNames(crd: Definition): string[] {
  return [...crd].filter(([, v]) => v.served).map(([name]) => name)
}

function servedList(crd: Definition): string {
  const names = servedNames(crd)
  return names.length === 0 ? '' : ` (it serves ${names.join(', ')})`
}
