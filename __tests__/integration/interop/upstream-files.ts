// Files in the shapes of pepabo/tazuna's own test data (pkg/runner/testdata, pkg/manager/testdata),
// written by our tests: not copies. Kustomizations and chart templates upstream does not keep
// next to its test data are written here in the form its tests imply (the objects they look for).

/** A file tree: path relative to the workspace → content. */
export type Files = Record<string, string>

/** A Deployment as upstream's test data writes one (nginx, port 80); no namespace when `ns` is ''. */
export function deployment(o: {
  name: string
  app: string
  replicas: number
  image: string
  ns?: string
  container?: string
}): string {
  const ns = o.ns ?? 'default'
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${o.name}`,
    ...(ns === '' ? [] : [`  namespace: ${ns}`]),
    '  labels:',
    `    app: ${o.app}`,
    'spec:',
    `  replicas: ${o.replicas}`,
    '  selector:',
    '    matchLabels:',
    `      app: ${o.app}`,
    '  template:',
    '    metadata:',
    '      labels:',
    `        app: ${o.app}`,
    '    spec:',
    '      containers:',
    `      - name: ${o.container ?? o.app}`,
    `        image: ${o.image}`,
    '        ports:',
    '        - containerPort: 80',
    ''
  ].join('\n')
}

/** A ClusterIP Service on port 80 in `default`. */
export function service(name: string, app: string): string {
  return `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  selector:\n    app: ${app}\n  ports:\n  - protocol: TCP\n    port: 80\n    targetPort: 80\n`
}

/** A kustomization listing `resources`. */
export function kustomization(...resources: string[]): string {
  return `resources:\n${resources.map((r) => `  - ${r}\n`).join('')}`
}

/** Files under `dir`. */
export function under(dir: string, files: Files): Files {
  return Object.fromEntries(Object.entries(files).map(([p, text]) => [`${dir}/${p}`, text]))
}

/** testdata/ok/kustomize: Deployment nginx-deployment and Service nginx in `default`. */
export const okKustomize: Files = {
  'kustomization.yaml': kustomization('deployment.yaml', 'service.yaml'),
  'deployment.yaml': deployment({
    name: 'nginx-deployment',
    app: 'nginx',
    replicas: 3,
    image: 'nginx:1.14.2'
  }),
  'service.yaml': service('nginx', 'nginx')
}

/** testdata/tags/kustomize<n>: Deployment nginx<n> in `default`. */
export function tagsKustomize(n: number): Files {
  return {
    'kustomization.yaml': kustomization('deployment.yaml'),
    'deployment.yaml': deployment({
      name: `nginx${n}`,
      app: `nginx${n}`,
      replicas: 3,
      image: 'nginx:1.14.2'
    })
  }
}

/** A Tazuna document with these manifests (YAML flow maps, one a line). */
export function tazunaYaml(manifests: string[], extra = ''): string {
  return `apiVersion: tazuna.pepabo.com/v1\nkind: Tazuna\nspec:\n${extra}  manifests:\n${manifests.map((m) => `    - ${m}\n`).join('')}`
}

/**
 * pkg/manager/testdata/helmfile/mylocalchart: upstream keeps only its Chart.yaml in the data we
 * can read; its tests look for Deployment default/mylocalchart-nginx with labels from values, so
 * the template is the one of upstream's helmfile-localsubchart chart.
 */
export const myLocalChart: Files = {
  'Chart.yaml':
    'apiVersion: v2\nname: mylocalchart\ndescription: A tiny local chart\nversion: 0.1.0\n',
  'values.yaml':
    'replicaCount: 1\nlabelFromStatic: "dummy"\nlabelFromOp: "dummy"\nimage:\n  repository: nginx\n  tag: "1.29.0"\n\nservice:\n  type: ClusterIP\n  port: 80\n',
  'templates/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: mylocalchart-nginx
  namespace: default
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      app: mylocalchart-nginx
  template:
    metadata:
      labels:
        app: mylocalchart-nginx
        label-from-static: {{ .Values.labelFromStatic | quote }}
        label-from-op: {{ .Values.labelFromOp | quote }}
        {{- if and (index .Values "mylocalchart-nginx") (index .Values "mylocalchart-nginx" "extraLabel") }}
        extra-label: {{ index .Values "mylocalchart-nginx" "extraLabel" | quote }}
        {{- end }}
    spec:
      containers:
        - name: nginx
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          ports:
            - containerPort: 80
`
}

/** A helmfile with release mylocalrelease in `default` from `chart`, then `values` lines. */
export function myLocalRelease(chart: string, values: string[]): string {
  return `releases:\n  - name: mylocalrelease\n    namespace: default\n    chart: ${chart}\n    version: 0.1.0\n    values:\n${values.map((v) => `      - ${v}\n`).join('')}`
}
