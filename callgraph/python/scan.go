package python

import (
	"bytes"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/internal/pylex"
)

// projectNames are facts about the whole project that the collectors need before any
// file is parsed, found by a textual scan of the sources: the special methods some file
// defines (`def __add__`) and the names that may be properties (a def under a decorator
// mentioning property, setter, deleter or getter, or `name = property(...)`). They are
// supersets: they only let the collectors skip the implicit call sites (operators,
// subscripts, attribute reads) that cannot reach project code, which keeps their cost
// away from projects that do not overload them.
//
// A nil *projectNames stands for an unknown project: every site is recorded.
type projectNames struct {
	dunders map[string]bool
	props   map[string]bool
}

func (p *projectNames) dunder(name string) bool { return p == nil || p.dunders[name] }
func (p *projectNames) prop(name string) bool   { return p == nil || p.props[name] }

// scanNames scans the sources of a project for projectNames.
func scanNames(files []callgraph.SourceFile) *projectNames {
	p := &projectNames{dunders: map[string]bool{}, props: map[string]bool{}}
	for _, f := range files {
		p.scan(f.Src)
	}
	return p
}

func (p *projectNames) scan(src []byte) {
	pendingProp := false
	for len(src) > 0 {
		line := src
		if k := bytes.IndexByte(src, '\n'); k >= 0 {
			line, src = src[:k], src[k+1:]
		} else {
			src = nil
		}
		line = line[len(pylex.LeadingSpace(line)):]
		switch {
		case len(line) == 0 || line[0] == '#':
		case line[0] == '@':
			if bytes.Contains(line, []byte("property")) || bytes.Contains(line, []byte(".setter")) ||
				bytes.Contains(line, []byte(".deleter")) || bytes.Contains(line, []byte(".getter")) {
				pendingProp = true
			}
		case bytes.HasPrefix(line, []byte("def ")) || asyncDef(line):
			if line[0] == 'a' {
				line = line[len("async"):]
				line = line[len(pylex.LeadingSpace(line)):]
			}
			name := identPrefix(bytes.TrimLeft(line[len("def"):], " \t"))
			if len(name) > 4 && bytes.HasPrefix(name, []byte("__")) && bytes.HasSuffix(name, []byte("__")) {
				p.dunders[string(name)] = true
			}
			if pendingProp && len(name) > 0 {
				p.props[string(name)] = true
			}
			pendingProp = false
		case bytes.HasPrefix(line, []byte("class ")):
			pendingProp = false
		default:
			if k := bytes.Index(line, []byte("property(")); k > 0 {
				if eq := bytes.IndexByte(line[:k], '='); eq > 0 {
					if name := identPrefix(bytes.TrimRight(line[:eq], " \t")); len(name) == eq-countTrailingBlanks(line[:eq]) {
						p.props[string(name)] = true
					}
				}
			}
		}
	}
}

// asyncDef reports whether line starts with "async", blanks and "def ".
func asyncDef(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("async"))
	if !ok || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	return bytes.HasPrefix(rest[len(pylex.LeadingSpace(rest)):], []byte("def "))
}

func countTrailingBlanks(b []byte) int {
	return len(b) - len(bytes.TrimRight(b, " \t"))
}

// identPrefix returns the leading identifier of b (pylex.NameEnd: letters, digits and
// underscores of any script).
func identPrefix(b []byte) []byte {
	return b[:pylex.NameEnd(b, 0)]
}
