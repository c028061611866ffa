package helm

import (
	"path"
	"sort"
	"strings"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"
)

// unparsed is what VolatileCalls reports for a template that does not parse: Helm fails such a
// render anyway, but nothing can be said of what it calls.
const unparsed = "(unparsed)"

// VolatileCalls returns the sorted, unique names of the volatile functions (volatileFuncs) that
// the templates Helm renders for this chart can call (docs/renderers.md#volatile-templates):
// the chart's and every subchart's (ch.Dependencies(), recursively) rendered templates, and the
// defines they reach through `template` and `include` — every define, where an include's name
// is computed. A library chart's non-partial templates are not rendered, so not scanned. When
// a reached template calls tpl, the texts tpl may evaluate are scanned too, lexically, for the
// names as whole words inside {{ }}: the values texts, every chart's files other than its
// templates (values.yaml, Chart.yaml and ch.Files), and the templates' string literals; an
// include or template there reaches every define. Comments and text outside {{ }} of the
// templates never count. nil when there are none. Templates are parsed only when one of them
// has a volatile name or tpl as a word (mentionsVolatile): most charts have none, and parsing
// is most of the scan's cost. A template that does not parse counts as "(unparsed)" — Helm
// fails such a render, so Render never reports it.
func VolatileCalls(ch *chart.Chart, values []valuesText) []string {
	if !mentionsVolatile(ch) {
		return nil
	}
	s := &volatileScan{defs: map[string][]*parse.Tree{}, seen: map[*parse.Tree]bool{}, found: map[string]bool{}}
	s.addChart(ch)
	s.follow()
	if s.tpl {
		s.scanTplTexts(values)
		s.follow()
	}
	if len(s.found) == 0 {
		return nil
	}
	names := make([]string, 0, len(s.found))
	for name := range s.found {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

type volatileScan struct {
	charts []*chart.Chart
	// defs holds every parsed tree by the name include and template find it by: each define's
	// name and each file's full path. A name defined twice reaches both definitions.
	defs  map[string][]*parse.Tree
	queue []*parse.Tree
	seen  map[*parse.Tree]bool
	// every: all of defs is queued (an include with a computed name).
	every bool
	// literals: the string literals of the trees followed so far.
	literals []string
	// tpl: a followed tree calls tpl; scanning: its texts are being scanned.
	tpl, scanning bool
	found         map[string]bool
}

// addChart parses the templates of ch and its subcharts as Helm's engine does (each file under
// its chart's full path) and queues the ones Helm renders.
func (s *volatileScan) addChart(ch *chart.Chart) {
	s.charts = append(s.charts, ch)
	library := ch.Metadata != nil && strings.EqualFold(ch.Metadata.Type, "library")
	for _, f := range ch.Templates {
		if f == nil {
			continue
		}
		partial := strings.HasPrefix(path.Base(f.Name), "_")
		if library && !partial {
			continue
		}
		name := path.Join(ch.ChartFullPath(), f.Name)
		trees, err := parseTemplate(name, string(f.Data))
		if err != nil {
			s.found[unparsed] = true
			continue
		}
		for defined, tree := range trees {
			s.defs[defined] = append(s.defs[defined], tree)
		}
		if !partial && trees[name] != nil {
			s.queue = append(s.queue, trees[name])
		}
	}
	for _, dep := range ch.Dependencies() {
		s.addChart(dep)
	}
}

// parseTemplate parses one file with Helm's delimiters, calling any function (its defines
// land in a set of its own: Helm's engine lets a later file redefine a name).
func parseTemplate(name, text string) (map[string]*parse.Tree, error) {
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	_, err := t.Parse(text, "{{", "}}", trees)
	return trees, err
}

// follow walks the queued trees and every tree they include, once each.
func (s *volatileScan) follow() {
	for len(s.queue) > 0 {
		tree := s.queue[len(s.queue)-1]
		s.queue = s.queue[:len(s.queue)-1]
		if s.seen[tree] {
			continue
		}
		s.seen[tree] = true
		calls := callsOf(tree)
		for _, fn := range calls.funcs {
			s.note(fn)
		}
		for _, name := range calls.includes {
			s.queue = append(s.queue, s.defs[name]...)
		}
		if calls.dynamic {
			s.queueEvery()
		}
		s.literals = append(s.literals, calls.literals...)
		if s.scanning {
			for _, text := range calls.literals {
				actionWords(text, s.noteWord)
			}
		}
	}
}

func (s *volatileScan) note(fn string) {
	if _, ok := volatileFuncs[fn]; ok {
		s.found[fn] = true
	}
	if fn == "tpl" {
		s.tpl = true
	}
}

// noteWord takes a word of a text tpl may evaluate: a volatile name, or an include or template
// whose target a lexical scan cannot tell.
func (s *volatileScan) noteWord(word string) {
	s.note(word)
	if word == "include" || word == "template" {
		s.queueEvery()
	}
}

func (s *volatileScan) queueEvery() {
	if s.every {
		return
	}
	s.every = true
	for _, trees := range s.defs {
		s.queue = append(s.queue, trees...)
	}
}

// scanTplTexts scans what tpl may evaluate: values texts, the charts' non-template files and
// the string literals of the trees followed so far (follow scans those of trees it reaches
// from now on).
func (s *volatileScan) scanTplTexts(values []valuesText) {
	s.scanning = true
	for _, v := range values {
		actionWords(v.Text, s.noteWord)
	}
	for _, ch := range s.charts {
		for _, f := range chartTexts(ch) {
			actionWords(string(f.Data), s.noteWord)
		}
	}
	for _, text := range s.literals {
		actionWords(text, s.noteWord)
	}
}

// chartTexts are a chart's files other than its templates and subcharts, as loaded: Raw (with
// values.yaml and Chart.yaml), or Files for a chart not made by Helm's loader.
func chartTexts(ch *chart.Chart) []*chart.File {
	if len(ch.Raw) == 0 {
		return ch.Files
	}
	files := make([]*chart.File, 0, len(ch.Raw))
	for _, f := range ch.Raw {
		if f != nil && !strings.HasPrefix(f.Name, "templates/") && !strings.HasPrefix(f.Name, "charts/") {
			files = append(files, f)
		}
	}
	return files
}

// mentionsVolatile tells whether any template of the chart or its subcharts has a volatile
// name or tpl as a word; when none has, none can call one.
func mentionsVolatile(ch *chart.Chart) bool {
	found := false
	note := func(word string) {
		if _, ok := volatileFuncs[word]; ok || word == "tpl" {
			found = true
		}
	}
	for _, f := range ch.Templates {
		if f != nil && !found {
			words(string(f.Data), note)
		}
	}
	for _, dep := range ch.Dependencies() {
		found = found || mentionsVolatile(dep)
	}
	return found
}
