// Package confine keeps a native render's reads in the repository: the rule of
// src/config/confinement.ts (README: Paths stay in the repository), applied by the program
// itself where no engine-side file bridge stands between it and the disk
// (docs/renderers.md#native-kustomize). In WebAssembly the engine's bridge applies it instead.
package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Policy is where reads may resolve: the repository root and the directories a team allowed;
// Name, when set, is how messages name the root ("the base commit's tree" for the temporary
// worktree of a pull request's base), else they name the root's path.
type Policy struct {
	Root    string   `json:"root"`
	Allowed []string `json:"allowed"`
	Name    string   `json:"name,omitempty"`
}

// Guard answers whether a path may be read under any of its policies; nil reads anywhere.
type Guard struct {
	policies []Policy // directories symlink-resolved, as the paths checked against them
	written  []string // each policy's root as given, to tell which one a path is written in
}

// New is the guard of policies; nil when there are none to apply (nil policies).
func New(policies []Policy) *Guard {
	if policies == nil {
		return nil
	}
	g := &Guard{policies: make([]Policy, 0, len(policies))}
	for _, p := range policies {
		resolved := Policy{Root: Real(p.Root), Name: p.Name}
		for _, dir := range p.Allowed {
			resolved.Allowed = append(resolved.Allowed, Real(dir))
		}
		g.policies = append(g.policies, resolved)
		g.written = append(g.written, p.Root)
	}
	return g
}

// Check is nil when file may be read: it resolves (symlinks followed) inside a policy's root or
// allowed directories — or, for metadataOnly questions (does it exist, is it a directory, where
// does it resolve), to one of their ancestors, which resolving a path inside looks at.
// Otherwise the error names the path, where it leads and the repository it is written in (the
// first policy's when none), as the engine's file adapter words it (src/config/confinement.ts).
func (g *Guard) Check(op, file string, metadataOnly bool) error {
	if g == nil {
		return nil
	}
	real := Real(file)
	for _, p := range g.policies {
		dirs := append([]string{p.Root}, p.Allowed...)
		for _, dir := range dirs {
			if within(real, dir) || (metadataOnly && within(dir, real)) {
				return nil
			}
		}
	}
	refused := file + ": no repository to read from"
	if owner := g.owner(file); owner >= 0 {
		refused = refusal(file, real, g.policies[owner])
	}
	return &fs.PathError{Op: op, Path: file, Err: errors.New(refused)}
}

// owner is the index of the policy whose root holds file as written, else 0; -1 without any.
func (g *Guard) owner(file string) int {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	for i, p := range g.policies {
		if within(abs, p.Root) || within(abs, filepath.Clean(g.written[i])) {
			return i
		}
	}
	if len(g.policies) == 0 {
		return -1
	}
	return 0
}

// refusal is src/config/confinement.ts's confinementError message for file under p.
func refusal(file, real string, p Policy) string {
	abs, _ := filepath.Abs(file)
	via := ""
	if real != abs {
		via = " (it resolves to " + real + ")"
	}
	what := file + " is outside the repository " + p.Root
	if p.Name != "" {
		shown := file
		if within(abs, p.Root) {
			rel, _ := filepath.Rel(p.Root, abs)
			shown = filepath.ToSlash(rel)
		}
		what = shown + " in " + p.Name + " is outside the repository"
	}
	return what + via + "; files outside it are not read. " +
		"To read a directory outside on purpose, allow it (input allowed-paths, flag --allow-path)."
}

// Real is file with every symlink resolved; for a path that does not exist (yet), its nearest
// existing ancestor resolved and the rest appended (src/adapters/real-path.ts).
func Real(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return file
	}
	existing, rest := abs, []string{}
	for {
		if real, err := filepath.EvalSymlinks(existing); err == nil {
			for i, j := 0, len(rest)-1; i < j; i, j = i+1, j-1 {
				rest[i], rest[j] = rest[j], rest[i]
			}
			return filepath.Join(append([]string{real}, rest...)...)
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return abs
		}
		rest = append(rest, filepath.Base(existing))
		existing = parent
	}
}

// within reports whether file is dir or below it (both absolute and clean).
func within(file, dir string) bool {
	rel, err := filepath.Rel(dir, file)
	return err == nil && (rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(os.PathSeparator)) && !filepath.IsAbs(rel)))
}
