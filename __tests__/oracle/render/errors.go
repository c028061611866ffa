package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// libraryError marks an error returned by the library call Tazuna makes (loader.Load,
// action.Install.Run, krusty's Kustomizer.Run): its text is what a parity case expects, without
// the oracle's own "release NAME:" wrapping, which neither Tazuna nor the action share.
type libraryError struct{ err error }

func (e libraryError) Error() string { return e.err.Error() }
func (e libraryError) Unwrap() error { return e.err }

// caseDirPlaceholder stands for the fixture's absolute directory in recorded error texts, so
// they do not depend on where the repository was checked out; the test puts its own back.
const caseDirPlaceholder = "<case>"

// errorExpectation is DIR/expected.json of a case whose render fails.
type errorExpectation struct {
	Producer string `json:"producer"`
	Error    string `json:"error"`
}

// recordFixture renders DIR like runFixture; when the render fails with a library error, it
// writes that error's text instead of objects. Any other failure (a broken case.json, a
// conversion error) still stops the oracle.
func recordFixture(dir string) error {
	dir = strings.TrimSuffix(dir, "/")
	for _, stale := range []string{"expected.json", "expected-build.yaml"} {
		if err := os.Remove(filepath.Join(dir, stale)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	err := runFixture(dir)
	var lib libraryError
	if err == nil || !errors.As(err, &lib) {
		return err
	}
	abs, absErr := filepath.Abs(dir)
	if absErr != nil {
		return absErr
	}
	out := errorExpectation{
		Producer: "__tests__/oracle/render (go run . -record-errors " + filepath.Base(dir) + ")",
		Error:    strings.ReplaceAll(lib.Error(), abs, caseDirPlaceholder),
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: error recorded: %s\n", dir, out.Error)
	return os.WriteFile(filepath.Join(dir, "expected.json"), append(js, '\n'), 0o644)
}
