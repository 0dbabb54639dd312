package mask

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// fromImport is a parsed `from M import a, b as c` statement.
type fromImport struct {
	dots    int      // leading dots of a relative import
	module  string   // dotted module after the dots ("" for `from . import x`)
	entries []impEnt // in source order
	paren   bool     // the names are parenthesised
	star    bool     // `import *`
	comment string   // a trailing comment on the statement's last line, with its "#"
}

type impEnt struct {
	name, alias string // alias is "" without `as`
}

// bound is the name the entry binds in the importing module.
func (e impEnt) bound() string {
	if e.alias != "" {
		return e.alias
	}
	return e.name
}

func (e impEnt) String() string {
	if e.alias != "" {
		return e.name + " as " + e.alias
	}
	return e.name
}

var fromRE = regexp.MustCompile(`^[ \t\f]*from[ \t\f]+(\.*)[ \t\f]*([A-Za-z_][\w.]*)?[ \t\f]+import[ \t\f]*(.*)$`)
var identRE = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// parseFromImport parses the text of one logical line as a from-import. It returns false
// for anything else, and for statements it does not rewrite safely (several statements
// separated by ';', strings, unbalanced parentheses).
func parseFromImport(text string) (fromImport, bool) {
	var fi fromImport
	// Drop comments (an import holds no strings, so '#' always starts a comment) and
	// backslash continuations, and join the physical lines.
	var b strings.Builder
	for i, ln := range strings.Split(text, "\n") {
		ln = strings.TrimRight(ln, "\r")
		if h := strings.IndexByte(ln, '#'); h >= 0 {
			fi.comment = strings.TrimSpace(ln[h:])
			ln = ln[:h]
		} else if strings.TrimSpace(ln) != "" {
			fi.comment = ""
		}
		ln = strings.TrimRight(ln, " \t\f")
		ln = strings.TrimSuffix(ln, "\\")
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ln)
	}
	joined := strings.TrimRight(b.String(), " \t\f")
	if strings.ContainsAny(joined, ";'\"") {
		return fi, false
	}
	m := fromRE.FindStringSubmatch(joined)
	if m == nil {
		return fi, false
	}
	fi.dots, fi.module = len(m[1]), m[2]
	if fi.dots == 0 && fi.module == "" {
		return fi, false
	}
	rest := strings.TrimSpace(m[3])
	if strings.HasPrefix(rest, "(") {
		if !strings.HasSuffix(rest, ")") {
			return fi, false
		}
		fi.paren = true
		rest = strings.TrimSpace(rest[1 : len(rest)-1])
	}
	if rest == "*" {
		fi.star = true
		return fi, true
	}
	if strings.ContainsAny(rest, "()") {
		return fi, false
	}
	parts := strings.Split(rest, ",")
	for i, p := range parts {
		f := strings.Fields(p)
		switch {
		case len(f) == 0 && i == len(parts)-1 && fi.paren && i > 0:
			// trailing comma inside parentheses
		case len(f) == 1 && identRE.MatchString(f[0]):
			fi.entries = append(fi.entries, impEnt{name: f[0]})
		case len(f) == 3 && f[1] == "as" && identRE.MatchString(f[0]) && identRE.MatchString(f[2]):
			fi.entries = append(fi.entries, impEnt{name: f[0], alias: f[2]})
		default:
			return fi, false
		}
	}
	return fi, len(fi.entries) > 0
}

// render writes the statement with the given entries: on one line when the original was a
// single physical line, else parenthesised with one entry per line at entryIndent. The
// trailing comment of the original's last line is kept; comments inside a multi-line
// statement are not.
func (fi fromImport) render(indent, entryIndent, nl string, entries []impEnt, multiline bool) string {
	head := indent + "from " + strings.Repeat(".", fi.dots) + fi.module
	if fi.dots > 0 && fi.module == "" {
		head = indent + "from " + strings.Repeat(".", fi.dots)
	}
	head += " import "
	comment := ""
	if fi.comment != "" {
		comment = "  " + fi.comment
	}
	if !multiline {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.String()
		}
		if fi.paren {
			return head + "(" + strings.Join(names, ", ") + ")" + comment + nl
		}
		return head + strings.Join(names, ", ") + comment + nl
	}
	var b strings.Builder
	b.WriteString(head + "(" + nl)
	for _, e := range entries {
		b.WriteString(entryIndent + e.String() + "," + nl)
	}
	b.WriteString(indent + ")" + comment + nl)
	return b.String()
}

// moduleIndex maps dotted module names to repository files.
type moduleIndex struct {
	byName map[string]string // dotted name → slash path
	files  map[string]bool   // every .py file
}

// newModuleIndex indexes the Python files: the dotted name of a file is its path with "/"
// as "." (a package's `__init__.py` names the directory), from the root and, as fallbacks,
// from below a leading `src/` or `lib/` directory (src layouts).
func newModuleIndex(files []string) *moduleIndex {
	mi := &moduleIndex{byName: map[string]string{}, files: map[string]bool{}}
	sorted := append([]string(nil), files...)
	sort.Strings(sorted)
	add := func(name, file string) {
		if name == "" {
			return
		}
		if _, ok := mi.byName[name]; !ok {
			mi.byName[name] = file
		}
	}
	for _, f := range sorted {
		mi.files[f] = true
	}
	for pass := 0; pass < 2; pass++ {
		for _, f := range sorted {
			p := strings.TrimSuffix(f, ".py")
			if path.Base(p) == "__init__" {
				p = path.Dir(p)
				if p == "." {
					continue
				}
			}
			if pass == 0 {
				add(strings.ReplaceAll(p, "/", "."), f)
				continue
			}
			for _, pre := range []string{"src/", "lib/"} {
				if rest, ok := strings.CutPrefix(p, pre); ok {
					add(strings.ReplaceAll(rest, "/", "."), f)
				}
			}
		}
	}
	return mi
}

// resolve returns the file a from-import in file `from` refers to, or "".
func (mi *moduleIndex) resolve(from string, fi fromImport) string {
	if fi.dots == 0 {
		return mi.byName[fi.module]
	}
	dir := path.Dir(from)
	for i := 1; i < fi.dots; i++ {
		if dir == "." || dir == "/" {
			return ""
		}
		dir = path.Dir(dir)
	}
	base := strings.ReplaceAll(fi.module, ".", "/")
	var cand string
	switch {
	case base == "" && dir == ".":
		cand = "__init__"
	case base == "":
		cand = dir + "/__init__"
	case dir == ".":
		cand = base
	default:
		cand = dir + "/" + base
	}
	if mi.files[cand+".py"] {
		return cand + ".py"
	}
	if !strings.HasSuffix(cand, "__init__") && mi.files[cand+"/__init__.py"] {
		return cand + "/__init__.py"
	}
	return ""
}

var allRE = regexp.MustCompile(`^__all__[ \t]*(=|\+=|\.extend\(|\.append\()`)
var strLitRE = regexp.MustCompile(`'([^'\\]*)'|"([^"\\]*)"`)

// allNames returns the names a module lists in `__all__` (module-level assignments,
// augmented assignments, extend and append calls with string literals), sorted.
func allNames(src []byte, lines []physLine, logical []logLine) []string {
	seen := map[string]bool{}
	for _, l := range logical {
		if !l.code || l.indent != "" {
			continue
		}
		text := string(src[lines[l.first-1].start:lines[l.last-1].end])
		if !allRE.MatchString(text) {
			continue
		}
		for _, m := range strLitRE.FindAllStringSubmatch(text, -1) {
			n := m[1] + m[2]
			if identRE.MatchString(n) {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
