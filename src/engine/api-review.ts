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
  type ServedApis
} from '../risk/apis.js'
import { parseStateKey, type StateKey } from '../state/key.js'
import type { ApiCatalog, KindRef } from './ports.js'

/** The API context for the risk pass; a notice instead when the cluster refused a read. */
export interface ApiReview {
  apis?: ApiContext
  notice?: string
}

/** Reads what the API checks of `manifests`' added and modified entries need. */
export async function reviewApis(
  catalog: ApiCatalog,
  manifests: readonly ManifestDiff[],
  heads: RenderedObjects
): Promise<ApiReview> {
  const touched = touchedKinds(manifests)
  if (touched.length === 0) return {}
  const diff = definitionsIn([...heads.values()].flatMap((objects) => [...objects.values()]))
  const definitions = catalog
    .definitions(touched.filter((k) => !diff.crds.has(`${k.group}/${k.kind}`)))
    .then(
      (found) => ({ found }),
      (error: unknown) => ({ error })
    )
  let served: ServedApis
  try {
    served = await catalog.served()
  } catch (error) {
    return {
      notice: `The API checks were skipped: the cluster's served APIs could not be read (${messageOf(error)}).`
    }
  }
  const read = await definitions
  const cluster = new Map<string, Definition>()
  for (const crd of 'found' in read ? read.found.values() : []) {
    const d = definitionOf(crd)
    if (d !== undefined) cluster.set(d.key, d.versions)
  }
  return {
    apis: { served, diff, cluster },
    // Without the definitions, a custom resource's deprecated version goes unflagged.
    ...('error' in read
      ? {
          notice: `The API checks of custom resources were skipped: their CustomResourceDefinitions could not be read (${messageOf(read.error)}).`
        }
      : {})
  }
}

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
