// pepabo/tazuna's pkg/runner scenarios (testdata/ok, testdata/tags, testdata/include and the
// inline manifests of its apply, state-save, sync and dependsOn tests), in its shapes, with
// upstream's assertions. Upstream runs them against controller-runtime's fake client; here both
// tools run them on a real API server through their command lines.
/* eslint-disable jest/no-standalone-expect -- upstream's assertions, run by the tests of upstream-scenarios.test.ts */
import { expect } from '@jest/globals'
import type { ObjectRef } from '../../../src/apply/ports.js'
import { decodeDataKey } from '../../../src/state/data-key.js'
import {
  deployment,
  kustomization,
  okKustomize,
  tagsKustomize,
  tazunaYaml,
  under,
  type Files
} from './upstream-files.js'
import { tagBlocks, type Trace, type UpstreamScenario } from './upstream-scenario-run.js'

const ref = (apiVersion: string, kind: string, name: string): ObjectRef => ({
  apiVersion,
  kind,
  namespace: 'default',
  name
})
const nginxDeployment = ref('apps/v1', 'Deployment', 'nginx-deployment')
const nginxService = ref('v1', 'Service', 'nginx')
const okObjects = [nginxDeployment, nginxService]
const present = (trace: Trace, i: number, r: ObjectRef): boolean | undefined =>
  trace[i]?.objects[`${r.kind} ${r.namespace}/${r.name}`]
/** State entries of manifest `m` after command `i`, by state key (no `_metadata`). */
const entries = (trace: Trace, i: number, m: string): Record<string, string> | undefined => {
  const data = trace[i]?.state[m]
  if (data === undefined) return undefined
  const { _metadata: _, ...rest } = data
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [decodeDataKey(k), v]))
}

const okFiles: Files = {
  'tazuna.yaml':
    'spec:\n  manifests:\n  - name: kustomize\n    tags:\n    - kustomize\n    type: kustomize\n    path: ./kustomize\n',
  ...under('kustomize', okKustomize)
}

const tagsFiles: Files = {
  'tazuna.yaml':
    'spec:\n  manifests:\n  - name: kustomize1\n    type: kustomize\n    path: ./kustomize1\n    tags:\n      - kustomize1\n  - name: kustomize2\n    type: kustomize\n    path: ./kustomize2\n    tags:\n      - kustomize2\n',
  ...under('kustomize1', tagsKustomize(1)),
  ...under('kustomize2', tagsKustomize(2))
}

const includeFiles: Files = {
  'tazuna.yaml':
    'apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\nspec:\n  manifests:\n    - name: "include manifest"\n      description: "includes kustomize and genesisSecret manifests"\n      includes:\n        - path: "kustomize.yaml"\n        - path: "genesissecret.yaml"\n',
  'kustomize.yaml':
    'apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\nspec:\n  manifests:\n    - name: "kustomize deployment"\n      description: "deploy nginx with kustomize"\n      path: "kustomize"\n      type: "kustomize"\n      tags:\n        - "nginx"\n',
  'genesissecret.yaml':
    'apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\nspec:\n  manifests:\n    - name: "test secret"\n      description: "deploy test secret"\n      path: "secret.yaml"\n      type: "genesissecret"\n      tags:\n        - "secret"\n',
  'secret.yaml': genesisSecret(),
  'kustomize/kustomization.yaml': kustomization('deployment.yaml'),
  // No namespace, as upstream's: the fake client accepts it, a real API server does not.
  'kustomize/deployment.yaml': deployment({
    name: 'nginx-include-test',
    app: 'nginx',
    replicas: 1,
    image: 'nginx:1.14.2',
    ns: ''
  })
}

/**
 * testdata/include/secret.yaml as upstream's GenesisSecret test describes it: no `secrets`
 * (no 1Password), fixed values and one kubernetesSecret output, default/test-secret-expanded.
 */
function genesisSecret(): string {
  return 'apiVersion: tazuna.pepabo.com/v1\nkind: GenesisSecret\nmetadata:\n  name: test-secret\n  namespace: default\nspec:\n  static:\n    username: "test-user"\n    password: "test-pass"\n  outputs:\n    - kubernetesSecret:\n        namespace: default\n        name: test-secret-expanded\n        type: Opaque\n'
}

/** testdata/ok/deployment.yaml with another image (TestApply_SyncMode_*). */
const nginxImage = (image: string): string =>
  deployment({ name: 'nginx-deployment', app: 'nginx', replicas: 3, image })

const oneKustomize = (name: string): Files => ({
  'tazuna.yaml': tazunaYaml([`{name: ${name}, type: kustomize, path: ./kustomize}`]),
  ...under('kustomize', okKustomize)
})

const configMapDir = (name: string): Files => ({
  'kustomization.yaml': kustomization('cm.yaml'),
  'cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  manifest: ${name}\n`
})

export const runnerScenarios: UpstreamScenario[] = [
  {
    name: 'runner-ok',
    covers:
      'TestApplyToCluster_OK, TestApplyToCluster_StateSaved_HappyPath_Kustomize, TestApplyToCluster_StateSaved_IdempotentOnReapply, TestListTags_NoTags',
    files: okFiles,
    manifests: ['kustomize'],
    objects: okObjects,
    steps: [
      { args: ['tags'], compare: true },
      { args: ['build'], compare: true },
      { args: ['state', 'diff'], compare: true },
      { args: ['apply'] },
      { args: ['apply'] },
      { args: ['state', 'diff'], compare: true }
    ],
    check(trace) {
      expect(tagBlocks(trace[0]?.stdout)).toEqual(['kustomize:\n- kustomize\n'])
      expect([present(trace, 3, nginxDeployment), present(trace, 3, nginxService)]).toEqual([
        true,
        true
      ])
      const keys = Object.keys(entries(trace, 3, 'kustomize') ?? {})
      expect(keys.length).toBeGreaterThanOrEqual(2)
      for (const key of keys) expect(key.split('/')).toHaveLength(6)
      expect(entries(trace, 4, 'kustomize')).toEqual(entries(trace, 3, 'kustomize'))
    }
  },
  {
    name: 'runner-tags',
    covers: 'TestApplyToCluster_WithTags, TestListTags_OK',
    files: tagsFiles,
    manifests: ['kustomize1', 'kustomize2'],
    objects: [ref('apps/v1', 'Deployment', 'nginx1'), ref('apps/v1', 'Deployment', 'nginx2')],
    steps: [
      { args: ['tags'], compare: true },
      { args: ['apply', '-t', 'kustomize1'] },
      { args: ['state', 'diff'], compare: true }
    ],
    check(trace) {
      expect(tagBlocks(trace[0]?.stdout)).toEqual([
        'kustomize1:\n- kustomize1\n',
        'kustomize2:\n- kustomize2\n'
      ])
      expect(trace[1]?.objects).toEqual({
        'Deployment default/nginx1': true,
        'Deployment default/nginx2': false
      })
      expect(trace[1]?.state.kustomize2).toBeUndefined()
    }
  },
  {
    // Upstream's fake client takes a namespace-less Deployment; a real server does not
    // (docs/compatibility.md#objects-without-a-namespace): both tools fail and create nothing.
    // `state diff` is left out: there the tools differ as documented in the same section.
    name: 'runner-include',
    covers: 'TestApply_WithIncludes, TestExpandIncludes, TestListTags_WithIncludes',
    files: includeFiles,
    manifests: ['kustomize deployment', 'test secret'],
    objects: [
      ref('apps/v1', 'Deployment', 'nginx-include-test'),
      ref('v1', 'Secret', 'test-secret-expanded')
    ],
    steps: [
      { args: ['tags'], compare: true },
      { args: ['apply'], fails: true },
      { args: ['plan'], fails: true }
    ],
    check(trace) {
      expect(tagBlocks(trace[0]?.stdout)).toEqual([
        'nginx:\n- kustomize deployment\n',
        'secret:\n- test secret\n'
      ])
      expect(trace[1]?.objects['Deployment default/nginx-include-test']).toBe(false)
      expect(trace[1]?.state['kustomize deployment']).toBeUndefined()
    }
  },
  {
    name: 'runner-state-multiple',
    covers: 'TestApplyToCluster_StateSaved_MultipleManifestsIndependent',
    files: {
      'tazuna.yaml': tazunaYaml([
        '{name: manifest-a, type: kustomize, path: ./ok}',
        '{name: manifest-b, type: kustomize, path: ./kustomize1}'
      ]),
      ...under('ok', okKustomize),
      ...under('kustomize1', tagsKustomize(1))
    },
    manifests: ['manifest-a', 'manifest-b'],
    objects: [...okObjects, ref('apps/v1', 'Deployment', 'nginx1')],
    steps: [{ args: ['apply'] }, { args: ['state', 'diff'], compare: true }],
    check(trace) {
      for (const m of ['manifest-a', 'manifest-b']) {
        const keys = Object.keys(entries(trace, 0, m) ?? {})
        expect(keys.length).toBeGreaterThan(0)
        for (const key of keys) expect(key.startsWith(`${m}/`)).toBe(true)
      }
    }
  },
  {
    name: 'runner-apply-failure',
    covers: 'TestApplyToCluster_StateSaved_ApplyFailureNoState',
    files: {
      'tazuna.yaml': tazunaYaml([
        '{name: broken-manifest, type: kustomize, path: ./does-not-exist-on-purpose}'
      ])
    },
    manifests: ['broken-manifest'],
    objects: [],
    steps: [{ args: ['apply'], fails: true }],
    check: (trace) => expect(trace[0]?.state).toEqual({})
  },
  {
    name: 'runner-genesissecret',
    covers: 'TestApplyToCluster_StateSaved_GenesisSecret',
    files: {
      'tazuna.yaml': tazunaYaml([
        '{name: genesis-secret-manifest, type: genesissecret, path: ./secret.yaml}'
      ]),
      'secret.yaml': genesisSecret()
    },
    manifests: ['genesis-secret-manifest'],
    objects: [ref('v1', 'Secret', 'test-secret-expanded')],
    steps: [{ args: ['apply'] }],
    check(trace) {
      const keys = Object.keys(entries(trace, 0, 'genesis-secret-manifest') ?? {})
      expect(keys.some((k) => k.split('/')[3] === 'Secret')).toBe(true)
      expect(trace[0]?.objects['Secret default/test-secret-expanded']).toBe(true)
    }
  },
  {
    name: 'runner-unnamed',
    covers: 'TestApplyToCluster_StateSaved_EmptyManifestName',
    files: {
      'tazuna.yaml': tazunaYaml(['{type: kustomize, path: ./kustomize}']),
      ...under('kustomize', okKustomize)
    },
    manifests: [''],
    objects: okObjects,
    steps: [{ args: ['apply'] }],
    check: (trace) => expect(trace[0]?.state).toEqual({})
  },
  {
    name: 'runner-sync-diff-only',
    covers: 'TestApply_SyncMode_DiffOnly',
    files: oneKustomize('sync-manifest'),
    manifests: ['sync-manifest'],
    objects: okObjects,
    steps: [{ args: ['apply'] }, { args: ['apply', '--sync'] }],
    check(trace) {
      expect(entries(trace, 1, 'sync-manifest')).toEqual(entries(trace, 0, 'sync-manifest'))
      expect(trace[1]?.syncedAt).toEqual(trace[0]?.syncedAt)
    }
  },
  {
    name: 'runner-sync-modified',
    covers: 'TestApply_SyncMode_ModifiedResource',
    files: oneKustomize('sync-modify'),
    manifests: ['sync-modify'],
    objects: okObjects,
    steps: [
      { args: ['apply'] },
      { edit: 'kustomize/deployment.yaml', text: nginxImage('nginx:1.27.0') },
      { args: ['state', 'diff'], compare: true },
      { args: ['apply', '--sync'] }
    ],
    check(trace) {
      const [before, after] = [entries(trace, 0, 'sync-modify'), entries(trace, 2, 'sync-modify')]
      const key = Object.keys(before ?? {}).find((k) => k.endsWith('/nginx-deployment')) ?? ''
      expect(Object.keys(after ?? {})).toHaveLength(Object.keys(before ?? {}).length)
      expect(after?.[key]).not.toBe(before?.[key])
    }
  },
  {
    name: 'runner-sync-prune',
    covers: 'TestApply_SyncMode_PruneRemovedResource, TestApply_SyncMode_PruneWithoutSyncErrors',
    files: oneKustomize('sync-prune'),
    manifests: ['sync-prune'],
    objects: okObjects,
    steps: [
      { args: ['apply'] },
      { args: ['apply', '--prune'], fails: '--prune requires --sync' },
      { edit: 'kustomize/service.yaml' },
      { edit: 'kustomize/kustomization.yaml', text: kustomization('deployment.yaml') },
      { args: ['state', 'diff'], compare: true },
      { args: ['apply', '--sync', '--prune'] }
    ],
    check(trace) {
      expect(trace[3]?.objects['Service default/nginx']).toBe(false)
      expect(
        Object.keys(entries(trace, 3, 'sync-prune') ?? {}).filter((k) => k.includes('/Service/'))
      ).toEqual([])
    }
  },
  {
    name: 'runner-sync-atomic',
    covers: 'TestApply_SyncMode_AtomicMode',
    files: {
      'tazuna.yaml': tazunaYaml([
        '{name: atomic-a, type: kustomize, path: ./a}',
        '{name: atomic-b, type: kustomize, path: ./b}'
      ]),
      ...under('a', okKustomize),
      ...under('b', tagsKustomize(1))
    },
    manifests: ['atomic-a', 'atomic-b'],
    objects: [...okObjects, ref('apps/v1', 'Deployment', 'nginx1')],
    steps: [
      { args: ['apply'] },
      { args: ['apply', '--sync', '--atomic'] },
      { edit: 'a/deployment.yaml', text: nginxImage('nginx:1.29.0') },
      {
        edit: 'b/deployment.yaml',
        text: deployment({
          name: 'nginx1',
          app: 'nginx1',
          replicas: 1,
          image: 'nginx:1.29.0',
          container: 'nginx'
        })
      },
      { args: ['apply', '--sync', '--atomic'] }
    ],
    check(trace) {
      for (const m of ['atomic-a', 'atomic-b']) {
        expect(entries(trace, 1, m)).toEqual(entries(trace, 0, m))
        expect(entries(trace, 2, m)).not.toEqual(entries(trace, 0, m))
      }
    }
  },
  {
    name: 'runner-depends-on',
    covers: 'TestApply_DependsOn_OrderRespected, TestApply_DependsOn_LayerFailureStopsNextLayer',
    files: {
      'tazuna.yaml': tazunaYaml([
        '{name: c, type: kustomize, path: ./c, dependsOn: [b]}',
        '{name: b, type: kustomize, path: ./b, dependsOn: [a]}',
        '{name: a, type: kustomize, path: ./a}'
      ]),
      ...under('a', configMapDir('dag-a')),
      ...under('b', configMapDir('dag-b')),
      ...under('c', configMapDir('dag-c'))
    },
    manifests: ['a', 'b', 'c'],
    objects: ['dag-a', 'dag-b', 'dag-c'].map((n) => ref('v1', 'ConfigMap', n)),
    steps: [
      { args: ['apply', '--sync'] },
      { edit: 'b/kustomization.yaml', text: kustomization('cm.yaml', 'missing.yaml') },
      { edit: 'c/cm.yaml', text: configMapDir('dag-c2')['cm.yaml'] },
      { args: ['apply', '--sync'], fails: 'layer 1 apply failed' }
    ],
    check(trace) {
      expect(Object.keys(trace[0]?.state ?? {}).sort()).toEqual(['a', 'b', 'c'])
      expect(trace[1]?.state.c).toEqual(trace[0]?.state.c)
    }
  }
]
