// Command semver answers, with github.com/Masterminds/semver/v3 v3.5.0 (the version Helm
// v3.21.4 links), how each version string of cases.json parses and how each constraint
// checks it. Output (stdout) is expected.json, which src/go/semver*.ts must reproduce:
//
//	go run . < cases.json > expected.json
package main

import (
	"encoding/json"
	"os"
	"sort"

	"github.com/Masterminds/semver/v3"
)

type cases struct {
	Versions    []string `json:"versions"`
	Constraints []string `json:"constraints"`
}

type version struct {
	Input string `json:"input"`
	// NewVersion: canonical String() or the error.
	Loose      string `json:"loose,omitempty"`
	LooseError string `json:"looseError,omitempty"`
	// StrictNewVersion (OCI tags): whether it parses.
	Strict bool `json:"strict"`
}

type constraint struct {
	Input string `json:"input"`
	Error string `json:"error,omitempty"`
	// The versions (inputs that NewVersion accepts) Check returns true for, in input order.
	Matches []string `json:"matches,omitempty"`
}

type expected struct {
	Versions    []version    `json:"versions"`
	Constraints []constraint `json:"constraints"`
	// The NewVersion-accepted inputs in descending order (Helm's sort.Reverse(Collection)),
	// ties kept in input order.
	Descending []string `json:"descending"`
}

func main() {
	var in cases
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	var out expected
	type parsed struct {
		input string
		v     *semver.Version
	}
	var valid []parsed
	for _, s := range in.Versions {
		r := version{Input: s}
		if v, err := semver.NewVersion(s); err != nil {
			r.LooseError = err.Error()
		} else {
			r.Loose = v.String()
			valid = append(valid, parsed{s, v})
		}
		_, err := semver.StrictNewVersion(s)
		r.Strict = err == nil
		out.Versions = append(out.Versions, r)
	}
	for _, s := range in.Constraints {
		r := constraint{Input: s}
		c, err := semver.NewConstraint(s)
		if err != nil {
			r.Error = err.Error()
		} else {
			for _, p := range valid {
				if c.Check(p.v) {
					r.Matches = append(r.Matches, p.input)
				}
			}
		}
		out.Constraints = append(out.Constraints, r)
	}
	sorted := append([]parsed(nil), valid...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[j].v.LessThan(sorted[i].v) })
	for _, p := range sorted {
		out.Descending = append(out.Descending, p.input)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
