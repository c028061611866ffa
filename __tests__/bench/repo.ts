/**
 * Synthetic repositories for the benchmark: N manifests × M objects in L layers of `dependsOn`,
 * each manifest a kustomize directory. `raw` lists one plain multi-document YAML file;
 * `kustomize` adds the transformers real overlays use (namespace, labels, a name prefix, a
 * configMapGenerator with a hash suffix). Objects are ConfigMaps, Secrets and ServiceAccounts
 * (no Services: the test cluster has 254 cluster IPs; no workloads, whose Pods would add
 * controller and kwok traffic to what the bench measures).
 * `helmfile` makes each manifest a helmfile of two releases of one local chart (ConfigMaps),
 * with `helmfile.defaultNamespace` set, as a team using both tools writes it.
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
  shape: 'raw' | 'kustomize' | 'helmfile'
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
    const perManifest = options.shape === 'helmfile' ? helmfileFiles : manifestFiles
    for (const [file, text] of perManifest(options, i)) files.set(`manifests/${name}/${file}`, text)
  })
  if (options.shape === 'helmfile') for (const [f, t] of CHART) files.set(`charts/bench/${f}`, t)
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
    if (options.shape === 'helmfile') {
      lines.push(`    - name: ${name}`, '      type: helmfile')
      lines.push(`      path: ./manifests/${name}/helmfile.yaml`)
      lines.push('      helmfile:', `        defaultNamespace: ${namespaceOf(options)}`)
    } else {
      lines.push(`    - name: ${name}`, '      type: kustomize', `      path: ./manifests/${name}`)
    }
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

// One chart for every release: `count` ConfigMaps, those whose index is in `changed` modified.
const CHART = new Map([
  ['Chart.yaml', 'apiVersion: v2\nname: bench\nversion: 0.1.0\n'],
  [
    'templates/configmaps.yaml',
    [
      '{{- range $i := until (int .Values.count) }}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ $.Release.Name }}-o{{ $i }}',
      '  labels:',
      '    app.kubernetes.io/part-of: bench',
      'data:',
      '  index: "{{ $i }}"',
      '  value: {{ if has (toString $i) (toStrings $.Values.changed) }}changed{{ else }}original{{ end }}',
      '{{- end }}',
      ''
    ].join('\n')
  ]
])

/** A helmfile of two releases of the bench chart, half the manifest's objects each. */
function helmfileFiles(options: BenchRepoOptions, index: number): Map<string, string> {
  const lines = ['releases:']
  const half = Math.ceil(options.objectsPerManifest / 2)
  for (const [r, count] of [half, options.objectsPerManifest - half].entries()) {
    const changed: number[] = []
    for (let j = 0; j < count; j++) {
      const object = index * options.objectsPerManifest + r * half + j
      if (options.modifyEvery && object % options.modifyEvery === 0) changed.push(j)
    }
    lines.push(`  - name: r${index}-${r}`, '    chart: ../../charts/bench', '    values:')
    lines.push(`      - count: ${count}`, `        changed: [${changed.join(', ')}]`)
  }
  return new Map([['helmfile.yaml', lines.join('\n') + '\n']])
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
