// A project whose layer 2 holds namespaced objects left without a namespace
// (docs/compatibility.md#objects-without-a-namespace): `base` (layer 1) creates its namespace;
// a kustomize manifest without defaultNamespace with one ConfigMap lacking metadata.namespace;
// a helmfile release with `namespace: <base>` whose chart does not template metadata.namespace.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** The manifest names of one project (also the base namespace: `base`). */
export interface MissingNamespaceNames {
  base: string
  kust: string
  helm: string
}

function write(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
  writeFileSync(path.join(dir, file), text)
}

/** Writes tazuna.yaml with `base` (layer 1, its own namespace) and two failing manifests (layer 2). */
export function writeCase(dir: string, names: MissingNamespaceNames): string {
  const ns = names.base
  write(
    dir,
    'base/objects.yaml',
    // The Namespace alone: Tazuna applies a sync in key order, a ConfigMap before its Namespace.
    `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${ns}}\n`
  )
  write(dir, 'base/kustomization.yaml', 'resources:\n  - objects.yaml\n')
  write(
    dir,
    'kust/objects.yaml',
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${names.kust}-ok, namespace: ${ns}}\n---\n` +
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${names.kust}-nsless}\n`
  )
  write(dir, 'kust/kustomization.yaml', 'resources:\n  - objects.yaml\n')
  write(dir, 'helm/chart/Chart.yaml', 'apiVersion: v2\nname: plain\nversion: 0.1.0\n')
  write(
    dir,
    'helm/chart/templates/cm.yaml',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n'
  )
  write(
    dir,
    'helm/helmfile.yaml',
    `releases:\n  - name: ${names.helm}\n    namespace: ${ns}\n    chart: ./chart\n`
  )
  const file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    [
      'spec:',
      '  manifests:',
      `    - {name: ${names.base}, type: kustomize, path: ./base}`,
      `    - {name: ${names.kust}, type: kustomize, path: ./kust, dependsOn: [${names.base}]}`,
      `    - {name: ${names.helm}, type: helmfile, path: ./helm/helmfile.yaml, dependsOn: [${names.base}]}`,
      ''
    ].join('\n')
  )
  return file
}

/** Gives both failing manifests `defaultNamespace: <base>` (then both apply). */
export function setDefaultNamespaces(file: string, names: MissingNamespaceNames): void {
  const text = readFileSync(file, 'utf8')
    .replace('path: ./kust,', `path: ./kust, kustomize: {defaultNamespace: ${names.base}},`)
    .replace(
      'path: ./helm/helmfile.yaml,',
      `path: ./helm/helmfile.yaml, helmfile: {defaultNamespace: ${names.base}},`
    )
  writeFileSync(file, text)
}
