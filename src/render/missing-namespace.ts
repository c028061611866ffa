/**
 * The error of a manifest whose namespaced objects have no namespace once its default namespace
 * is applied (docs/compatibility.md#objects-without-a-namespace). Tazuna sends such an object as
 * it is and the API server refuses it (`the server could not find the requested resource`);
 * filling in `default`, as the Kubernetes client would from the kubeconfig context, would put a
 * Secret where nobody asked for it and record it under a key Tazuna never writes. So the build
 * fails, naming each object and the setting that fixes it.
 */
import { ConfigError } from '../errors.js'
import { isJsonObject, type JsonObject } from '../go/yaml.js'
import type { BuildManifestSpec } from './context.js'

/** The helmfile release an object came from. */
export interface ReleaseOrigin {
  name: string
  /** The release's `namespace` as written; empty when it has none. */
  namespace: string
}

/** What the error needs besides the objects. */
export interface MissingNamespaceContext {
  manifest: BuildManifestSpec
  /** Where problems point: the manifest's path, rendered (see render/manifest.ts). */
  file: string
  /** The oras quirk in force (docs/compatibility.md#oras-default-namespace). */
  orasNamespace: 'none' | 'delegate'
  releaseOf?: (object: JsonObject) => ReleaseOrigin | undefined
}

/** One problem per object, all at once, each naming the object and the fix. */
export function missingNamespaceError(
  objects: readonly JsonObject[],
  ctx: MissingNamespaceContext
): ConfigError {
  return new ConfigError(
    objects.map((object) => ({
      file: ctx.file,
      message:
        `${describe(object)} is namespaced but has no namespace` +
        `${releaseText(object, ctx)}${explicitEmpty(object)}: Tazuna would send it without one ` +
        `and the API server refuses it (the server could not find the requested resource); ` +
        fixOf(object, ctx)
    }))
  )
}

function describe(object: JsonObject): string {
  const meta = isJsonObject(object.metadata) ? object.metadata : {}
  const text = (v: unknown): string => (typeof v === 'string' ? v : '')
  const name = text(meta.name) || '<no name>'
  return `${text(object.apiVersion)} ${text(object.kind)} ${name}`.trim()
}

function releaseText(object: JsonObject, ctx: MissingNamespaceContext): string {
  const release = ctx.releaseOf?.(object)
  return release === undefined ? '' : ` (release ${release.name})`
}

function explicitEmpty(object: JsonObject): string {
  const meta = isJsonObject(object.metadata) ? object.metadata : {}
  return meta.namespace === ''
    ? ' (it sets `metadata.namespace: ""`, which no default replaces)'
    : ''
}

function fixOf(object: JsonObject, ctx: MissingNamespaceContext): string {
  const { manifest } = ctx
  if (manifest.type === 'oras' && ctx.orasNamespace === 'none') {
    return (
      `set \`metadata.namespace\` in the artifact's objects: Tazuna's apply --sync, plan and ` +
      `state diff give an oras manifest's objects no default namespace, whatever its delegate's ` +
      `\`defaultNamespace\``
    )
  }
  const oras = manifest.type === 'oras'
  if (explicitEmpty(object) !== '') {
    const release = ctx.releaseOf?.(object)
    return release === undefined
      ? 'remove the empty `metadata.namespace` or set one'
      : `give release ${release.name} a \`namespace\`, or template another \`metadata.namespace\` in the chart`
  }
  const type = oras ? (manifest.oras?.delegate?.type ?? '') : manifest.type
  const prefix = oras ? `oras.delegate.${type}` : type
  if (type === 'kustomize') {
    return `set \`${prefix}.defaultNamespace: <namespace>\`, or set \`namespace:\` in the kustomization`
  }
  if (type === 'helmfile') return helmfileFix(object, ctx, prefix)
  return 'set `metadata.namespace` of the object'
}

function helmfileFix(object: JsonObject, ctx: MissingNamespaceContext, prefix: string): string {
  const release = ctx.releaseOf?.(object)
  if (release !== undefined && release.namespace !== '') {
    return (
      `set \`${prefix}.defaultNamespace: ${release.namespace}\`, or template ` +
      '`metadata.namespace` in the chart (`namespace: {{ .Release.Namespace }}`)'
    )
  }
  const which = release === undefined ? 'the release' : `release ${release.name}`
  return (
    `set \`${prefix}.defaultNamespace: <namespace>\`, or give ${which} a \`namespace\` and ` +
    'template `metadata.namespace` in the chart (`namespace: {{ .Release.Namespace }}`)'
  )
}
