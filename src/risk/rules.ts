/**
 * The risk rules, one row each (docs/risks.md): which objects, which Diff entries, which kind
 * of risk, and the Kubernetes API behaviour behind it in our own words. Not here on purpose:
 * a Job's `spec.template` and `spec.selector`, which the API server refuses to change, because
 * Tazuna deletes and recreates every Job it applies (docs/compatibility.md#applying-one-object).
 */
import { fieldAt, stringAt } from './fields.js'
import type { Finding, ObjectChange, RiskContext, RiskRule } from './model.js'
import {
  definitionRemoval,
  namespaceRemoval,
  statefulSetRemoval,
  volumeRemoval
} from './destroys-data.js'
import {
  claimSpecChange,
  immutableDataChange,
  selectorChange,
  serviceClusterIpChange,
  statefulSetSpecChange
} from './will-fail.js'
import {
  clusterAdminBinding,
  podPrivileges,
  systemSubjects,
  wildcardRules
} from './widens-access.js'

const WORKLOADS = ['apps/Deployment', 'apps/ReplicaSet', 'apps/DaemonSet', 'apps/StatefulSet']
const POD_TEMPLATES = ['/Pod', '/ReplicationController', ...WORKLOADS, 'batch/Job', 'batch/CronJob']
const RBAC = 'rbac.authorization.k8s.io'

/** Every rule, in the order findings are listed within a kind. */
export const riskRules: readonly RiskRule[] = [
  {
    id: 'workload-selector',
    kind: 'will-fail',
    kinds: WORKLOADS,
    on: ['modified'],
    reference:
      'apps/v1 workloads validate an update by refusing any change to spec.selector: the selector ties the object to the Pods it already owns.',
    check: selectorChange
  },
  {
    id: 'statefulset-spec',
    kind: 'will-fail',
    kinds: ['apps/StatefulSet'],
    on: ['modified'],
    reference:
      'A StatefulSet update may only change replicas, ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and minReadySeconds; the API server forbids a change to any other spec field (volumeClaimTemplates, serviceName, podManagementPolicy, revisionHistoryLimit, …).',
    check: statefulSetSpecChange
  },
  {
    id: 'service-cluster-ip',
    kind: 'will-fail',
    kinds: ['/Service'],
    on: ['modified'],
    reference:
      'A Service keeps the cluster IPs it was given: an update that sets spec.clusterIP or spec.clusterIPs to other addresses is refused (leaving them out keeps the assigned ones).',
    check: serviceClusterIpChange
  },
  {
    id: 'claim-spec',
    kind: 'will-fail',
    kinds: ['/PersistentVolumeClaim'],
    on: ['modified'],
    reference:
      'A PersistentVolumeClaim is fixed after creation except for growing resources.requests.storage (when its storage class allows expansion) and volumeAttributesClassName; shrinking is refused too.',
    check: claimSpecChange
  },
  {
    id: 'immutable-data',
    kind: 'will-fail',
    kinds: ['/ConfigMap', '/Secret'],
    on: ['modified'],
    reference:
      'A ConfigMap or Secret created with immutable: true refuses every change to data and binaryData, and cannot be made mutable again; only deletion is allowed.',
    check: immutableDataChange
  },
  {
    id: 'volume-removal',
    kind: 'destroys-data',
    kinds: ['/PersistentVolumeClaim', '/PersistentVolume'],
    on: ['removed'],
    reference:
      'Deleting a claim releases its volume; under the Delete reclaim policy (the default of dynamically provisioned volumes) the storage and its data go with it.',
    check: volumeRemoval
  },
  {
    id: 'namespace-removal',
    kind: 'destroys-data',
    kinds: ['/Namespace'],
    on: ['removed'],
    reference: 'Deleting a Namespace deletes every object in it, whoever manages them.',
    check: namespaceRemoval
  },
  {
    id: 'definition-removal',
    kind: 'destroys-data',
    kinds: ['apiextensions.k8s.io/CustomResourceDefinition'],
    on: ['removed'],
    reference:
      'Deleting a CustomResourceDefinition deletes every stored object of its kind in every namespace.',
    check: definitionRemoval
  },
  {
    id: 'statefulset-removal',
    kind: 'destroys-data',
    kinds: ['apps/StatefulSet'],
    on: ['removed'],
    reference:
      'Deleting a StatefulSet deletes its Pods; the claims of its volumeClaimTemplates are deleted too when persistentVolumeClaimRetentionPolicy.whenDeleted is Delete.',
    check: statefulSetRemoval
  },
  {
    id: 'rbac-wildcard',
    kind: 'widens-access',
    kinds: [`${RBAC}/Role`, `${RBAC}/ClusterRole`],
    on: ['added', 'modified'],
    reference:
      'A * in a rule’s verbs, resources or apiGroups matches everything, including what later API versions and CRDs add.',
    check: wildcardRules
  },
  {
    id: 'cluster-admin-binding',
    kind: 'widens-access',
    kinds: [`${RBAC}/ClusterRoleBinding`],
    on: ['added', 'modified'],
    reference: 'cluster-admin allows every verb on every resource in every namespace.',
    check: clusterAdminBinding
  },
  {
    id: 'system-subject',
    kind: 'widens-access',
    kinds: [`${RBAC}/RoleBinding`, `${RBAC}/ClusterRoleBinding`],
    on: ['added', 'modified'],
    reference:
      'system: names are Kubernetes’ own users and groups (system:authenticated is every signed-in client, system:serviceaccounts every service account).',
    check: systemSubjects
  },
  {
    id: 'pod-privileges',
    kind: 'widens-access',
    kinds: POD_TEMPLATES,
    on: ['added', 'modified'],
    reference:
      'privileged containers, the node’s network, PID and IPC namespaces, hostPath volumes and added Linux capabilities each let a Pod reach past its container into the node.',
    check: podPrivileges
  },
  {
    id: 'replicas-under-autoscaler',
    kind: 'fights-controller',
    kinds: [...WORKLOADS.filter((k) => k !== 'apps/DaemonSet'), '/ReplicationController'],
    on: ['added', 'modified'],
    reference:
      'A HorizontalPodAutoscaler writes spec.replicas of its target; an apply that sets it too resets the count on every run (server-side apply with force takes the field back).',
    check: replicasUnderAutoscaler
  }
]

/** Workloads: `spec.replicas` set while a HorizontalPodAutoscaler targets the object. */
function replicasUnderAutoscaler(change: ObjectChange, context: RiskContext): Finding[] {
  if (fieldAt(change.head, ['spec', 'replicas']) === undefined) return []
  const hpa = context.autoscalers.find(
    (a) =>
      stringAt(a, ['metadata', 'namespace']) === change.ref.namespace &&
      stringAt(a, ['spec', 'scaleTargetRef', 'kind']) === change.ref.kind &&
      stringAt(a, ['spec', 'scaleTargetRef', 'name']) === change.ref.name
  )
  if (hpa === undefined) return []
  return [
    {
      path: 'spec.replicas',
      message: `HorizontalPodAutoscaler ${stringAt(hpa, ['metadata', 'name'])} scales this object; every apply resets its replicas`
    }
  ]
}

/** True when `rule` looks at an object of this group and kind. */
export function ruleApplies(rule: RiskRule, change: ObjectChange): boolean {
  return (
    rule.on.includes(change.type) && rule.kinds.includes(`${change.ref.group}/${change.ref.kind}`)
  )
}
