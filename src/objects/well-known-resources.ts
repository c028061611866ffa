/**
 * The REST resources of the built-in kinds every supported Kubernetes version serves (GA APIs,
 * 1.23 and later), so that applying, reading and deleting them needs no discovery: a sync of
 * ConfigMaps and Deployments then sends no `GET /api` or `GET /apis` before its first apply
 * (docs/benchmarks.md#round-trips). A kind not listed here, or a version the server does not
 * serve after all (a write answered 404), is looked up by discovery as before.
 * `__tests__/integration/cluster/well-known-resources.test.ts` checks every entry against the
 * test API server's discovery.
 */
import { BUILT_IN_SCOPES } from './kind-scope.js'

/** How to reach one kind over REST (as discovery describes it). */
export interface WellKnownResource {
  group: string
  version: string
  kind: string
  resource: string
  namespaced: boolean
}

/** `apiVersion Kind resource`, one per line. */
const TABLE = `
v1 ConfigMap configmaps
v1 Endpoints endpoints
v1 LimitRange limitranges
v1 Namespace namespaces
v1 PersistentVolume persistentvolumes
v1 PersistentVolumeClaim persistentvolumeclaims
v1 Pod pods
v1 PodTemplate podtemplates
v1 ReplicationController replicationcontrollers
v1 ResourceQuota resourcequotas
v1 Secret secrets
v1 Service services
v1 ServiceAccount serviceaccounts
apps/v1 ControllerRevision controllerrevisions
apps/v1 DaemonSet daemonsets
apps/v1 Deployment deployments
apps/v1 ReplicaSet replicasets
apps/v1 StatefulSet statefulsets
batch/v1 CronJob cronjobs
batch/v1 Job jobs
autoscaling/v1 HorizontalPodAutoscaler horizontalpodautoscalers
autoscaling/v2 HorizontalPodAutoscaler horizontalpodautoscalers
networking.k8s.io/v1 Ingress ingresses
networking.k8s.io/v1 IngressClass ingressclasses
networking.k8s.io/v1 NetworkPolicy networkpolicies
policy/v1 PodDisruptionBudget poddisruptionbudgets
rbac.authorization.k8s.io/v1 ClusterRole clusterroles
rbac.authorization.k8s.io/v1 ClusterRoleBinding clusterrolebindings
rbac.authorization.k8s.io/v1 Role roles
rbac.authorization.k8s.io/v1 RoleBinding rolebindings
storage.k8s.io/v1 CSIDriver csidrivers
storage.k8s.io/v1 StorageClass storageclasses
scheduling.k8s.io/v1 PriorityClass priorityclasses
coordination.k8s.io/v1 Lease leases
discovery.k8s.io/v1 EndpointSlice endpointslices
node.k8s.io/v1 RuntimeClass runtimeclasses
apiextensions.k8s.io/v1 CustomResourceDefinition customresourcedefinitions
apiregistration.k8s.io/v1 APIService apiservices
admissionregistration.k8s.io/v1 MutatingWebhookConfiguration mutatingwebhookconfigurations
admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration validatingwebhookconfigurations
`

function parse(table: string): Map<string, WellKnownResource> {
  const out = new Map<string, WellKnownResource>()
  for (const line of table.trim().split('\n')) {
    const [apiVersion, kind, resource] = line.split(' ') as [string, string, string]
    const slash = apiVersion.indexOf('/')
    const group = slash < 0 ? '' : apiVersion.slice(0, slash)
    const namespaced = BUILT_IN_SCOPES.get(`${group}/${kind}`)
    if (namespaced === undefined) throw new Error(`well-known resource ${line}: scope unknown`)
    out.set(`${apiVersion}/${kind}`, {
      group,
      version: apiVersion.slice(slash + 1),
      kind,
      resource,
      namespaced
    })
  }
  return out
}

/** Every well-known resource, by `apiVersion/Kind`. */
export const WELL_KNOWN_RESOURCES: ReadonlyMap<string, WellKnownResource> = parse(TABLE)

/** The well-known resource of apiVersion + kind, or undefined (ask discovery). */
export function wellKnownResource(apiVersion: string, kind: string): WellKnownResource | undefined {
  return WELL_KNOWN_RESOURCES.get(`${apiVersion}/${kind}`)
}
