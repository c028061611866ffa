import { describe, expect, it } from '@jest/globals'
import { objectsFromYaml } from '../../../src/objects/objects.js'
import {
  builtInNamespaced,
  objectsWithoutNamespace,
  type NamespacedLookup
} from '../../../src/objects/kind-scope.js'
import { missingNamespaceError } from '../../../src/render/missing-namespace.js'

const file = 'rendered.yaml'
const names = async (
  text: string,
  defaultNamespace?: string,
  lookup?: NamespacedLookup
): Promise<string[]> =>
  (await objectsWithoutNamespace(objectsFromYaml(text, { file, defaultNamespace }), lookup)).map(
    (o) => `${o.kind as string}/${(o.metadata as { name: string }).name}`
  )

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
`

describe('objectsWithoutNamespace (docs/compatibility.md#objects-without-a-namespace)', () => {
  it.each([
    [
      'a built-in namespaced kind without namespace',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n',
      undefined,
      ['ConfigMap/a']
    ],
    [
      'a built-in kind of a named group',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n',
      undefined,
      ['Deployment/d']
    ],
    [
      'an explicit empty namespace, which no default replaces',
      'apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ""}\n',
      'apps',
      ['Secret/s']
    ],
    [
      'nothing once defaultNamespace is set',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n',
      'apps',
      []
    ],
    [
      'nothing for an object with its own namespace',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n',
      undefined,
      []
    ],
    [
      'nothing for cluster-scoped kinds',
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n',
      undefined,
      []
    ],
    [
      'a custom resource whose CRD in the manifest is Namespaced',
      `${CRD}---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n`,
      undefined,
      ['Widget/w']
    ],
    [
      'nothing for a custom resource whose CRD in the manifest is Cluster',
      `${CRD.replace('Namespaced', 'Cluster')}---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n`,
      undefined,
      []
    ],
    [
      'nothing for a kind nobody knows',
      'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n',
      undefined,
      []
    ]
  ])('finds %s', async (_, text, ns, expected) => {
    expect(await names(text, ns)).toEqual(expected)
  })

  it('asks the lookup (discovery) for other kinds, once per kind', async () => {
    const asked: string[] = []
    const lookup: NamespacedLookup = (apiVersion, kind) => {
      asked.push(`${apiVersion} ${kind}`)
      return Promise.resolve(kind === 'Gadget' ? true : kind === 'Tool' ? false : undefined)
    }
    const text = ['Gadget/g1', 'Gadget/g2', 'Tool/t', 'Thing/x', 'ConfigMap/c']
      .map((k) => {
        const [kind, name] = k.split('/')
        const apiVersion = kind === 'ConfigMap' ? 'v1' : 'example.com/v1'
        return `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: ${name}}\n`
      })
      .join('---\n')
    expect(await names(text, undefined, lookup)).toEqual(['Gadget/g1', 'Gadget/g2', 'ConfigMap/c'])
    expect(asked.sort()).toEqual([
      'example.com/v1 Gadget',
      'example.com/v1 Thing',
      'example.com/v1 Tool'
    ])
  })

  it('asks nothing when every object has a namespace', async () => {
    const lookup: NamespacedLookup = () => Promise.reject(new Error('asked'))
    const text = 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n'
    expect(await names(text, 'apps', lookup)).toEqual([])
  })

  it.each([
    ['v1', 'ConfigMap', true],
    ['v1', 'Namespace', false],
    ['batch/v1', 'Job', true],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', false],
    ['example.com/v1', 'ConfigMap', undefined]
  ])('knows built-in %s %s', (apiVersion, kind, expected) => {
    expect(builtInNamespaced(apiVersion, kind)).toBe(expected)
  })
})

describe('missingNamespaceError', () => {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' } }

  it('names a helmfile object, its release and the fix with the release namespace', () => {
    const error = missingNamespaceError([object], {
      manifest: { name: 'web', type: 'helmfile', path: 'web' },
      file: 'web (rendered by helmfile for manifest web)',
      orasNamespace: 'none',
      releaseOf: () => ({ name: 'frontend', namespace: 'apps' })
    })
    expect(error.message).toBe(
      'web (rendered by helmfile for manifest web): v1 ConfigMap app is namespaced but has no ' +
        'namespace (release frontend): Tazuna would send it without one and the API server ' +
        'refuses it (the server could not find the requested resource); set ' +
        '`helmfile.defaultNamespace: apps`, or template `metadata.namespace` in the chart ' +
        '(`namespace: {{ .Release.Namespace }}`)'
    )
  })

  it('names a kustomize object and the fix', () => {
    const error = missingNamespaceError([object, { ...object, kind: 'Secret' }], {
      manifest: { name: 'k', type: 'kustomize', path: 'k' },
      file: 'k (rendered by kustomize for manifest k)',
      orasNamespace: 'none'
    })
    expect(error.problems.map((p) => p.message.split(':')[0])).toEqual([
      'v1 ConfigMap app is namespaced but has no namespace',
      'v1 Secret app is namespaced but has no namespace'
    ])
    expect(error.message).toContain(
      'set `kustomize.defaultNamespace: <namespace>`, or set `namespace:` in the kustomization'
    )
  })

  it('tells an oras manifest that its delegate default does not apply in a sync', () => {
    const error = missingNamespaceError([object], {
      manifest: { name: 'o', type: 'oras', path: '' },
      file: 'o',
      orasNamespace: 'none'
    })
    expect(error.message).toContain("set `metadata.namespace` in the artifact's objects")
  })
})
