// Command render runs src/go/template/engine/render natively: it reads a JSON array of
// {text, data, mode, name} cases on stdin and writes the array of results on stdout.
// The unit tests compare the WebAssembly build, called from Node, with this output.
package main

import (
	"encoding/json"
	"os"

	"tazuna-action/gotemplate/render"
)

type renderCase struct {
	Text string          `json:"text"`
	Data json.RawMessage `json:"data"`
	Mode string          `json:"mode"`
	Name string          `json:"name"`
}

func main() {
	var cases []renderCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		os.Stderr.WriteString("render oracle: " + err.Error() + "\n")
		os.Exit(2)
	}
	results := make([]render.Result, len(cases))
	for i, c := range cases {
		results[i] = render.Render(c.Text, string(c.Data), render.Options{Mode: c.Mode, Name: c.Name})
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		os.Exit(2)
	}
}
