package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// desired is one manifest's Build result as Tazuna hashes it: state key -> ContentHash (the
// last object wins for a duplicate key, docs/compatibility.md#diff-classification) and whether its
// keys are always-sync.
type desired struct {
	Manifest   string
	Entries    map[string]string
	AlwaysSync bool
}

// diffEntry is the classification of one key (docs/compatibility.md#diff-classification).
type diffEntry struct {
	Type    string
	Key     string
	OldHash string
	NewHash string
}

var diffOrder = map[string]int{"added": 0, "modified": 1, "removed": 2, "always-sync": 3}

// computeDiff is pkg/state/diff.go as docs/compatibility.md#diff-classification describes it.
func computeDiff(stored map[string]string, d desired) []diffEntry {
	var out []diffEntry
	for key, h := range d.Entries {
		old, ok := stored[key]
		switch {
		case d.AlwaysSync:
			out = append(out, diffEntry{Type: "always-sync", Key: key, NewHash: h})
		case !ok:
			out = append(out, diffEntry{Type: "added", Key: key, NewHash: h})
		case old != h:
			out = append(out, diffEntry{Type: "modified", Key: key, OldHash: old, NewHash: h})
		}
	}
	for key, h := range stored {
		if _, ok := d.Entries[key]; !ok {
			out = append(out, diffEntry{Type: "removed", Key: key, OldHash: h})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if diffOrder[out[i].Type] != diffOrder[out[j].Type] {
			return diffOrder[out[i].Type] < diffOrder[out[j].Type]
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// syncState is `apply --sync` without --prune for the selected manifests
// (docs/compatibility.md#sync-mode): a manifest with a non-empty Diff gets the stored entries
// updated by it (removed entries are kept); one with an empty Diff is not written at all.
func syncState(stored map[string]map[string]string, all []desired, selected func(string) bool) map[string]map[string]string {
	out := map[string]map[string]string{}
	for name, entries := range stored {
		out[name] = entries
	}
	for _, d := range all {
		if !selected(d.Manifest) {
			continue
		}
		entries := computeDiff(stored[d.Manifest], d)
		if len(entries) == 0 {
			continue
		}
		next := map[string]string{}
		for k, v := range stored[d.Manifest] {
			next[k] = v
		}
		for _, e := range entries {
			if e.Type != "removed" {
				next[e.Key] = e.NewHash
			}
		}
		out[d.Manifest] = next
	}
	return out
}

// diffText is `tazuna state diff`'s stdout (docs/compatibility.md#state-diff-text) for manifests in
// declaration order.
func diffText(stored map[string]map[string]string, all []desired) string {
	var b strings.Builder
	for _, d := range all {
		entries := computeDiff(stored[d.Manifest], d)
		if len(entries) == 0 {
			continue
		}
		fmt.Fprintf(&b, "Manifest: %s\n", d.Manifest)
		fmt.Fprintf(&b, "  %-14s %-60s %s\n", "STATUS", "RESOURCE", "HASH")
		for _, e := range entries {
			hash := e.NewHash
			if e.Type == "removed" {
				hash = fmt.Sprintf("(was: %s)", e.OldHash)
			}
			fmt.Fprintf(&b, "  %-14s %-60s %s\n", e.Type, resourceOf(e.Key), hash)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "No changes detected.\n"
	}
	return b.String()
}

// resourceOf drops the manifest segment of a state key (docs/compatibility.md#state-keys
// ParseStateKey, SplitN 6).
func resourceOf(key string) string {
	parts := strings.SplitN(key, "/", 6)
	if len(parts) != 5 && len(parts) != 6 {
		return key
	}
	return strings.Join(parts[1:], "/")
}

// encodeDataKey is the current docs/compatibility.md#data-key-encoding encoder: '/' -> "__",
// [-.a-zA-Z0-9] kept, every other byte -> "_x" + two lowercase hex digits.
func encodeDataKey(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '/':
			b.WriteString("__")
		case c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "_x%02x", c)
		}
	}
	return b.String()
}

// stateEntry is pkg/state's entry struct; encoding/json gives its exact bytes
// (docs/compatibility.md#entry-and-metadata-bytes).
type stateEntry struct {
	ContentHash string `json:"contentHash"`
}

// configMapData is a State ConfigMap's data without `_metadata` (its lastSyncedAt is the clock
// and its gitCommitHash the checkout, both checked by the tests directly).
func configMapData(entries map[string]string) map[string]string {
	out := map[string]string{}
	for key, h := range entries {
		raw, _ := json.Marshal(stateEntry{ContentHash: h})
		out[encodeDataKey(key)] = string(raw)
	}
	return out
}
