// Command dockercreds answers, with oras.land/oras-go/v2 v2.6.0 (the version Tazuna links),
// what credential its Docker config store (credentials.NewStore, as Tazuna's
// NewStoreFromDocker opens it) returns for each case of cases.json: a config file's content and
// a registry. Output (stdout) is expected.json, which src/render/oras/docker-config.ts must
// reproduce for configs without credential helpers:
//
//	go run . < cases.json > expected.json
package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"oras.land/oras-go/v2/registry/remote/credentials"
)

type testCase struct {
	Name     string          `json:"name"`
	Config   json.RawMessage `json:"config"`
	Registry string          `json:"registry"`
}

type answer struct {
	Name     string `json:"name"`
	Username string `json:"username"`
	Password string `json:"password"`
	Error    bool   `json:"error,omitempty"`
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "dockercreds-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	out := []answer{}
	for _, c := range cases {
		file := filepath.Join(dir, "config.json")
		if err := os.WriteFile(file, c.Config, 0o600); err != nil {
			panic(err)
		}
		a := answer{Name: c.Name}
		store, err := credentials.NewStore(file, credentials.StoreOptions{})
		if err != nil {
			a.Error = true
		} else {
			cred, err := store.Get(context.Background(), credentials.ServerAddressFromRegistry(c.Registry))
			if err != nil {
				a.Error = true
			}
			a.Username, a.Password = cred.Username, cred.Password
		}
		out = append(out, a)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
