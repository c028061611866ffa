/** Builders of the objects the risk rule tests compare. */
import type { JsonObject } from '../../../src/go/yaml.js'
import type { RiskInput } from '../../../src/risk/assess.js'
import type { DiffType } from '../../../src/state/diff.js'
import { formatStateKey, stateKeyOf } from '../../../src/state/key.js'

/** An object of `apiVersion`/`kind` named `name` in `namespace` ('' for cluster-scoped). */
export function obj(
  apiVersion: string,
  kind: string,
  body: JsonObject,
  meta: { name?: string; namespace?: string; annotations?: Record<string, string> } = {}
): JsonObject {
  const metadata: JsonObject = { name: meta.name ?? 'x' }
  if (meta.namespace !== '') metadata.namespace = meta.namespace ?? 'app'
  if (meta.annotations !== undefined) metadata.annotations = meta.annotations
  return { apiVersion, kind, metadata, ...body }
}

/** The risk input of one object changing from `before` to `head` in manifest `m`. */
export function changeOf(
  type: Exclude<DiffType, 'always-sync'>,
  before: JsonObject | undefined,
  head: JsonObject | undefined,
  extra: Partial<RiskInput> & { others?: JsonObject[] } = {}
): RiskInput {
  const key = formatStateKey(stateKeyOf('m', (head ?? before)!))
  const side = (o: JsonObject | undefined, others: JsonObject[] = []) =>
    new Map([
      [
        'm',
        new Map<string, JsonObject>([
          ...others.map((x) => [formatStateKey(stateKeyOf('m', x)), x] as const),
          ...(o === undefined ? [] : [[key, o] as const])
        ])
      ]
    ])
  const { others, ...rest } = extra
  return {
    manifests: [{ manifest: 'm', entries: [{ type, key }] }],
    before: side(before),
    head: side(head, others),
    ...rest
  }
}
