/**
 * A Tazuna repository in a temporary directory, shaped like examples/ (namespaces -> config
 * -> web + worker), with names unique to one test: State ConfigMaps live in the shared
 * namespace `tazuna` and tests run at the same time against one cluster, so tests must not
 * share manifest or namespace names.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The repository and the names in it. */
export interface FixtureRepo {
  dir: string
  id: string
  namespace: string
  manifests: { namespaces: string; config: string; web: string; worker: string }
}

/**
 * Options: a dependsOn cycle, many extra ConfigMaps in `config` (a huge Diff), or a `worker`
 * object of a kind the API server does not serve (a failing apply).
 */
export interface FixtureOptions {
  cycle?: boolean
  extraConfigMaps?: number
  brokenWorker?: boolean
}

/** Writes the repository; `greeting` is the ConfigMap value tests change. */
export function writeFixtureRepo(options: FixtureOptions = {}): FixtureRepo {
  const id = `e2e-${randomBytes(4).toString('hex')}`
  const dir = mkdtempSync(join(tmpdir(), `tazuna-${id}-`))
  const m = {
    namespaces: `${id}-namespaces`,
    config: `${id}-config`,
    web: `${id}-web`,
    worker: `${id}-worker`
  }
  const repo = { dir, id, namespace: id, manifests: m }
  const manifest = (name: string, path: string, dependsOn: string[]) =>
    [
      `    - name: ${name}`,
      '      type: kustomize',
      `      path: ${path}`,
      // The Namespace itself gets no default namespace (it would enter its key,
      // docs/compatibility.md#cluster-scoped-namespace).
      ...(path.endsWith('namespaces')
        ? []
        : ['      kustomize:', `        defaultNamespace: ${id}`]),
      ...(dependsOn.length > 0 ? [`      dependsOn: [${dependsOn.join(', ')}]`] : [])
    ].join('\n')
  writeFileSync(
    join(dir, 'tazuna.yaml'),
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      manifest(m.namespaces, 'manifests/namespaces', options.cycle ? [m.worker] : []),
      manifest(m.config, 'manifests/config', [m.namespaces]),
      manifest(m.web, 'manifests/web', [m.config]),
      manifest(m.worker, 'manifests/worker', [m.config]),
      ''
    ].join('\n')
  )
  writeKustomization(dir, 'namespaces', { 'namespace.yaml': namespace(id) })
  writeConfig(repo, 'hello', options.extraConfigMaps ?? 0)
  writeKustomization(dir, 'web', {
    'deployment.yaml': deployment('web', 2),
    'service.yaml': service('web')
  })
  writeKustomization(dir, 'worker', {
    'deployment.yaml': options.brokenWorker
      ? 'apiVersion: example.com/v1\nkind: NoSuchKind\nmetadata:\n  name: worker\n'
      : deployment('worker', 1)
  })
  return repo
}

/** Rewrites the `config` manifest: ConfigMap `settings` with GREETING, plus `extra` ConfigMaps. */
export function writeConfig(repo: FixtureRepo, greeting: string, extra = 0): void {
  const extras = Array.from(
    { length: extra },
    (_, i) =>
      `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra-${String(i).padStart(5, '0')}\ndata:\n  value: "${i}"\n`
  ).join('')
  writeKustomization(repo.dir, 'config', {
    'settings.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  GREETING: ${greeting}\n${extras}`
  })
}

function writeKustomization(dir: string, name: string, files: Record<string, string>): void {
  const path = join(dir, 'manifests', name)
  mkdirSync(path, { recursive: true })
  writeFileSync(
    join(path, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${Object.keys(
      files
    )
      .map((f) => `  - ${f}\n`)
      .join('')}`
  )
  for (const [file, content] of Object.entries(files)) writeFileSync(join(path, file), content)
}

const namespace = (name: string): string =>
  `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`

const deployment = (name: string, replicas: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: ${name}
          image: registry.example/${name}:1.0
          envFrom:
            - configMapRef: {name: settings}
`

const service = (name: string): string => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector: {app: ${name}}
  ports:
    - port: 80
`
