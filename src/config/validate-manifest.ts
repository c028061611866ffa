/**
 * Per-manifest schema checks of `tazuna check` (docs/compatibility.md#check step 2,
 * pepabo/tazuna:pkg/validator). Messages quoted by the spec and the oras ones are upstream's;
 * the few it does not quote (helmfile var fields, op:// URIs) are worded here in the same style.
 * Path existence is deliberately not checked for kustomize/helmfile/oras
 * (docs/compatibility.md#validation-coverage).
 */
import path from 'node:path'
import type { ConfigProblem, SourceLocation } from '../errors.js'
import { parseYamlDocument } from '../go/yaml.js'
import type { ConfigFiles } from './files.js'
import { decodeGo } from '../go/json.js'
import { goQuote } from '../go/quote.js'
import type { LoadedConfig } from './load.js'
import { MANIFEST_TYPES, type HelmfileVar, type Manifest } from './schema.js'
import { genesisSecretGoType } from '../go/schema-types.js'
import { SourceIndex } from './source-index.js'

type Report = (at: SourceLocation, message: string) => void

/** The problems of `spec.manifests[index]` (a manifest with includes is checked in includes.ts). */
export async function validateManifest(
  loaded: LoadedConfig,
  manifest: Manifest,
  index: number,
  files: ConfigFiles
): Promise<ConfigProblem[]> {
  const problems: ConfigProblem[] = []
  const report: Report = (at, message) =>
    problems.push({ ...at, message: `validation failed for manifest[${index}]: ${message}` })
  if (manifest.includes.length > 0) return problems
  const at = (key: string) => loaded.sources.locate(manifest, key, manifest.source)
  if (manifest.path === '') report(manifest.source, 'manifest path is required')
  if (manifest.type === '') report(manifest.source, 'manifest type is required')
  else if (!(MANIFEST_TYPES as readonly string[]).includes(manifest.type)) {
    report(at('type'), `unsupported manifest type: ${manifest.type}`)
  }
  if (manifest.type === 'helmfile' && manifest.helmfile) {
    validateHelmfileVars(loaded, manifest.helmfile.vars, report)
  }
  if (manifest.type === 'oras') validateOras(loaded, manifest, report)
  if (manifest.type === 'genesissecret' && manifest.path !== '') {
    problems.push(...(await validateGenesisSecretUris(loaded, manifest, files)))
  }
  return problems
}

function validateHelmfileVars(
  loaded: LoadedConfig,
  vars: Record<string, HelmfileVar>,
  report: Report
): void {
  for (const [name, v] of Object.entries(vars)) {
    const at = loaded.sources.locate(vars, name)
    const q = `helmfile var '${name}'`
    switch (v.from) {
      case '':
        report(at, `${q} has no From field, supported From is 'env/static/op'`)
        break
      case 'env':
        if (v.env === '') report(at, `${q} has From env but no env field`)
        break
      case 'static': {
        const problem = staticFieldsProblem(v)
        if (problem !== undefined) report(at, `${q} has From static but ${problem}`)
        break
      }
      case 'op':
        validateOpVar(q, v, at, report)
        break
      default:
        report(
          at,
          `${q} has unsupported From ${goQuote(v.from)}, supported From is 'env/static/op'`
        )
    }
  }
}

/**
 * Tazuna's words (pkg/validator) for a `from: static` var without exactly one value field; an
 * empty value counts as unset here (docs/compatibility.md#validation-coverage).
 */
function staticFieldsProblem(v: HelmfileVar): string | undefined {
  const [s, slice, map] = [
    v.static !== '',
    v.staticSlice.length > 0,
    Object.keys(v.staticMap).length > 0
  ]
  const count = [s, slice, map].filter(Boolean).length
  if (count === 0) return 'no static/staticSlice/staticMap field'
  if (count > 1) {
    return `multiple static fields are set (static: ${s}, staticSlice: ${slice}, staticMap: ${map})`
  }
  return undefined
}

function validateOpVar(q: string, v: HelmfileVar, at: SourceLocation, report: Report): void {
  if (v.op === undefined) {
    report(at, `${q} has From op but no op field`)
    return
  }
  for (const field of ['key', 'vault', 'item', 'field'] as const) {
    if (v.op[field] === '') report(at, `${q} op.${field} is required`)
  }
  if (v.op.key !== '' && v.op.key !== 'id' && v.op.key !== 'label') {
    report(at, `${q} op.key must be 'id' or 'label', got: ${goQuote(v.op.key)}`)
  }
}

/**
 * Upstream's ValidateManifestORAS, wrapped as its ValidateManifest wraps it
 * (`oras validation failed for manifest <path>: ...`); the helmfile var texts inside are ours.
 */
function validateOras(loaded: LoadedConfig, manifest: Manifest, report: Report): void {
  const prefix = `oras validation failed for manifest ${manifest.path}: `
  const oras = manifest.oras
  if (oras === undefined) {
    report(manifest.source, `${prefix}oras spec is required for oras manifest`)
    return
  }
  const at = (key: string) => loaded.sources.locate(oras, key, manifest.source)
  if (oras.reference === '') report(at('reference'), `${prefix}oras.reference is required`)
  const type = oras.delegate.type
  if (type !== 'helmfile' && type !== 'kustomize') {
    report(
      at('delegate'),
      `${prefix}oras.delegate.type must be 'helmfile' or 'kustomize', got: ${goQuote(type)}`
    )
  }
  if (type === 'helmfile' && oras.delegate.helmfile) {
    validateHelmfileVars(loaded, oras.delegate.helmfile.vars, (where, message) => {
      const name = /^helmfile var '([^']*)'/.exec(message)?.[1] ?? ''
      report(
        where,
        `${prefix}oras.delegate.helmfile validation failed: ` +
          `helmfile var '${name}' validation failed: ${message}`
      )
    })
  }
}

/**
 * When the GenesisSecret file exists and parses and uses the built-in 1Password provider,
 * every `secrets[].uri` must be `op://<host>/<vault>/<item>`. A missing or unparseable file
 * is not a `check` problem (docs/compatibility.md#check).
 */
async function validateGenesisSecretUris(
  loaded: LoadedConfig,
  manifest: Manifest,
  files: ConfigFiles
): Promise<ConfigProblem[]> {
  const file = path.join(path.dirname(loaded.file), manifest.path)
  let spec: { provider: string; secrets: { uri: string }[] }
  const sources = new SourceIndex()
  try {
    const doc = parseYamlDocument(await files.readText(file), file)
    const decoded = decodeGo(doc.value, genesisSecretGoType, {
      file,
      lineOf: (p) => doc.lineOf(p),
      sources
    })
    if (decoded.problems.length > 0) return []
    spec = (decoded.value as { spec: typeof spec }).spec
  } catch {
    return []
  }
  if (spec.provider !== '' && spec.provider !== 'default-op') return []
  return spec.secrets.flatMap((secret, i) =>
    isOnePasswordUri(secret.uri)
      ? []
      : [
          {
            ...sources.locate(secret, 'uri', { file }),
            message: `genesissecret secrets[${i}].uri ${goQuote(secret.uri)} must be op://<host>/<vault>/<item>`
          }
        ]
  )
}

/** `op://<host>/<vault>/<item>`: a non-empty host and exactly two non-empty path segments. */
export function isOnePasswordUri(uri: string): boolean {
  const m = /^op:\/\/([^/]+)\/(.*)$/.exec(uri)
  if (!m) return false
  const segments = m[2]!.split('/')
  return segments.length === 2 && segments.every((s) => s !== '')
}
