// Command tabwriter prints, for each text of cases.json, what Go's text/tabwriter writes for it
// with the settings Tazuna's `chart list` uses (minwidth 0, tabwidth 0, padding 2, padchar ' ',
// flags 0). Output (stdout) is expected.json, which src/go/tabwriter.ts must reproduce:
//
//	go run . < cases.json > expected.json
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"text/tabwriter"
)

type answer struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

func main() {
	var inputs []string
	if err := json.NewDecoder(os.Stdin).Decode(&inputs); err != nil {
		panic(err)
	}
	answers := make([]answer, 0, len(inputs))
	for _, input := range inputs {
		var out bytes.Buffer
		tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', 0)
		if _, err := tw.Write([]byte(input)); err != nil {
			panic(err)
		}
		if err := tw.Flush(); err != nil {
			panic(err)
		}
		answers = append(answers, answer{Input: input, Output: out.String()})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(answers); err != nil {
		panic(err)
	}
}
