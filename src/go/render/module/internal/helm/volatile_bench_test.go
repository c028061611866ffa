package helm

import (
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

// The scan's cost on a chart of 200 templates of a Deployment each, with 30 helpers, as a large
// chart has; and the same chart calling tpl, which also scans 100 kB of values and 1 MB of
// chart files (go test -bench VolatileCalls -benchmem ./internal/helm/).

const benchDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "bench.fullname" . }}-%[1]d
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "bench.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      {{- with .Values.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ include "bench.serviceAccountName" . }}
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          {{- range $k, $v := .Values.env }}
          env:
            - name: {{ $k | upper | quote }}
              value: {{ %[2]s | quote }}
          {{- else }}
          env: []
          {{- end }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
`

func benchChart(valueExpr string) *chart.Chart {
	var helpers strings.Builder
	for _, name := range []string{"fullname", "labels", "selectorLabels", "serviceAccountName"} {
		fmt.Fprintf(&helpers, "{{- define \"bench.%s\" -}}\n{{ .Release.Name | trunc 63 | trimSuffix \"-\" }}\n{{- end }}\n", name)
	}
	for i := range 26 {
		fmt.Fprintf(&helpers, "{{- define \"bench.extra%d\" -}}\n{{ printf \"%%s-%%d\" .Chart.Name %d | quote }}\n{{- end }}\n", i, i)
	}
	ch := &chart.Chart{
		Metadata:  &chart.Metadata{Name: "bench", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/_helpers.tpl", Data: []byte(helpers.String())}},
	}
	for i := range 200 {
		text := fmt.Sprintf(benchDeployment, i, valueExpr)
		ch.Templates = append(ch.Templates, &chart.File{Name: fmt.Sprintf("templates/deploy-%03d.yaml", i), Data: []byte(text)})
	}
	return ch
}

func BenchmarkVolatileCalls(b *testing.B) {
	ch := benchChart("$v")
	b.ResetTimer()
	for b.Loop() {
		if got := VolatileCalls(ch, nil); got != nil {
			b.Fatalf("volatile = %q", got)
		}
	}
}

func BenchmarkVolatileCallsWithTpl(b *testing.B) {
	ch := benchChart("tpl $v $")
	values := []valuesText{{Name: "values", Text: strings.Repeat("key: \"{{ .Release.Name }}-value\" # a comment\n", 2200)}}
	dashboard := strings.Repeat(`{"expr": "sum(rate(x[5m])) by (pod)", "legendFormat": "{{pod}}"},`+"\n", 15000)
	ch.Raw = append(ch.Raw, &chart.File{Name: "dashboards/big.json", Data: []byte(dashboard)})
	b.ResetTimer()
	for b.Loop() {
		if got := VolatileCalls(ch, values); got != nil {
			b.Fatalf("volatile = %q", got)
		}
	}
}
