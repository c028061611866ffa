import { describe, expect, it } from '@jest/globals'
import type { JsonObject } from '../../../src/go/yaml.js'
import { assessRisks, type RiskInput } from '../../../src/risk/assess.js'
import { changeOf, obj } from './objects.js'

const selector = (app: string): JsonObject => ({ matchLabels: { app } })
const deployment = (spec: JsonObject): JsonObject => obj('apps/v1', 'Deployment', { spec })
const sts = (spec: JsonObject): JsonObject =>
  obj('apps/v1', 'StatefulSet', {
    spec: { selector: selector('db'), serviceName: 'db', template: {}, ...spec }
  })
const service = (spec: JsonObject): JsonObject => obj('v1', 'Service', { spec })
const pvc = (storage: string, extra: JsonObject = {}): JsonObject =>
  obj('v1', 'PersistentVolumeClaim', {
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...extra }
  })
const configMap = (data: JsonObject, immutable?: boolean): JsonObject =>
  obj('v1', 'ConfigMap', { data, ...(immutable === undefined ? {} : { immutable }) })
const role = (rules: JsonObject[]): JsonObject =>
  obj('rbac.authorization.k8s.io/v1', 'Role', { rules })
const crb = (roleName: string, subjects: JsonObject[] = []): JsonObject =>
  obj(
    'rbac.authorization.k8s.io/v1',
    'ClusterRoleBinding',
    {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects
    },
    { namespace: '' }
  )
const podSpec = (spec: JsonObject): JsonObject =>
  deployment({
    selector: selector('a'),
    template: { spec: { containers: [{ name: 'c' }], ...spec } }
  })
const hpa = (target: string): JsonObject =>
  obj(
    'autoscaling/v2',
    'HorizontalPodAutoscaler',
    { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target } } },
    { name: 'scaler' }
  )

/** [what, input, expected (kind, path) pairs] — a flagging case and its near miss per rule. */
const cases: [string, RiskInput, [string, string][]][] = [
  [
    'a Deployment whose selector changes',
    changeOf(
      'modified',
      deployment({ selector: selector('a') }),
      deployment({ selector: selector('b') })
    ),
    [['will-fail', 'spec.selector']]
  ],
  [
    'a Deployment whose replicas change (near miss)',
    changeOf(
      'modified',
      deployment({ selector: selector('a'), replicas: 1 }),
      deployment({ selector: selector('a'), replicas: 3 })
    ),
    []
  ],
  [
    'a StatefulSet whose volumeClaimTemplates change',
    changeOf(
      'modified',
      sts({ volumeClaimTemplates: [pvc('1Gi')] }),
      sts({ volumeClaimTemplates: [pvc('2Gi')] })
    ),
    [['will-fail', 'spec.volumeClaimTemplates']]
  ],
  [
    'a StatefulSet whose serviceName and podManagementPolicy change',
    changeOf('modified', sts({}), sts({ serviceName: 'db2', podManagementPolicy: 'Parallel' })),
    [
      ['will-fail', 'spec.podManagementPolicy'],
      ['will-fail', 'spec.serviceName']
    ]
  ],
  [
    'a StatefulSet whose updatable fields change (near miss)',
    changeOf(
      'modified',
      sts({ replicas: 1 }),
      sts({
        replicas: 2,
        minReadySeconds: 5,
        updateStrategy: { type: 'OnDelete' },
        template: { metadata: { labels: { v: '2' } } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' },
        ordinals: { start: 1 }
      })
    ),
    []
  ],
  [
    'a Service whose clusterIP changes',
    changeOf('modified', service({ clusterIP: '10.0.0.10' }), service({ clusterIP: '10.0.0.11' })),
    [['will-fail', 'spec.clusterIP']]
  ],
  [
    'a Service that stops naming its clusterIP (near miss: the assigned one stays)',
    changeOf('modified', service({ clusterIP: '10.0.0.10' }), service({ ports: [{ port: 80 }] })),
    []
  ],
  [
    'a PersistentVolumeClaim whose access modes change',
    changeOf('modified', pvc('1Gi'), pvc('1Gi', { accessModes: ['ReadWriteMany'] })),
    [['will-fail', 'spec.accessModes']]
  ],
  [
    'a PersistentVolumeClaim that shrinks',
    changeOf('modified', pvc('2Gi'), pvc('1500Mi')),
    [['will-fail', 'spec.resources.requests.storage']]
  ],
  [
    'a PersistentVolumeClaim whose storage grows (near miss)',
    changeOf('modified', pvc('1Gi'), pvc('10Gi')),
    []
  ],
  [
    'an immutable ConfigMap whose data changes',
    changeOf('modified', configMap({ a: '1' }, true), configMap({ a: '2' }, true)),
    [['will-fail', 'data']]
  ],
  [
    'a mutable ConfigMap whose data changes (near miss)',
    changeOf('modified', configMap({ a: '1' }), configMap({ a: '2' }, true)),
    []
  ],
  [
    'a Job whose template changes (near miss: Tazuna recreates Jobs)',
    changeOf(
      'modified',
      obj('batch/v1', 'Job', { spec: { template: { spec: { restartPolicy: 'Never' } } } }),
      obj('batch/v1', 'Job', { spec: { template: { spec: { restartPolicy: 'OnFailure' } } } })
    ),
    []
  ],
  [
    'a removed PersistentVolumeClaim',
    changeOf('removed', pvc('1Gi'), undefined),
    [['destroys-data', '']]
  ],
  [
    'a modified PersistentVolumeClaim (near miss)',
    changeOf('modified', pvc('1Gi'), pvc('2Gi')),
    []
  ],
  [
    'a removed Namespace',
    changeOf('removed', obj('v1', 'Namespace', {}, { name: 'app', namespace: '' }), undefined),
    [['destroys-data', '']]
  ],
  [
    'a removed CustomResourceDefinition',
    changeOf(
      'removed',
      obj(
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        { spec: { names: { kind: 'Widget' } } },
        {
          name: 'widgets.example.com',
          namespace: ''
        }
      ),
      undefined
    ),
    [['destroys-data', '']]
  ],
  [
    'a removed StatefulSet with volumeClaimTemplates',
    changeOf('removed', sts({ volumeClaimTemplates: [pvc('1Gi')] }), undefined),
    [['destroys-data', 'spec.volumeClaimTemplates']]
  ],
  ['a removed StatefulSet without claims (near miss)', changeOf('removed', sts({}), undefined), []],
  [
    'a Role gaining * verbs',
    changeOf(
      'modified',
      role([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]),
      role([{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }])
    ),
    [['widens-access', 'rules[0].verbs']]
  ],
  [
    'a Role with explicit verbs (near miss)',
    changeOf(
      'added',
      undefined,
      role([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] }])
    ),
    []
  ],
  [
    'a new ClusterRoleBinding to cluster-admin',
    changeOf('added', undefined, crb('cluster-admin', [{ kind: 'User', name: 'ci' }])),
    [['widens-access', 'roleRef']]
  ],
  [
    'a ClusterRoleBinding to view (near miss)',
    changeOf('added', undefined, crb('view', [{ kind: 'User', name: 'ci' }])),
    []
  ],
  [
    'a binding gaining a system: subject',
    changeOf(
      'modified',
      crb('view', [{ kind: 'User', name: 'ci' }]),
      crb('view', [{ kind: 'Group', name: 'system:authenticated' }])
    ),
    [['widens-access', 'subjects[0].name']]
  ],
  [
    'a Pod template gaining privileged, hostNetwork, hostPath and a capability',
    changeOf(
      'modified',
      podSpec({}),
      podSpec({
        hostNetwork: true,
        volumes: [{ name: 'root', hostPath: { path: '/' } }],
        containers: [
          { name: 'c', securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN'] } } }
        ]
      })
    ),
    [
      ['widens-access', 'spec.template.spec.hostNetwork'],
      ['widens-access', 'spec.template.spec.volumes[root].hostPath'],
      ['widens-access', 'spec.template.spec.containers[c].securityContext.privileged'],
      [
        'widens-access',
        'spec.template.spec.containers[c].securityContext.capabilities.add[NET_ADMIN]'
      ]
    ]
  ],
  [
    'a Pod template that already had hostNetwork (near miss)',
    changeOf(
      'modified',
      podSpec({ hostNetwork: true }),
      podSpec({ hostNetwork: true, dnsPolicy: 'Default' })
    ),
    []
  ],
  [
    'replicas set on a Deployment an autoscaler of the Diff targets',
    changeOf('modified', deployment({ replicas: 1 }), deployment({ replicas: 2 }), {
      others: [hpa('x')]
    }),
    [['fights-controller', 'spec.replicas']]
  ],
  [
    'replicas left to the autoscaler (near miss)',
    changeOf('modified', deployment({ replicas: 1 }), deployment({ selector: selector('a') }), {
      others: [hpa('x')]
    }),
    []
  ]
]

describe('risk rules', () => {
  it.each(cases)('%s', (_what, input, expected) => {
    expect(assessRisks(input).map((r) => [r.kind, r.path])).toEqual(expected)
  })
})
