/** Naming an object the way the cluster port addresses it (src/apply/ports.ts ObjectRef). */
import { isJsonObject, type JsonObject } from '../go/yaml.js'
import type { ObjectRef } from './ports.js'

/** The reference of an object (apiVersion, kind, metadata.namespace, metadata.name). */
export function refOf(object: JsonObject): ObjectRef {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {}
  const text = (v: unknown): string => (typeof v === 'string' ? v : '')
  const namespace = text(metadata.namespace)
  return {
    apiVersion: text(object.apiVersion),
    kind: text(object.kind),
    ...(namespace === '' ? {} : { namespace }),
    name: text(metadata.name)
  }
}
