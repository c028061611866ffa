/**
 * The API server's size limit on ConfigMap data, checked before a State save so an oversized
 * State fails with a message naming the manifest instead of a bare 422
 * (docs/compatibility.md#state-storage "no size management" upstream).
 */
import { ClusterError } from '../errors.js'

/**
 * kube-apiserver's limit (k8s.io/kubernetes pkg/apis/core: `MaxSecretSize = 1 * 1024 * 1024`,
 * applied by `ValidateConfigMap`).
 */
export const CONFIGMAP_DATA_LIMIT = 1024 * 1024

const utf8 = new TextEncoder()

/**
 * The size `ValidateConfigMap` compares with the limit: the sum of the UTF-8 byte lengths of
 * the data *values* (keys are not counted; Go's `len(string)` counts bytes).
 */
export function configMapDataSize(data: Readonly<Record<string, string>>): number {
  let total = 0
  for (const value of Object.values(data)) total += utf8.encode(value).length
  return total
}

/** Throws when `data` would be rejected as too long; names the manifest and entry count. */
export function assertStateFits(
  manifest: string,
  data: Readonly<Record<string, string>>,
  entryCount: number
): void {
  const size = configMapDataSize(data)
  if (size <= CONFIGMAP_DATA_LIMIT) return
  throw new ClusterError(
    `state of manifest "${manifest}" is too large to save: ${entryCount} entries make ` +
      `${size} bytes of ConfigMap data, over the API server's limit of ${CONFIGMAP_DATA_LIMIT} ` +
      `bytes (1 MiB); split the manifest into smaller ones`
  )
}
