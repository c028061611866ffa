// Command kstatus-corpus prints what sigs.k8s.io/cli-utils/pkg/kstatus/status (the version go.mod
// pins) computes for every object of the YAML files in a directory: the expected values
// src/health/kstatus.ts is held equal to (docs/health.md#kstatus-parity).
//
// Usage: kstatus-corpus DIR > DIR/expected.json
//
// Every document of every DIR/*.yaml (file name order, document order) becomes one entry keyed
// "file.yaml/Kind/name"; a Compute error becomes status "Unknown" with the error as message, as
// the TypeScript side reports it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type entry struct {
	Key        string      `json:"key"`
	Status     string      `json:"status"`
	Message    string      `json:"message"`
	Conditions []condition `json:"conditions"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: kstatus-corpus DIR")
		os.Exit(2)
	}
	entries, err := corpus(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "kstatus-corpus:", err)
		os.Exit(1)
	}
	out, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "kstatus-corpus:", err)
		os.Exit(1)
	}
	os.Stdout.Write(append(out, '\n'))
}

func corpus(dir string) ([]entry, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	entries := []entry{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var object map[string]interface{}
			if err := decoder.Decode(&object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if object == nil {
				continue
			}
			// Through JSON, as objects come from the API server: integers become int64.
			raw, err := json.Marshal(object)
			if err != nil {
				return nil, err
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			entries = append(entries, compute(filepath.Base(file), u))
		}
	}
	return entries, nil
}

func compute(file string, u *unstructured.Unstructured) entry {
	e := entry{Key: fmt.Sprintf("%s/%s/%s", file, u.GetKind(), u.GetName()), Conditions: []condition{}}
	result, err := status.Compute(u)
	if err != nil {
		e.Status, e.Message = string(status.UnknownStatus), err.Error()
		return e
	}
	e.Status, e.Message = string(result.Status), result.Message
	for _, c := range result.Conditions {
		e.Conditions = append(e.Conditions, condition{string(c.Type), string(c.Status), c.Reason, c.Message})
	}
	return e
}
