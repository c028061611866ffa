// Command regexp answers, for each Go pattern, what Tazuna's context guard would do with it
// (docs/compatibility.md#context-guard, #check step 2): regexp.Compile's error, or whether
// `^(?:PATTERN)$` matches each subject. Input {"patterns": [...], "subjects": [...]}; output one
// result per pattern.
package main

import (
	"encoding/json"
	"os"
	"regexp"
)

type input struct {
	Patterns []string `json:"patterns"`
	Subjects []string `json:"subjects"`
}

type result struct {
	Error     string `json:"error,omitempty"`
	FullError string `json:"fullError,omitempty"`
	Matches   []bool `json:"matches,omitempty"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Stderr.WriteString("regexp oracle: " + err.Error() + "\n")
		os.Exit(2)
	}
	results := make([]result, len(in.Patterns))
	for i, p := range in.Patterns {
		if _, err := regexp.Compile(p); err != nil {
			results[i] = result{Error: err.Error()}
			continue
		}
		// `\Q` without `\E` swallows the anchors: the guard itself would fail then.
		full, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			results[i] = result{FullError: err.Error()}
			continue
		}
		matches := make([]bool, len(in.Subjects))
		for j, s := range in.Subjects {
			matches[j] = full.MatchString(s)
		}
		results[i] = result{Matches: matches}
	}
	_ = json.NewEncoder(os.Stdout).Encode(results)
}
