/**
 * Whether a kind is namespaced, for the missing-namespace check
 * (docs/compatibility.md#objects-without-a-namespace). Tazuna itself never asks: its state key
 * follows the object alone (docs/compatibility.md#state-keys), and a namespaced object that
 * reaches the API server without a namespace is refused there, after earlier objects of its
 * manifest went out. The check asks in this order: the built-in kinds below, the
 * CustomResourceDefinitions of the same manifest, then the server's discovery.
 */
import { isJsonObject, type JsonObject } from '../go/yaml.js'
import { groupVersionKindOf } from '../state/key.js'

/** Whether objects of apiVersion + kind are namespaced; undefined when nobody knows. */
export type NamespacedLookup = (apiVersion: string, kind: string) => Promise<boolean | undefined>

/** Built-in kinds that are cluster-scoped, as `group/Kind` (the core group is empty). */
const CLUSTER_SCOPED = [
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  '/ComponentStatus',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment',
  'storage.k8s.io/VolumeAttributesClass',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'scheduling.k8s.io/PriorityClass',
  'node.k8s.io/RuntimeClass',
  'certificates.k8s.io/CertificateSigningRequest',
  'certificates.k8s.io/ClusterTrustBundle',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'networking.k8s.io/IngressClass',
  'networking.k8s.io/IPAddress',
  'networking.k8s.io/ServiceCIDR',
  'resource.k8s.io/DeviceClass',
  'resource.k8s.io/ResourceSlice',
  'authentication.k8s.io/TokenReview',
  'authentication.k8s.io/SelfSubjectReview',
  'authorization.k8s.io/SubjectAccessReview',
  'authorization.k8s.io/SelfSubjectAccessReview',
  'authorization.k8s.io/SelfSubjectRulesReview'
]

/** Built-in kinds that are namespaced, as `group/Kind`. */
const NAMESPACED = [
  '/ConfigMap',
  '/Secret',
  '/Service',
  '/ServiceAccount',
  '/Pod',
  '/PodTemplate',
  '/ReplicationController',
  '/Endpoints',
  '/Event',
  '/LimitRange',
  '/ResourceQuota',
  '/PersistentVolumeClaim',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'apps/ControllerRevision',
  'batch/Job',
  'batch/CronJob',
  'autoscaling/HorizontalPodAutoscaler',
  'networking.k8s.io/Ingress',
  'networking.k8s.io/NetworkPolicy',
  'policy/PodDisruptionBudget',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
  'coordination.k8s.io/Lease',
  'discovery.k8s.io/EndpointSlice',
  'events.k8s.io/Event',
  'storage.k8s.io/CSIStorageCapacity',
  'resource.k8s.io/ResourceClaim',
  'resource.k8s.io/ResourceClaimTemplate',
  'authorization.k8s.io/LocalSubjectAccessReview'
]

/** `group/Kind` → namespaced, for the built-in kinds (their scope is the same in every version). */
export const BUILT_IN_SCOPES: ReadonlyMap<string, boolean> = new Map([
  ...CLUSTER_SCOPED.map((k) => [k, false] as const),
  ...NAMESPACED.map((k) => [k, true] as const)
])

/** The built-in scope of apiVersion + kind, or undefined for a kind that is not built in. */
export function builtInNamespaced(apiVersion: string, kind: string): boolean | undefined {
  const slash = apiVersion.indexOf('/')
  const group = slash < 0 ? '' : apiVersion.slice(0, slash)
  return BUILT_IN_SCOPES.get(`${group}/${kind}`)
}

/**
 * The objects that are namespaced but have no namespace (missing, null or `""` after the
 * default namespace). A kind's scope comes from the built-in kinds, then the
 * CustomResourceDefinitions among `objects`, then `lookup` (asked only for the objects that need
 * it, once per kind); a kind nobody knows is left out (apply still refuses to send it).
 */
export async function objectsWithoutNamespace(
  objects: readonly JsonObject[],
  lookup?: NamespacedLookup
): Promise<JsonObject[]> {
  const candidates = objects.filter((o) => namespaceOf(o) === '')
  if (candidates.length === 0) return []
  const crds = crdScopes(objects)
  const asked = new Map<string, Promise<boolean | undefined>>()
  const scopes = await Promise.all(
    candidates.map((o) => {
      const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : ''
      const kind = typeof o.kind === 'string' ? o.kind : ''
      const known = builtInNamespaced(apiVersion, kind) ?? crds.get(groupKindOf(o))
      if (known !== undefined || lookup === undefined) return Promise.resolve(known)
      const key = `${apiVersion}/${kind}`
      let answer = asked.get(key)
      if (answer === undefined) asked.set(key, (answer = lookup(apiVersion, kind)))
      return answer
    })
  )
  return candidates.filter((_, i) => scopes[i] === true)
}

function namespaceOf(o: JsonObject): string {
  const meta = isJsonObject(o.metadata) ? o.metadata : {}
  return typeof meta.namespace === 'string' ? meta.namespace : ''
}

function groupKindOf(o: JsonObject): string {
  const gvk = groupVersionKindOf(o)
  return `${gvk.group}/${gvk.kind}`
}

/** `group/Kind` → namespaced, from the CustomResourceDefinitions among `objects`. */
function crdScopes(objects: readonly JsonObject[]): Map<string, boolean> {
  const scopes = new Map<string, boolean>()
  for (const o of objects) {
    if (groupKindOf(o) !== 'apiextensions.k8s.io/CustomResourceDefinition') continue
    const spec = isJsonObject(o.spec) ? o.spec : {}
    const names = isJsonObject(spec.names) ? spec.names : {}
    if (typeof spec.group !== 'string' || typeof names.kind !== 'string') continue
    scopes.set(`${spec.group}/${names.kind}`, spec.scope === 'Namespaced')
  }
  return scopes
}
