package helm

import (
	"strings"
	"text/template/parse"
)

// treeCalls is what one parsed template (a file's body or one define) can do when it runs: the
// functions it names, the templates it includes by a literal name, whether it includes one by
// a computed name, and its string literals (texts a tpl call may evaluate).
type treeCalls struct {
	funcs    []string
	includes []string
	dynamic  bool
	literals []string
	// sorted are calls of keys or values whose list is sorted at once (see sortedAtOnce).
	sorted map[*parse.CommandNode]bool
}

// callsOf walks every node of the tree: actions, if/range/with and their else lists, template
// nodes, pipelines, commands, chains and nested pipelines. Comments are not in the tree.
func callsOf(tree *parse.Tree) *treeCalls {
	c := &treeCalls{}
	if tree != nil && tree.Root != nil {
		c.node(tree.Root)
	}
	return c
}

func (c *treeCalls) node(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		c.list(n)
	case *parse.ActionNode:
		c.pipe(n.Pipe)
	case *parse.IfNode:
		c.branch(&n.BranchNode)
	case *parse.RangeNode:
		c.branch(&n.BranchNode)
	case *parse.WithNode:
		c.branch(&n.BranchNode)
	case *parse.TemplateNode:
		c.includes = append(c.includes, n.Name)
		c.pipe(n.Pipe)
	case *parse.PipeNode:
		c.pipe(n)
	case *parse.CommandNode:
		c.command(n)
	case *parse.ChainNode:
		c.node(n.Node)
	case *parse.IdentifierNode:
		c.funcs = append(c.funcs, n.Ident)
	case *parse.StringNode:
		c.literals = append(c.literals, n.Text)
	}
}

func (c *treeCalls) list(l *parse.ListNode) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		c.node(n)
	}
}

func (c *treeCalls) branch(b *parse.BranchNode) {
	c.pipe(b.Pipe)
	c.list(b.List)
	c.list(b.ElseList)
}

func (c *treeCalls) pipe(p *parse.PipeNode) {
	if p == nil {
		return
	}
	for i, cmd := range p.Cmds {
		if i+1 < len(p.Cmds) && unordered(cmd) && firstIdent(p.Cmds[i+1]) == "sortAlpha" {
			c.sortedAtOnce(cmd)
		}
	}
	for _, cmd := range p.Cmds {
		c.command(cmd)
	}
}

// sortedAtOnce notes a call of keys or values whose list goes straight into sortAlpha, in a
// pipeline (`keys $m | sortAlpha`) or as its argument (`sortAlpha (keys $m)`): its order is then
// the sort's, not the map's.
func (c *treeCalls) sortedAtOnce(cmd *parse.CommandNode) {
	if c.sorted == nil {
		c.sorted = map[*parse.CommandNode]bool{}
	}
	c.sorted[cmd] = true
}

// unordered: a call of keys or values (a list in Go's map order).
func unordered(cmd *parse.CommandNode) bool {
	name := firstIdent(cmd)
	return name == "keys" || name == "values"
}

func firstIdent(cmd *parse.CommandNode) string {
	if cmd == nil || len(cmd.Args) == 0 {
		return ""
	}
	if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok {
		return id.Ident
	}
	return ""
}

// command notes `include NAME …`: a literal NAME is followed; any other (computed, or piped
// in) could be any template.
func (c *treeCalls) command(cmd *parse.CommandNode) {
	if firstIdent(cmd) == "sortAlpha" && len(cmd.Args) == 2 {
		if inner, ok := cmd.Args[1].(*parse.PipeNode); ok && len(inner.Cmds) == 1 && unordered(inner.Cmds[0]) {
			c.sortedAtOnce(inner.Cmds[0])
		}
	}
	if c.sorted[cmd] {
		// The sorted call's own name does not count; its arguments do.
		for _, arg := range cmd.Args[1:] {
			c.node(arg)
		}
		return
	}
	if len(cmd.Args) > 0 {
		if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok && id.Ident == "include" {
			if name, ok := argAt(cmd, 1).(*parse.StringNode); ok {
				c.includes = append(c.includes, name.Text)
			} else {
				c.dynamic = true
			}
		}
	}
	for _, arg := range cmd.Args {
		c.node(arg)
	}
}

func argAt(cmd *parse.CommandNode, i int) parse.Node {
	if i < len(cmd.Args) {
		return cmd.Args[i]
	}
	return nil
}

// actionWords calls fn with every word (a run of letters, digits and _) inside the {{ }}
// actions of text, an unclosed last action included: only there can a text that tpl evaluates
// call a function. Words of comments and string literals count too (it is a lexical scan).
func actionWords(text string, fn func(word string)) {
	for {
		start := strings.Index(text, "{{")
		if start < 0 {
			return
		}
		text = text[start+2:]
		end := strings.Index(text, "}}")
		action := text
		if end >= 0 {
			action, text = text[:end], text[end+2:]
		} else {
			text = ""
		}
		words(action, fn)
	}
}

func words(s string, fn func(word string)) {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isWordByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(s[start:i])
			start = -1
		}
	}
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
