/**
 * The objects of one manifest go to the API server in waves, each wave's objects concurrently
 * (bounded), the next wave only after the whole previous one succeeded. The waves keep the
 * orders that matter when objects are not sent one at a time in render order:
 *
 * 1. CustomResourceDefinitions (the cluster port waits until each is Established and served),
 *    so that custom resources of the same manifest find their kind;
 * 2. Namespaces, so that namespaced objects find theirs;
 * 3. what admission of other objects reads: ServiceAccounts (a Pod naming a missing one is
 *    rejected), ResourceQuotas and LimitRanges (defaults and limits apply only to objects
 *    created after them), PriorityClasses, RuntimeClasses, StorageClasses;
 * 4. everything else (Job and Pod recreation happens inside the cluster port, per object);
 * 5. admission webhooks and policies and APIServices, which change how the API server treats
 *    every later request: last, as Helm installs them, so that a webhook whose backend is in
 *    the same manifest does not intercept its siblings before that backend exists.
 *
 * Waves 3 and 4 are one when the third holds ServiceAccounts only and nothing in the fourth can
 * need one: no Pod, nothing that makes Pods, no token Secret, no kind but those listed in
 * SERVICE_ACCOUNT_FREE (a custom resource's controller may make Pods). A manifest of
 * ConfigMaps, Secrets and its ServiceAccounts then goes out in one round of requests.
 *
 * Deletes (prune) go in the reverse order. Tazuna itself sends one request at a time.
 */
import type { JsonObject } from '../go/yaml.js'
import { parseStateKey } from '../state/key.js'

/**
 * Objects in flight per manifest: as many as the API server takes on one connection (its
 * HTTP/2 streams, 100 by default); the kube client bounds the whole run's requests in flight.
 */
export const OBJECT_CONCURRENCY = 100

// Kinds whose admission and whose controllers read no ServiceAccount and make no Pods.
const SERVICE_ACCOUNT_FREE = new Set([
  '/ConfigMap',
  '/Secret',
  '/Service',
  '/Endpoints',
  '/PersistentVolumeClaim',
  '/ServiceAccount',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'networking.k8s.io/NetworkPolicy',
  'networking.k8s.io/Ingress',
  'networking.k8s.io/IngressClass',
  'policy/PodDisruptionBudget',
  'discovery.k8s.io/EndpointSlice',
  'coordination.k8s.io/Lease',
  'autoscaling/HorizontalPodAutoscaler'
])

const ADMISSION_INPUTS = new Set([
  '/ServiceAccount',
  '/ResourceQuota',
  '/LimitRange',
  'scheduling.k8s.io/PriorityClass',
  'node.k8s.io/RuntimeClass',
  'storage.k8s.io/StorageClass'
])

const API_CHANGERS = new Set([
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'apiregistration.k8s.io/APIService'
])

/** The apply wave (0 first) of the object a state key names. */
export function applyWaveOf(key: string): number {
  const { group, kind } = parseStateKey(key)
  const groupKind = `${group}/${kind}`
  if (groupKind === 'apiextensions.k8s.io/CustomResourceDefinition') return 0
  if (groupKind === '/Namespace') return 1
  if (ADMISSION_INPUTS.has(groupKind)) return 2
  if (API_CHANGERS.has(groupKind)) return 4
  return 3
}

/**
 * Groups keys into their apply waves, first wave first (last first with `reverse`, for
 * deletes), keeping the given order within a wave. With `objectOf` (applies), a wave of
 * ServiceAccounts only joins the next one when nothing there can need them (see above).
 */
export function wavesOf(
  keys: readonly string[],
  options: { reverse?: boolean; objectOf?: (key: string) => JsonObject | undefined } = {}
): string[][] {
  const byWave = new Map<number, string[]>()
  for (const key of keys) {
    const wave = applyWaveOf(key)
    byWave.set(wave, [...(byWave.get(wave) ?? []), key])
  }
  const inputs = byWave.get(2)
  const rest = byWave.get(3)
  const { objectOf } = options
  if (
    objectOf &&
    inputs &&
    rest &&
    [...inputs, ...rest].every((k) => needsNoServiceAccount(k, objectOf))
  ) {
    byWave.delete(2)
    byWave.set(3, [...inputs, ...rest])
  }
  const order = [...byWave.keys()].sort((a, b) => (options.reverse ? b - a : a - b))
  return order.map((wave) => byWave.get(wave) ?? [])
}

function needsNoServiceAccount(key: string, objectOf: (key: string) => JsonObject | undefined) {
  const { group, kind } = parseStateKey(key)
  if (!SERVICE_ACCOUNT_FREE.has(`${group}/${kind}`)) return false
  // The token controller deletes a token Secret whose ServiceAccount it does not find.
  return !(
    group === '' &&
    kind === 'Secret' &&
    objectOf(key)?.type === 'kubernetes.io/service-account-token'
  )
}

/**
 * Runs `fn` over every wave's items with at most `limit` at a time, wave after wave. After
 * the first failure nothing new starts; the calls in flight finish, and the failure of the
 * earliest item (in the given order) is thrown, so the error does not depend on timing.
 */
export async function runInWaves<T>(
  waves: readonly (readonly T[])[],
  limit: number,
  fn: (item: T) => Promise<void>
): Promise<void> {
  for (const wave of waves) {
    const failures = await settleBounded(wave, limit, fn)
    const first = failures.find((f) => f !== undefined)
    if (first !== undefined) throw first.error
  }
}

async function settleBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>
): Promise<({ error: unknown } | undefined)[]> {
  const failures = new Array<{ error: unknown } | undefined>(items.length)
  let next = 0
  let failed = false
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++
      try {
        await fn(items[i] as T)
      } catch (error) {
        failures[i] = { error }
        failed = true
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return failures
}
