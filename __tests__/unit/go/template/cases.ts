/**
 * The Go template corpus: tazuna.yaml and helmfile templates, with what each is rendered with.
 * Expected values come from Go itself: wasm-engine.test.ts renders every case with the same Go
 * code compiled natively (__tests__/oracle/template/render) and with the WebAssembly build, and
 * integration/render/native-template.test.ts with the native Helm program, which links it too.
 */
import {
  helmfileTemplateData,
  tazunaTemplateData,
  TemplateError,
  type RenderRequest,
  type TemplateEngine
} from '../../../../src/go/template/engine.js'

const env = (environment: string) => tazunaTemplateData(environment)
const values = { n: 3, f: 1.5, big: 1e21, s: 'hello', list: ['b', 'a'], m: { y: 2, x: 1 } }
const helm = (vars: Record<string, unknown> = values, environment = 'prod') =>
  helmfileTemplateData(vars as never, environment)

const tazunaCases: [string, string, string][] = [
  ['plain environment', 'name: app-{{ .Environment }}\n', 'prod'],
  ['empty environment', 'name: app-{{ .Environment }}', ''],
  [
    'if / else if / else',
    '{{ if eq .Environment "prod" }}p{{ else if eq .Environment "stg" }}s{{ else }}d{{ end }}',
    'stg'
  ],
  ['with / else', '{{ with .Environment }}env={{ . }}{{ else }}none{{ end }}', ''],
  ['range over an integer', '{{ range 3 }}{{ . }},{{ end }}', ''],
  [
    'range with break and continue',
    '{{ range $i, $c := "abcd" }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ if eq $i 3 }}{{ break }}{{ end }}{{ $c }};{{ end }}',
    ''
  ],
  ['pipeline into printf', '{{ .Environment | printf "%s-%s" "x" }}', 'prod'],
  ['and / or / not', '{{ and .Environment "y" }} {{ or "" "z" }} {{ not .Environment }}', 'prod'],
  ['comparisons', '{{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1.5 2.0 }}', ''],
  ['len and index', '{{ len .Environment }} {{ index .Environment 0 }}', 'prod'],
  ['index of a missing map key', '{{ index . "Foo" }}', 'prod'],
  [
    'print builtins',
    '{{ html "<a&>" }} {{ js "it\'s" }} {{ urlquery "a b" }} {{ print 1 "x" 2 }} {{ println "y" }}',
    ''
  ],
  ['variables', '{{ $x := "a" }}{{ $x = "b" }}{{ $x }}', ''],
  ['trim markers', 'a\n  {{- .Environment -}}  \nb', 'prod'],
  ['comments', 'a{{/* ignored */}}b {{- /* trimmed */ -}} c', ''],
  [
    'define and template',
    '{{ define "t" }}[{{ . }}]{{ end }}{{ template "t" .Environment }}',
    'prod'
  ],
  ['undefined field', 'spec:\n  x: {{ .Foo }}\n', 'prod'],
  ['field of a string', '{{ .Environment.Name }}', 'prod'],
  ['undefined function', 'a\nb: {{ upper .Environment }}', 'prod'],
  ['sprig is absent', '{{ default "x" .Environment }}', ''],
  ['unclosed action', 'a: {{ .Environment', 'prod'],
  ['unexpected end', '{{ if .Environment }}x', 'prod'],
  ['wrong argument count', '{{ eq }}', ''],
  ['error in a defined template', '{{ define "t" }}\n{{ .Foo }}{{ end }}{{ template "t" . }}', '']
]

const helmfileCases: [string, string][] = [
  [
    'values, state values and environment name',
    '{{ .Values.s }} {{ .StateValues.s }} {{ .Environment.Name }}'
  ],
  ['numbers print as Go float64', '{{ .Values.n }} {{ .Values.f }} {{ .Values.big }}'],
  [
    'range over a list and a map',
    '{{ range .Values.list }}{{ . }},{{ end }} {{ range $k, $v := .Values.m }}{{ $k }}={{ $v }};{{ end }}'
  ],
  ['missing key is zero', '[{{ .Values.missing }}] [{{ .Environment.Nope }}]'],
  ['field of a missing key', '{{ .Values.missing.x }}'],
  [
    'sprig strings',
    '{{ upper .Values.s | quote }} {{ trim "  x " }} {{ replace "l" "L" .Values.s }} {{ "a-b" | splitList "-" | join "+" }} {{ title "hi there" }}'
  ],
  [
    'sprig defaults and logic',
    '{{ default "d" .Values.missing }} {{ empty "" }} {{ coalesce "" "c" }} {{ ternary "y" "n" true }}'
  ],
  [
    'sprig lists and dicts',
    '{{ list 3 1 2 | sortAlpha }} {{ dict "a" 1 "b" 2 | keys | sortAlpha }} {{ get .Values.m "x" }} {{ hasKey .Values.m "y" }}'
  ],
  [
    'sprig arithmetic and conversion',
    '{{ add 1 2 }} {{ mul 2 .Values.n }} {{ int "42" }} {{ toString 7 }} {{ until 3 }}'
  ],
  [
    'sprig encodings and hashes',
    '{{ b64enc "tazuna" }} {{ sha256sum "tazuna" }} {{ "a b" | urlquery }}'
  ],
  [
    'sprig regex and semver',
    '{{ regexReplaceAll "l+" .Values.s "L" }} {{ semverCompare ">=1.2.0" "1.10.0" }}'
  ],
  ['sprig indent and nindent', 'x:{{ "a: 1\nb: 2" | nindent 2 }}\ny: {{ "z" | indent 4 }}'],
  ['toYaml of values', '{{ toYaml .Values }}'],
  ['toYaml of a scalar and of a multi-line string', '{{ toYaml 1.5 }} {{ toYaml "a\nb" }}'],
  ['fromYaml', '{{ (fromYaml "a: {b: [1, yes]}").a.b }}'],
  ['fromYaml error', '{{ (fromYaml "- a").Error }}'],
  [
    'toJson and fromJson',
    '{{ toJson .Values.m }} {{ (fromJson "{\\"k\\": [1]}").k }} {{ (fromJson "[").Error }}'
  ],
  ['env is removed', '{{ env "HOME" }}'],
  ['expandenv is removed', '{{ expandenv "$HOME" }}'],
  ['fail', 'a\n{{ fail "boom" }}'],
  ['tpl is not a function', '{{ tpl "x" . }}']
]

/** Every case's request, in the order of `titles`. */
export const requests: RenderRequest[] = [
  ...tazunaCases.map(([, text, e]): RenderRequest => ({
    text,
    name: 'tazuna.yaml',
    mode: 'tazuna',
    data: env(e)
  })),
  ...helmfileCases.map(([, text]): RenderRequest => ({
    text,
    name: 'helmfile.yaml.gotmpl',
    mode: 'helmfile',
    data: helm()
  }))
]
/** Every case's title: `tazuna: ...` or `helmfile: ...`. */
export const titles = [
  ...tazunaCases.map((c) => `tazuna: ${c[0]}`),
  ...helmfileCases.map((c) => `helmfile: ${c[0]}`)
]

/** What Go made of a template: its output, or its error and the phase that failed. */
export interface GoResult {
  output: string
  error?: string
  phase?: string
}

/** `request` through `engine`, a TemplateError as a result (any other error is thrown). */
export async function outcome(engine: TemplateEngine, request: RenderRequest): Promise<GoResult> {
  try {
    return { output: await engine.render(request) }
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error
    return { output: '', error: error.message, phase: error.phase }
  }
}
