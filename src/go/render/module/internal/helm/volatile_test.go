package helm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"

// chartFiles is a chart's files by path; Chart.yaml is added when missing.
type chartFiles map[string]string

func chartYAML(name string) string {
	return "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"
}

func writeChart(t *testing.T, dir, name string, files chartFiles) {
	t.Helper()
	if _, ok := files["Chart.yaml"]; !ok {
		files["Chart.yaml"] = chartYAML(name)
	}
	for file, text := range files {
		path := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// chartArchive is the .tgz helm package makes of a chart: every file below a NAME/ folder.
func chartArchive(t *testing.T, name string, files chartFiles) []byte {
	t.Helper()
	files["Chart.yaml"] = chartYAML(name)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for file, text := range files {
		header := &tar.Header{Name: name + "/" + file, Mode: 0o644, Size: int64(len(text)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(header); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// renderVolatile renders the chart in dir with the values texts and returns what it reports.
func renderVolatile(t *testing.T, dir string, values ...string) []string {
	t.Helper()
	in := Input{Name: "r", Namespace: "ns", ChartPath: dir}
	for i, text := range values {
		in.Values = append(in.Values, valuesText{Name: "values" + string(rune('0'+i)), Text: text})
	}
	out, err := Render(in)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	if out.Manifest == "" {
		t.Fatal("render: empty manifest")
	}
	return out.Volatile
}

func TestVolatileCallsOfTemplates(t *testing.T) {
	helpers := `{{- define "app.name" -}}{{ .Chart.Name | trunc 63 }}{{- end -}}
{{- define "app.unused" -}}{{ randAlphaNum 8 }}{{- end -}}
{{- define "app.secret" -}}{{ shuffle "abcdef" }}{{- end -}}
`
	tests := []struct {
		name   string
		files  chartFiles
		values []string
		want   []string
	}{
		{"a chart that calls none", chartFiles{
			"templates/_helpers.tpl": helpers,
			"templates/cm.yaml":      configMap + `  name: {{ include "app.name" . }}` + "\n  v: {{ .Values.v | default \"x\" | quote }}\n",
		}, nil, nil},
		{"randAlphaNum in a template", chartFiles{
			"templates/cm.yaml": configMap + "  p: {{ randAlphaNum 10 | quote }}\n",
		}, nil, []string{"randAlphaNum"}},
		{"now | date", chartFiles{
			"templates/cm.yaml": configMap + "  t: {{ now | date \"2006-01-02\" | quote }}\n",
		}, nil, []string{"date", "now"}},
		{"keys of a map in Go's order", chartFiles{
			"templates/cm.yaml": configMap + "  k: {{ keys .Values.m | join \",\" | quote }}\n",
		}, []string{"m: {a: 1, b: 2}"}, []string{"keys"}},
		{"values of a map in Go's order, inside a range", chartFiles{
			"templates/cm.yaml": configMap + "{{ range $i, $v := values .Values.m }}  v{{ $i }}: {{ $v | quote }}\n{{ end }}",
		}, []string{"m: {a: x, b: y}"}, []string{"values"}},
		{"keys sorted at once, piped or as the argument", chartFiles{
			"templates/cm.yaml": configMap + "  k: {{ keys .Values.m | sortAlpha | join \",\" | quote }}\n" +
				"  j: {{ sortAlpha (keys .Values.m) | join \",\" | quote }}\n" +
				"  v: {{ values .Values.m | sortAlpha | join \",\" | quote }}\n",
		}, []string{"m: {a: x, b: y}"}, nil},
		{"keys sorted only later still counts", chartFiles{
			"templates/cm.yaml": configMap + "  k: {{ keys .Values.m | first | quote }}\n" +
				"  l: {{ list \"b\" \"a\" | sortAlpha | join \",\" | quote }}\n",
		}, []string{"m: {a: x, b: y}"}, []string{"keys"}},
		{"in the else branch of an if", chartFiles{
			"templates/cm.yaml": configMap + "  p: {{ if .Values.p }}{{ .Values.p }}{{ else }}{{ randNumeric 4 | quote }}{{ end }}\n",
		}, []string{"p: given"}, []string{"randNumeric"}},
		{"in a range's else and a with's pipeline", chartFiles{
			"templates/cm.yaml": configMap + "{{ range .Values.l }}{{ else }}  a: {{ uuidv4 | quote }}\n{{ end }}" +
				"{{ with (list (randAlpha 3)) }}  b: {{ first . | quote }}\n{{ end }}",
		}, nil, []string{"randAlpha", "uuidv4"}},
		{"inside a define used through include", chartFiles{
			"templates/_helpers.tpl": helpers,
			"templates/cm.yaml":      configMap + `  s: {{ include "app.secret" . | quote }}` + "\n",
		}, nil, []string{"shuffle"}},
		{"inside a define used through template", chartFiles{
			"templates/_helpers.tpl": helpers,
			"templates/cm.yaml":      configMap + `  s: "{{ template "app.secret" . }}"` + "\n",
		}, nil, []string{"shuffle"}},
		{"a define nothing reaches does not count", chartFiles{
			"templates/_helpers.tpl": helpers,
			"templates/cm.yaml":      configMap + `  n: {{ include "app.name" . }}` + "\n",
		}, nil, nil},
		{"an include of a computed name reaches every define", chartFiles{
			"templates/_helpers.tpl": helpers,
			"templates/cm.yaml":      configMap + `  n: {{ include (printf "app.%s" "name") . }}` + "\n",
		}, nil, []string{"randAlphaNum", "shuffle"}},
		{"tpl of a values text that calls now", chartFiles{
			"templates/cm.yaml": configMap + "  x: {{ tpl .Values.x . | quote }}\n",
		}, []string{"x: \"{{ now | unixEpoch }}\""}, []string{"now"}},
		{"tpl of values that call none", chartFiles{
			"templates/cm.yaml": configMap + "  x: {{ tpl .Values.x . | quote }}\n",
		}, []string{"x: \"{{ .Release.Name }} now\""}, nil},
		{"tpl of a chart file", chartFiles{
			"conf/app.txt":      "user {{ randAscii 6 }}\n",
			"templates/cm.yaml": configMap + "  c: {{ tpl (.Files.Get \"conf/app.txt\") . | quote }}\n",
		}, nil, []string{"randAscii"}},
		{"tpl of the chart's own values.yaml", chartFiles{
			"values.yaml":       "x: '{{ uuidv4 }}'\n",
			"templates/cm.yaml": configMap + "  x: {{ tpl .Values.x . | quote }}\n",
		}, nil, []string{"uuidv4"}},
		{"tpl of a string literal", chartFiles{
			"templates/cm.yaml": configMap + "  x: {{ tpl \"{{ randInt 1 9 }}\" . | quote }}\n",
		}, nil, []string{"randInt"}},
		{"a comment does not count", chartFiles{
			"templates/cm.yaml": configMap + "  {{/* now randAlphaNum */}}\n  a: b\n",
		}, nil, nil},
		{"a plain YAML string does not count", chartFiles{
			"templates/cm.yaml": configMap + "  description: now\n  other: randAlphaNum uuidv4\n",
		}, nil, nil},
		{"a string literal without tpl does not count", chartFiles{
			"templates/cm.yaml": configMap + "  d: {{ \"{{ now }}\" | quote }}\n",
		}, nil, nil},
		{"getHostByName and lookup are constant here", chartFiles{
			"templates/cm.yaml": configMap + "  h: {{ getHostByName \"localhost\" | quote }}\n  l: {{ lookup \"v1\" \"Pod\" \"\" \"\" | len | quote }}\n",
		}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeChart(t, dir, "app", tt.files)
			if got := renderVolatile(t, dir, tt.values...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("volatile = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVolatileCallsOfSubcharts(t *testing.T) {
	parent := chartFiles{
		"Chart.yaml": chartYAML("app") + "dependencies:\n" +
			"- name: dirsub\n  version: 0.1.0\n  condition: dirsub.enabled\n" +
			"- name: tgzsub\n  version: 0.1.0\n  condition: tgzsub.enabled\n",
		"templates/cm.yaml": configMap + "  a: b\n",
	}
	sub := func(fn string) chartFiles {
		return chartFiles{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\ndata:\n  x: {{ " + fn + " | quote }}\n"}
	}
	dir := t.TempDir()
	writeChart(t, dir, "app", parent)
	writeChart(t, filepath.Join(dir, "charts", "dirsub"), "dirsub", sub("uuidv4"))
	if err := os.WriteFile(filepath.Join(dir, "charts", "tgzsub-0.1.0.tgz"), chartArchive(t, "tgzsub", sub("randAlpha 5")), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		values string
		want   []string
	}{
		{"a subchart directory's and a subchart archive's", "", []string{"randAlpha", "uuidv4"}},
		{"a disabled subchart's do not count", "tgzsub:\n  enabled: false\n", []string{"uuidv4"}},
		{"no subchart enabled", "tgzsub:\n  enabled: false\ndirsub:\n  enabled: false\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderVolatile(t, dir, tt.values); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("volatile = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVolatileCallsOfAnArchiveChart(t *testing.T) {
	archive := chartArchive(t, "packed", chartFiles{"templates/cm.yaml": configMap + "  k: {{ genPrivateKey \"ecdsa\" | quote }}\n"})
	file := filepath.Join(t.TempDir(), "packed-0.1.0.tgz")
	if err := os.WriteFile(file, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := renderVolatile(t, file); !reflect.DeepEqual(got, []string{"genPrivateKey"}) {
		t.Errorf("volatile = %q, want [genPrivateKey]", got)
	}
}

func TestVolatileCallsSkipsLibraryChartsRenderedTemplates(t *testing.T) {
	lib := &chart.Chart{
		Metadata: &chart.Metadata{Name: "lib", Type: "library"},
		Templates: []*chart.File{
			{Name: "templates/never.yaml", Data: []byte("{{ now }}")},
			{Name: "templates/_lib.tpl", Data: []byte(`{{ define "lib.r" }}{{ randBytes 4 }}{{ end }}`)},
		},
	}
	app := &chart.Chart{
		Metadata:  &chart.Metadata{Name: "app"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(`{{ include "lib.r" . }}`)}},
	}
	app.AddDependency(lib)
	if got := VolatileCalls(app, nil); !reflect.DeepEqual(got, []string{"randBytes"}) {
		t.Errorf("volatile = %q, want [randBytes]", got)
	}
}

func TestVolatileCallsCountsATemplateThatDoesNotParse(t *testing.T) {
	app := &chart.Chart{
		Metadata:  &chart.Metadata{Name: "app"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("{{ if }}{{ now }}")}},
	}
	if got := VolatileCalls(app, nil); !reflect.DeepEqual(got, []string{unparsed}) {
		t.Errorf("volatile = %q, want [%s]", got, unparsed)
	}
}
