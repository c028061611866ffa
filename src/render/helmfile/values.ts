/**
 * Release values (docs/compatibility.md#helmfile step 5): Tazuna merges, in order, each `values[]`
 * entry (a file relative to the helmfile directory, an inline map, or null) and then every
 * `helmfile.extraValueFiles` entry, with Helm's deep merge.
 *
 * We hand the same sequence to `helm template` as one `-f` per entry, in order. Helm's CLI folds
 * `-f` files with exactly that deep merge (helm.sh/helm/v3/pkg/cli/values: `mergeMaps`, later
 * wins, maps merge recursively, anything else replaces), so the result is identical by
 * construction, and every file is parsed by Helm's own sigs.k8s.io/yaml reader as Tazuna parses
 * it. Only inline maps need a file: adjacent inline maps are merged here (same function) and
 * written as JSON, which that reader parses to the same values.
 */
import path from 'node:path'
import { isJsonObject, type JsonObject, type JsonValue } from '../../go/yaml.js'

/** One `-f` argument to be: a user's file, or inline values that must be written to a file. */
export type ValuesSource =
  { kind: 'file'; path: string; entry: string } | { kind: 'inline'; values: JsonObject }

/** Helm's `mergeMaps`: a new map with `b` merged over `a`; nested maps merge, others replace. */
export function mergeHelmValues(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a }
  for (const [key, value] of Object.entries(b)) {
    const current = out[key]
    out[key] =
      isJsonObject(value) && isJsonObject(current) ? mergeHelmValues(current, value) : value
  }
  return out
}

/** A values[] entry that is neither a file name, a map nor null. */
export class ValuesEntryError extends Error {
  override name = 'ValuesEntryError'
}

/**
 * The ordered `-f` sources for a release: its `values[]` (strings resolve against
 * `helmfileDir`, null entries vanish, adjacent maps merge) followed by `extraValueFiles`.
 */
export function planValuesSources(
  values: readonly JsonValue[],
  extraValueFiles: readonly string[],
  helmfileDir: string
): ValuesSource[] {
  const sources: ValuesSource[] = []
  const addInline = (values: JsonObject): void => {
    const last = sources.at(-1)
    if (last?.kind === 'inline') last.values = mergeHelmValues(last.values, values)
    else sources.push({ kind: 'inline', values })
  }
  values.forEach((entry, index) => {
    if (entry === null) return
    if (typeof entry === 'string') {
      sources.push({ kind: 'file', path: path.resolve(helmfileDir, entry), entry })
    } else if (isJsonObject(entry)) {
      addInline(entry)
    } else {
      throw new ValuesEntryError(
        `values[${index}] must be a file name or a map, got ${Array.isArray(entry) ? 'a list' : typeof entry}`
      )
    }
  })
  for (const file of extraValueFiles) {
    sources.push({ kind: 'file', path: path.resolve(helmfileDir, file), entry: file })
  }
  return sources
}
