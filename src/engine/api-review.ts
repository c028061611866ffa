/**
 * The review's API checks (docs/risks.md#apis-the-cluster-does-not-serve): what the risk pass
 * needs to tell whether the cluster serves each added and modified object's group, version and
 * kind — discovery (read once per run, often already read for the Diff) and the
 * CustomResourceDefinitions of the custom kinds touched, in one parallel round. A cluster that
 * refuses a read leaves one notice and no API findings, never a failed run.
 */
import type { RenderedObjects } from '../report/content-diff.js'
import type { ManifestDiff } from '../report/model.js'
import {
  definitionOf,
  definitionsIn,
  type ApiContext,
  type Definition,
  type DiffDefinitions,
  type ServedApis
} from '../risk/apis.js'
import { parseStateKey, type StateKey } from '../state/key.js'
import type { ApiCatalog, KindRef } from './ports.js'
import type { JsonObject } from '../go/yaml.js'
import type { RenderModule, SchemaFinding } from '../render/ports.js'

/** The API context and schema findings for the risk pass; notices for refused reads. */
export interface ApiReview {
  apis?: ApiContext
  /** Findings of the schema check, by manifest and state key (docs/risks.md#schema-findings). */
  schema?: Map<string, Map<string, SchemaFinding[]>>
  notices?: string[]
}

/** Checks objects against OpenAPI documents (the render module's `checkSchema`). */
export type SchemaCheck = NonNullable<RenderModule['checkSchema']>

/** Reads what the API checks of `manifests`' added and modified entries need. */
export async function reviewApis(
  catalog: ApiCatalog,
  manifests: readonly ManifestDiff[],
  heads: RenderedObjects,
  check?: SchemaCheck
): Promise<ApiReview> {
  const touched = touchedKinds(manifests)
  if (touched.length === 0) return {}
  const headObjects = [...heads.values()].flatMap((objects) => [...objects.values()])
  const diff = definitionsIn(headObjects)
  const definitions = catalog
    .definitions(touched.filter((k) => !diff.crds.has(`${k.group}/${k.kind}`)))
    .then(
      (found) => ({ found }),
      (error: unknown) => ({ error })
    )
  // The documents of every touched group/version at once, beside discovery and the CRDs: the
  // check needs no answer of theirs to ask (one not served answers 404). A custom kind the
  // Diff defines is converted with the schema its CRD will publish, which references the
  // cluster's ObjectMeta: the CRDs' own document has it (read anyway when the Diff adds or
  // changes the CRD).
  const definedHere = touched.some((k) => diff.crds.has(`${k.group}/${k.kind}`))
  const documents =
    check === undefined
      ? undefined
      : catalog
          .schemas([
            ...new Set([...touched.map(groupVersionOf), ...(definedHere ? [META_DOCUMENT] : [])])
          ])
          .then(
            (found) => ({ found }),
            (error: unknown) => ({ error })
          )
  let served: ServedApis
  try {
    served = await catalog.served()
  } catch (error) {
    return {
      notices: [
        `The API checks were skipped: the cluster's served APIs could not be read (${messageOf(error)}).`
      ]
    }
  }
  // The Diff's own CRDs first: applied before their custom resources, they are what those meet.
  const crds = definitions.then((read) => [
    ...headObjects.filter(isDefinition),
    ...('found' in read ? read.found.values() : [])
  ])
  const schema =
    check === undefined || documents === undefined
      ? undefined
      : checkSchemas(check, manifests, heads, { served, diff, crds, documents })
  const read = await definitions
  const cluster = new Map<string, Definition>()
  for (const crd of 'found' in read ? read.found.values() : []) {
    const d = definitionOf(crd)
    if (d !== undefined) cluster.set(d.key, d.versions)
  }
  const notices: string[] = []
  // Without the definitions, a custom resource's deprecated version goes unflagged.
  if ('error' in read)
    notices.push(
      `The API checks of custom resources were skipped: their CustomResourceDefinitions could not be read (${messageOf(read.error)}).`
    )
  const checked = await schema
  if (checked !== undefined && 'error' in checked)
    notices.push(
      `The schema checks were skipped: the cluster's OpenAPI schemas could not be read or checked (${messageOf(checked.error)}).`
    )
  return {
    apis: { served, diff, cluster },
    ...(checked !== undefined && 'found' in checked ? { schema: checked.found } : {}),
    ...(notices.length === 0 ? {} : { notices })
  }
}

/**
 * The schema check of every added and modified object whose kind the cluster serves, or a CRD
 * of the Diff defines: the OpenAPI documents of their group/versions (read beside discovery and
 * the CRDs), then one call of the Helm program over all of them with the CRDs of the custom
 * kinds, the Diff's first.
 */
async function checkSchemas(
  check: SchemaCheck,
  manifests: readonly ManifestDiff[],
  heads: RenderedObjects,
  context: {
    served: ServedApis
    diff: DiffDefinitions
    crds: Promise<JsonObject[]>
    documents: Promise<{ found: Map<string, string> } | { error: unknown }>
  }
): Promise<{ found: Map<string, Map<string, SchemaFinding[]>> } | { error: unknown }> {
  const { served, diff } = context
  const targets: {
    manifest: string
    key: string
    object: JsonObject
    gv: string
    own: boolean
  }[] = []
  for (const m of manifests) {
    for (const e of m.entries) {
      if (e.type !== 'added' && e.type !== 'modified') continue
      const k = keyOf(e.key)
      const object = heads.get(m.manifest)?.get(e.key)
      if (k === undefined || object === undefined) continue
      const gv = k.group === '' ? k.version : `${k.group}/${k.version}`
      const own = diff.crds.get(`${k.group}/${k.kind}`)?.get(k.version)?.served === true
      if (!own && !served.apiVersions.has(`${gv}/${k.kind}`)) continue
      targets.push({ manifest: m.manifest, key: e.key, object, gv, own })
    }
  }
  if (targets.length === 0) return { found: new Map() }
  try {
    const [read, crds] = await Promise.all([context.documents, context.crds])
    if ('error' in read) return read
    const gvs = new Set(targets.map((t) => t.gv))
    if (targets.some((t) => t.own)) gvs.add(META_DOCUMENT)
    const results = await check(
      Object.fromEntries([...read.found].filter(([gv]) => gvs.has(gv))),
      targets.map((t) => t.object),
      crds
    )
    const found = new Map<string, Map<string, SchemaFinding[]>>()
    targets.forEach((t, i) => {
      const findings = results[i]
      if (findings === undefined || findings === null || findings.length === 0) return
      let byKey = found.get(t.manifest)
      if (byKey === undefined) found.set(t.manifest, (byKey = new Map<string, SchemaFinding[]>()))
      byKey.set(t.key, findings)
    })
    return { found }
  } catch (error) {
    return { error }
  }
}

/**
 * The document whose components hold the ObjectMeta schemas a CRD's published schema references
 * (src/go/render/module/internal/schema/crdtypes.go).
 */
const META_DOCUMENT = 'apiextensions.k8s.io/v1'

/** A CustomResourceDefinition of apiextensions.k8s.io/v1 (the version the Helm program reads). */
const isDefinition = (o: JsonObject): boolean =>
  o.kind === 'CustomResourceDefinition' && o.apiVersion === 'apiextensions.k8s.io/v1'

const groupVersionOf = (k: KindRef): string =>
  k.group === '' ? k.version : `${k.group}/${k.version}`

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error)

/** The distinct kinds of the added and modified entries. */
function touchedKinds(manifests: readonly ManifestDiff[]): KindRef[] {
  const kinds = new Map<string, KindRef>()
  for (const m of manifests) {
    for (const e of m.entries) {
      if (e.type !== 'added' && e.type !== 'modified') continue
      const k = keyOf(e.key)
      if (k === undefined) continue
      kinds.set(`${k.group}/${k.version}/${k.kind}`, {
        group: k.group,
        version: k.version,
        kind: k.kind
      })
    }
  }
  return [...kinds.values()]
}

function keyOf(key: string): StateKey | undefined {
  try {
    return parseStateKey(key)
  } catch {
    return undefined
  }
}
