/**
 * Synthetic repositories for the benchmark: N manifests × M objects in L layers of `dependsOn`,
 * each manifest a kustomize directory. `raw` lists one plain multi-document YAML file;
 * `kustomize` adds the transformers real overlays use (namespace, labels, a name prefix, a
 * configMapGenerator with a hash suffix). Objects are ConfigMaps, Secrets and ServiceAccounts
 * (no Services: the test cluster has 254 cluster IPs; no workloads: there is no controller).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** What to generate. */
export interface BenchRepoOptions {
  /** Unique per repository: prefixes manifest names, names the namespace. */
  id: string
  manifests: number
  objectsPerManifest: number
  layers: number
  shape: 'raw' | 'kustomize'
  /** Change the data of every n-th object (10 → 10% modified); 0 for none. */
  modifyEvery?: number
}

/** Manifest names of a repository, in declaration order (the namespace manifest first). */
export function manifestNames(options: BenchRepoOptions): string[] {
  return [namespaceManifest(options), ...objectManifests(options)]
}

function namespaceManifest(options: BenchRepoOptions): string {
  return `${options.id}-ns`
}

function objectManifests(options: BenchRepoOptions): string[] {
  return Array.from({ length: options.manifests }, (_, i) => `${options.id}-m${i}`)
}

/** The namespace all objects of the repository live in. */
export function namespaceOf(options: BenchRepoOptions): string {
  return `bench-${options.id}`
}

/** Layer of manifest `i`: layers of (almost) equal size, in declaration order. */
export function layerOf(i: number, options: BenchRepoOptions): number {
  return Math.floor((i * options.layers) / options.manifests)
}

/**
 * The repository's files: relative path → content. A first manifest holds only the Namespace;
 * the N object manifests form L layers after it.
 */
export function benchRepoFiles(options: BenchRepoOptions): Map<string, string> {
  const files = new Map<string, string>()
  const ns = namespaceManifest(options)
  files.set('tazuna.yaml', tazunaYaml(options))
  files.set(`manifests/${ns}/kustomization.yaml`, 'resources:\n  - namespace.yaml\n')
  files.set(
    `manifests/${ns}/namespace.yaml`,
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespaceOf(options)}\n`
  )
  objectManifests(options).forEach((name, i) => {
    for (const [file, text] of manifestFiles(options, i))
      files.set(`manifests/${name}/${file}`, text)
  })
  return files
}

/** `git init` and commit everything in `dir`, with no identity or signing from the user's config. */
export function commitBenchRepo(dir: string): void {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_'))
  )
  const git = (...argv: string[]) => execFileSync('git', argv, { cwd: dir, env, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git(
    '-c',
    'user.name=bench',
    '-c',
    'user.email=bench@example.invalid',
    'commit',
    '-q',
    '--no-gpg-sign',
    '-m',
    'base'
  )
}

/** Writes the files under `dir`. */
export function writeBenchRepo(dir: string, files: Map<string, string>): void {
  for (const [file, text] of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
}

function tazunaYaml(options: BenchRepoOptions): string {
  const ns = namespaceManifest(options)
  const lines = ['apiVersion: tazuna.pepabo.com/v1', 'kind: Tazuna', 'spec:', '  manifests:']
  lines.push(`    - name: ${ns}`, '      type: kustomize', `      path: ./manifests/${ns}`)
  const names = objectManifests(options)
  names.forEach((name, i) => {
    lines.push(`    - name: ${name}`, '      type: kustomize', `      path: ./manifests/${name}`)
    const deps = dependenciesOf(i, options).map((d) => names[d] ?? ns)
    lines.push(`      dependsOn: [${deps.join(', ')}]`)
  })
  return lines.join('\n') + '\n'
}

// Each manifest of layer k > 0 depends on one or two manifests of layer k - 1; layer 0 on the
// namespace manifest (index -1).
function dependenciesOf(i: number, options: BenchRepoOptions): number[] {
  const layer = layerOf(i, options)
  if (layer === 0) return [-1]
  const previous = [...Array(options.manifests).keys()].filter(
    (j) => layerOf(j, options) === layer - 1
  )
  const first = previous[i % previous.length] as number
  const second = previous[(i + 1) % previous.length] as number
  return first === second ? [first] : [first, second]
}

function manifestFiles(options: BenchRepoOptions, index: number): Map<string, string> {
  const ns = namespaceOf(options)
  const docs: string[] = []
  for (let j = 0; j < options.objectsPerManifest; j++) {
    const modified = options.modifyEvery
      ? (index * options.objectsPerManifest + j) % options.modifyEvery === 0
      : false
    docs.push(objectYaml(options, index, j, modified))
  }
  const files = new Map<string, string>([['objects.yaml', docs.join('---\n')]])
  if (options.shape === 'raw') {
    files.set('kustomization.yaml', 'resources:\n  - objects.yaml\n')
    return files
  }
  files.set(
    'kustomization.yaml',
    [
      `namespace: ${ns}`,
      'namePrefix: k-',
      'labels:',
      '  - pairs:',
      `      bench.tazuna-action/manifest: m${index}`,
      'resources:',
      '  - objects.yaml',
      'configMapGenerator:',
      `  - name: generated-${index}`,
      '    literals:',
      `      - MANIFEST=${index}`,
      ''
    ].join('\n')
  )
  return files
}

function objectYaml(options: BenchRepoOptions, m: number, j: number, modified: boolean): string {
  const ns = options.shape === 'raw' ? `\n  namespace: ${namespaceOf(options)}` : ''
  const name = `o${m}-${j}`
  const value = modified ? 'changed' : 'original'
  switch (j % 10) {
    case 8:
      return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}${ns}\ntype: Opaque\nstringData:\n  password: pw-${m}-${j}-${value}\n`
    case 9:
      return `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${name}${ns}\n  annotations:\n    bench/value: ${value}\n`
    default:
      return [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        `  name: ${name}${ns}`,
        '  labels:',
        '    app.kubernetes.io/part-of: bench',
        'data:',
        `  index: "${j}"`,
        `  value: ${value}`,
        '  settings.yaml: |',
        '    log:',
        '      level: info',
        '      format: json',
        `    feature-${j % 7}: enabled`,
        ''
      ].join('\n')
  }
}
