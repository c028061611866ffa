// pepabo/tazuna's pkg/manager scenarios (testdata/kustomize, kustomize-with-job, helmfile,
// helmfile-with-hint, helmfile-env, helmfile-environment, helmfile-toyaml,
// helmfile-localsubchart), in its shapes, each as one manifest of a tazuna.yaml with the options
// upstream's test gives the manager, and with upstream's assertions.
/* eslint-disable jest/no-standalone-expect -- upstream's assertions, run by the tests of upstream-scenarios.test.ts */
import { expect } from '@jest/globals'
import type { ObjectRef } from '../../../src/apply/ports.js'
import {
  deployment,
  kustomization,
  myLocalChart,
  myLocalRelease,
  service,
  tazunaYaml,
  under,
  type Files
} from './upstream-files.js'
import type { UpstreamScenario } from './upstream-scenario-run.js'

const ref = (apiVersion: string, kind: string, name: string): ObjectRef => ({
  apiVersion,
  kind,
  namespace: 'default',
  name
})
const chartDeployment = ref('apps/v1', 'Deployment', 'mylocalchart-nginx')

/** testdata/helmfile: the chart and helmfile.yaml, plus `extra` files. */
const helmfileDir = (extra: Files = {}): Files =>
  under('helmfile', {
    'helmfile.yaml': myLocalRelease('./mylocalchart', ['./mylocalchart/values.yaml']),
    ...under('mylocalchart', myLocalChart),
    ...extra
  })

const helmfileManifest = (name: string, file: string, options = ''): string =>
  `{name: ${name}, type: helmfile, path: ./${file}${options === '' ? '' : `, helmfile: ${options}`}}`

/** A tazuna.yaml with one helmfile manifest, and the files it reads. */
const helmfileCase = (name: string, file: string, options: string, files: Files): Files => ({
  'tazuna.yaml': tazunaYaml([helmfileManifest(name, file, options)]),
  ...files
})

const hintFiles: Files = {
  ...helmfileDir(),
  ...under('helmfile-with-hint', {
    'helmfile.yaml.gotmpl': myLocalRelease('../helmfile/mylocalchart', [
      '../helmfile/mylocalchart/values.yaml',
      'labelFromStatic: {{ .StateValues.labelFromStatic | default "default-label" }}',
      'environment: {{ .StateValues.environment | default "unknown" }}'
    ]),
    'tazuna.hint.yaml':
      'apiVersion: tazuna.pepabo.com/v1\nkind: TazunaHint\nvars:\n  labelFromStatic:\n    type: string\n    required: true\n    description: "Label value"\n  environment:\n    type: string\n    required: false\n    default: "production"\n    description: "Environment name"\n'
  })
}

const HINT = 'helmfile-with-hint/helmfile.yaml.gotmpl'
const toyamlChart: Files = {
  'Chart.yaml':
    'apiVersion: v2\nname: mychart\ndescription: A tiny chart for toYaml regression test\nversion: 0.1.0\n',
  'values.yaml': 'namespaceList: []\n',
  'templates/configmap.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: toyaml-test\n  namespace: default\ndata:\n  namespace-count: {{ len .Values.namespaceList | quote }}\n  first-namespace: {{ index .Values.namespaceList 0 | quote }}\n  second-namespace: {{ index .Values.namespaceList 1 | quote }}\n'
}

export const managerScenarios: UpstreamScenario[] = [
  {
    name: 'manager-kustomize',
    covers: 'TestKustomize_Apply',
    files: {
      'tazuna.yaml': tazunaYaml(['{name: kustomize, type: kustomize, path: ./kustomize}']),
      ...under('kustomize', {
        'kustomization.yaml': kustomization('deployment.yaml', 'service.yaml'),
        'deployment.yaml': deployment({
          name: 'sample-deployment',
          app: 'nginx',
          replicas: 3,
          image: 'nginx:1.14.2'
        }),
        'service.yaml': service('sample-service', 'nginx')
      })
    },
    manifests: ['kustomize'],
    objects: [
      ref('apps/v1', 'Deployment', 'sample-deployment'),
      ref('v1', 'Service', 'sample-service')
    ],
    steps: [{ args: ['build'], compare: true }, { args: ['apply'] }, { args: ['apply'] }],
    check: (trace) => expect(Object.values(trace[2]?.objects ?? {})).toEqual([true, true])
  },
  {
    // With --sync: a plain apply records a Job's hash differently in each tool
    // (docs/compatibility.md#job-and-pod-hashes).
    name: 'manager-kustomize-job',
    covers: 'TestKustomize_Apply_JobIdempotency',
    files: {
      'tazuna.yaml': tazunaYaml([
        '{name: kustomize-with-job, type: kustomize, path: ./kustomize-with-job}'
      ]),
      ...under('kustomize-with-job', {
        'kustomization.yaml': kustomization('job.yaml'),
        'job.yaml':
          'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: sample-job\n  namespace: default\nspec:\n  template:\n    spec:\n      containers:\n        - name: sample\n          image: busybox\n          command: ["echo", "hello"]\n      restartPolicy: Never\n'
      })
    },
    manifests: ['kustomize-with-job'],
    objects: [ref('batch/v1', 'Job', 'sample-job')],
    steps: [
      { args: ['apply', '--sync'] },
      { args: ['apply', '--sync'] },
      { args: ['state', 'diff'], compare: true }
    ],
    check: (trace) => expect(trace[1]?.objects['Job default/sample-job']).toBe(true)
  },
  {
    name: 'manager-helmfile',
    covers: 'TestHelmfile_Apply',
    files: helmfileCase('helmfile', 'helmfile/helmfile.yaml', '', helmfileDir()),
    manifests: ['helmfile'],
    objects: [chartDeployment],
    steps: [{ args: ['build'], compare: true }, { args: ['apply'] }, { args: ['apply'] }],
    check: (trace) => expect(trace[2]?.objects['Deployment default/mylocalchart-nginx']).toBe(true)
  },
  {
    name: 'manager-helmfile-extra-values',
    covers: 'TestHelmfile_Apply_WithExtraValueFiles',
    files: helmfileCase(
      'helmfile-extra-values',
      'helmfile/helmfile-with-extra-values.yaml',
      '{extraValueFiles: [./extra-values.yaml]}',
      helmfileDir({
        'helmfile-with-extra-values.yaml': myLocalRelease('./mylocalchart', [
          './mylocalchart/values.yaml'
        ]),
        'extra-values.yaml': 'mylocalchart-nginx:\n  extraLabel: "from-extra-values"'
      })
    ),
    manifests: ['helmfile-extra-values'],
    objects: [chartDeployment],
    steps: [{ args: ['build'], compare: true }, { args: ['apply'] }],
    check: (trace) => expect(trace[0]?.stdout).toContain('extra-label: "from-extra-values"')
  },
  {
    name: 'manager-helmfile-static-vars',
    covers: 'TestHelmfile_ConstructHelmfileVars_StaticSliceAndMap',
    files: helmfileCase(
      'static-vars',
      'helmfile/helmfile.yaml',
      '{vars: {mySlice: {from: static, staticSlice: [value1, value2, value3]}, myMap: {from: static, staticMap: {key1: value1, key2: value2}}}}',
      helmfileDir()
    ),
    manifests: ['static-vars'],
    objects: [],
    steps: [
      { args: ['build'], compare: true },
      {
        edit: 'tazuna.yaml',
        text: tazunaYaml([
          helmfileManifest(
            'static-vars',
            'helmfile/helmfile.yaml',
            '{vars: {invalid: {from: static, static: value, staticSlice: [value1, value2]}}}'
          )
        ])
      },
      { args: ['build'], fails: 'multiple static fields are set' },
      {
        edit: 'tazuna.yaml',
        text: tazunaYaml([
          helmfileManifest(
            'static-vars',
            'helmfile/helmfile.yaml',
            '{vars: {invalid: {from: static}}}'
          )
        ])
      },
      { args: ['build'], fails: 'no static/staticSlice/staticMap field' }
    ]
  },
  {
    name: 'manager-helmfile-hint',
    covers: 'TestHelmfile_ConstructHelmfileVars_WithHint',
    files: helmfileCase(
      'hint',
      HINT,
      '{vars: {labelFromStatic: {from: static, static: my-label}}}',
      hintFiles
    ),
    manifests: ['hint'],
    objects: [],
    steps: [
      { args: ['build'], compare: true },
      { edit: 'tazuna.yaml', text: tazunaYaml([helmfileManifest('hint', HINT, '{vars: {}}')]) },
      { args: ['build'], fails: 'hint var "labelFromStatic" is required but not provided' },
      {
        edit: 'tazuna.yaml',
        text: tazunaYaml([
          helmfileManifest(
            'hint',
            HINT,
            '{vars: {labelFromStatic: {from: static, staticSlice: [a, b]}}}'
          )
        ])
      },
      { args: ['build'], fails: 'expects type string' }
    ],
    check: (trace) => expect(trace[0]?.stdout).toContain('label-from-static: "my-label"')
  },
  {
    name: 'manager-helmfile-env-function',
    covers: 'TestHelmfile_Build_RejectsEnvFunction',
    files: helmfileCase('env-function', 'helmfile-env/helmfile.yaml.gotmpl', '', {
      ...helmfileDir(),
      'helmfile-env/helmfile.yaml.gotmpl': myLocalRelease('../helmfile/mylocalchart', [
        'stolen: {{ env "PATH" }}'
      ])
    }),
    manifests: ['env-function'],
    objects: [],
    steps: [{ args: ['build'], fails: 'function "env" not defined' }]
  },
  {
    name: 'manager-helmfile-environment',
    covers: 'TestHelmfile_Build_EnvironmentName',
    files: {
      'tazuna.yaml': tazunaYaml(
        [helmfileManifest('environment', 'helmfile-environment/helmfile.yaml.gotmpl')],
        '  environments:\n    production: {}\n'
      ),
      ...helmfileDir(),
      'helmfile-environment/helmfile.yaml.gotmpl': myLocalRelease('../helmfile/mylocalchart', [
        'labelFromStatic: {{ .Environment.Name }}'
      ])
    },
    manifests: ['environment'],
    objects: [],
    steps: [
      { args: ['build', '-e', 'production'], compare: true },
      { args: ['build'], compare: true }
    ],
    check(trace) {
      expect(trace[0]?.stdout).toContain('label-from-static: "production"')
      expect(trace[1]?.stdout).toContain('label-from-static: "default"')
    }
  },
  {
    name: 'manager-helmfile-toyaml',
    covers: 'TestHelmfile_Build_ToYamlFunction',
    files: helmfileCase(
      'toyaml',
      'helmfile-toyaml/helmfile.yaml.gotmpl',
      '{vars: {namespaces: {from: static, staticSlice: [batch, batch-integration]}}}',
      under('helmfile-toyaml', {
        'helmfile.yaml.gotmpl':
          'releases:\n  - name: mylocalrelease\n    namespace: default\n    chart: ./mychart\n    version: 0.1.0\n    values:\n      - namespaceList:\n{{ .StateValues.namespaces | toYaml | indent 10 }}\n',
        ...under('mychart', toyamlChart)
      })
    ),
    manifests: ['toyaml'],
    objects: [ref('v1', 'ConfigMap', 'toyaml-test')],
    steps: [{ args: ['build'], compare: true }, { args: ['apply', '--sync'] }],
    check(trace) {
      for (const line of [
        'namespace-count: "2"',
        'first-namespace: "batch"',
        'second-namespace: "batch-integration"'
      ]) {
        expect(trace[0]?.stdout).toContain(line)
      }
    }
  },
  {
    name: 'manager-helmfile-localsubchart',
    covers: 'TestHelmfile_Build_LocalSubchartPath',
    files: helmfileCase(
      'localsubchart',
      'helmfile-localsubchart/helmfile.yaml',
      '',
      under('helmfile-localsubchart', {
        'helmfile.yaml': myLocalRelease('charts/mylocalchart', ['charts/mylocalchart/values.yaml']),
        ...under('charts/mylocalchart', myLocalChart)
      })
    ),
    manifests: ['localsubchart'],
    objects: [chartDeployment],
    steps: [{ args: ['build'], compare: true }],
    check: (trace) => expect(trace[0]?.stdout).toContain('mylocalchart-nginx')
  }
]
