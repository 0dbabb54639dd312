package mask

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/gocheck"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// ErrNoBuild is wrapped by the error Mask returns when a masked Go package has type errors
// that name no removed definition (so no protection can repair them).
var ErrNoBuild = errors.New("mask: masked Go code does not type-check")

// goMasker removes Go function and method declarations and keeps the module type-checking.
type goMasker struct {
	ctx  context.Context
	root string
	// check type-checks the module with the masked files, enforcing the go.mod's language
	// version: builtins newer than it (min, max, clear) do not stand in for removed
	// functions.
	check *gocheck.Checker
	orig  map[string][]byte // original contents of read files
}

func (g *goMasker) read(rel string) ([]byte, error) {
	if b, ok := g.orig[rel]; ok {
		return b, nil
	}
	b, err := readRel(g.root, rel)
	if err != nil {
		return nil, err
	}
	g.orig[rel] = b
	return b, nil
}

func maskGo(ctx context.Context, root string, targets []Target, res *Result) error {
	// Packages outside the module come from export data (fast through the build cache),
	// falling back to source.
	mod := repo.ReadGoMod(filepath.Join(root, "go.mod"))
	c, err := gocheck.New(root, gocheck.Options{Imports: gocheck.FromExportData, GoVersion: mod.GoVersion})
	if err != nil {
		return fmt.Errorf("mask: %w", err)
	}
	g := &goMasker{ctx: ctx, root: root, check: c, orig: map[string][]byte{}}

	protected := map[Target]string{}
	for iter := 0; ; iter++ {
		if iter > len(targets)+2 {
			return fmt.Errorf("mask: go protection did not converge")
		}
		files, rems, err := g.remove(targets, protected)
		if err != nil {
			return err
		}
		if len(rems) == 0 {
			g.finish(files, rems, protected, res)
			return nil
		}
		// Type-check the changed packages and their importers; prune unused imports.
		files, msgs, edits, err := g.typeCheck(files)
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			g.finish(files, rems, protected, res)
			res.Imports = append(res.Imports, edits...)
			return nil
		}
		grew := false
		for _, msg := range msgs {
			for _, name := range namedBy(msg) {
				for _, r := range rems {
					if (r.Target.Name == name || strings.HasSuffix(r.Target.Name, "."+name)) && protected[r.asked] == "" {
						protected[r.asked] = ReasonUsed + ": " + msg
						grew = true
					}
				}
			}
		}
		if !grew {
			return fmt.Errorf("%w: %s", ErrNoBuild, strings.Join(msgs, "; "))
		}
	}
}

func (g *goMasker) finish(files map[string][]byte, rems []goRemoval, protected map[Target]string, res *Result) {
	for t, why := range protected {
		res.Protected = append(res.Protected, Protection{t, why})
	}
	for _, r := range rems {
		res.Removed = append(res.Removed, r.Removal)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if !bytes.Equal(files[p], g.orig[p]) {
			res.Overlay.Set(p, files[p])
		}
	}
}

type goRemoval struct {
	Removal
	asked Target // the target as the caller named it
}

// requiresRE matches a builtin used below its language version, which is what a call of a
// removed min, max or clear becomes in an old module.
var requiresRE = regexp.MustCompile(`^(?:built-in |builtin )?([A-Za-z_]\w*) requires go1\.\d+`)

var identWordRE = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// namedBy extracts the identifiers a go/types error message blames: `undefined: F`,
// `undefined: pkg.F`, `x.M undefined (type T has no field or method M)`, a missing method
// in `... does not implement ... (missing method M)`, and `min requires go1.21 or later`
// (a removed helper that a newer builtin shadows).
func namedBy(msg string) []string {
	var out []string
	if m := requiresRE.FindStringSubmatch(msg); m != nil {
		out = append(out, m[1])
	}
	if rest, ok := strings.CutPrefix(msg, "undefined: "); ok {
		rest = strings.TrimSpace(rest)
		if i := strings.LastIndexByte(rest, '.'); i >= 0 {
			rest = rest[i+1:]
		}
		if identWordRE.MatchString(rest) {
			out = append(out, rest)
		}
	}
	for _, marker := range []string{"has no field or method ", "missing method "} {
		if i := strings.Index(msg, marker); i >= 0 {
			rest := msg[i+len(marker):]
			j := 0
			for j < len(rest) && (rest[j] == '_' || rest[j] >= '0' && rest[j] <= '9' || rest[j] >= 'a' && rest[j] <= 'z' || rest[j] >= 'A' && rest[j] <= 'Z' || rest[j] >= 0x80) {
				j++
			}
			if j > 0 {
				out = append(out, rest[:j])
			}
		}
	}
	return out
}

// remove deletes the declarations of the unprotected targets and returns the new contents
// of the target files.
func (g *goMasker) remove(targets []Target, protected map[Target]string) (map[string][]byte, []goRemoval, error) {
	files := map[string][]byte{}
	var rems []goRemoval
	byFile := map[string][]Target{}
	var paths []string
	for _, t := range targets {
		if _, ok := protected[t]; ok {
			continue
		}
		if byFile[t.File] == nil {
			paths = append(paths, t.File)
		}
		byFile[t.File] = append(byFile[t.File], t)
	}
	sort.Strings(paths)
	for _, p := range paths {
		src, err := g.read(p)
		if err != nil {
			return nil, nil, err
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, fmt.Errorf("mask: %w", err)
		}
		tf := fset.File(af.Pos())
		lines := pyLines(src)
		removed := make([]bool, len(lines))
		var found []goRemoval
		for _, t := range byFile[p] {
			hit := false
			for _, d := range af.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || goFuncName(fd) != t.Name {
					continue
				}
				line := tf.Line(fd.Pos())
				first := line
				if fd.Doc != nil {
					first = tf.Line(fd.Doc.Pos())
				}
				if t.Line != 0 && t.Line != line && t.Line != first {
					continue
				}
				hit = true
				start, end := tf.Offset(fd.Pos()), tf.Offset(fd.End())
				if fd.Doc != nil {
					start = tf.Offset(fd.Doc.Pos())
				}
				if !ownsGoLines(src, start, end) {
					protected[t] = ReasonShared
					break
				}
				last := tf.Line(fd.End())
				for i := first; i <= last; i++ {
					removed[i-1] = true
				}
				kind := task.KindFunction
				if fd.Recv != nil {
					kind = task.KindMethod
				}
				nt := t
				nt.Line = line
				found = append(found, goRemoval{Removal: Removal{Target: nt, Kind: kind, StartLine: first, EndLine: last, asked: t}, asked: t})
			}
			if !hit {
				protected[t] = ReasonNotFound
			}
		}
		if len(found) == 0 {
			continue
		}
		rems = append(rems, found...)
		tidyBlank(len(lines), func(i int) bool { return len(bytes.TrimSpace(src[lines[i].start:lines[i].end])) == 0 }, removed)
		var b bytes.Buffer
		for i, l := range lines {
			if !removed[i] {
				b.Write(src[l.start:l.end])
			}
		}
		files[p] = b.Bytes()
	}
	return files, rems, nil
}

// tidyBlank removes the blank lines after a removed run that follows a blank line (or
// starts the file), and the blank lines before a removed run that ends the file, so that
// removals leave no growing gaps.
func tidyBlank(n int, blank func(i int) bool, removed []bool) {
	for i := 0; i < n; i++ {
		if !removed[i] || (i+1 < n && removed[i+1]) {
			continue
		}
		s := i
		for s > 0 && removed[s-1] {
			s--
		}
		if s == 0 || blank(s-1) {
			for j := i + 1; j < n && blank(j) && !removed[j]; j++ {
				removed[j] = true
			}
		}
	}
	// A removal that leaves only blank lines at the end of the file takes them too.
	end := n
	for end > 0 && (removed[end-1] || blank(end-1)) {
		end--
	}
	if end < n {
		hit := false
		for j := end; j < n; j++ {
			hit = hit || removed[j]
		}
		if hit {
			for j := end; j < n; j++ {
				removed[j] = true
			}
		}
	}
}

func ownsGoLines(src []byte, start, end int) bool {
	i := start
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return false
	}
	j := end
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
		j++
	}
	return j == len(src) || src[j] == '\n' || bytes.HasPrefix(src[j:], []byte("//"))
}

// goFuncName is `F` for a function and `T.M` for a method (any receiver form).
func goFuncName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// pkgDirs returns the sorted package directories (slash, "." for the root) to check: those
// of the changed files and, when the module path is known, every directory whose non-test
// files import one of them.
func (g *goMasker) pkgDirs(changed map[string][]byte) ([]string, error) {
	dirs := map[string]bool{}
	for p := range changed {
		dirs[path.Dir(p)] = true
	}
	if g.check.Module().Path != "" {
		imp := map[string]bool{}
		for d := range dirs {
			imp[g.check.ImportPath(d)] = true
		}
		all, err := walkFiles(g.ctx, g.root, ".go")
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		for _, p := range all {
			if strings.HasSuffix(p, "_test.go") || dirs[path.Dir(p)] {
				continue
			}
			src, err := g.read(p)
			if err != nil {
				return nil, err
			}
			af, err := parser.ParseFile(fset, p, src, parser.ImportsOnly)
			if err != nil {
				continue
			}
			for _, is := range af.Imports {
				if v, err := strconv.Unquote(is.Path.Value); err == nil && imp[v] {
					dirs[path.Dir(p)] = true
				}
			}
		}
	}
	out := make([]string, 0, len(dirs))
	for d := range dirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

// typeCheck type-checks the changed packages and their importers with files applied, prunes
// imports the removals left unused (updating files), and returns the type errors that the
// masking added (compared with the unchanged tree), sorted.
func (g *goMasker) typeCheck(files map[string][]byte) (map[string][]byte, []string, []ImportEdit, error) {
	dirs, err := g.pkgDirs(files)
	if err != nil {
		return nil, nil, nil, err
	}
	var edits []ImportEdit
	for round := 0; round < 2; round++ {
		added, err := g.check.NewErrors(dirs, files)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("mask: %w", err)
		}
		unused := map[string]map[string]bool{} // file → import paths
		var rest []string
		for _, e := range added {
			if p, ok := gocheck.UnusedImport(e.Msg); ok && files[e.File] != nil {
				if unused[e.File] == nil {
					unused[e.File] = map[string]bool{}
				}
				unused[e.File][p] = true
				continue
			}
			rest = append(rest, e.Msg)
		}
		if len(unused) == 0 || round == 1 {
			for f, ps := range unused {
				for p := range ps {
					rest = append(rest, fmt.Sprintf("%s: %q imported and not used", f, p))
				}
			}
			sort.Strings(rest)
			return files, rest, edits, nil
		}
		for f, ps := range unused {
			nb, ed, err := pruneImports(f, files[f], ps)
			if err != nil {
				return nil, nil, nil, err
			}
			files[f] = nb
			edits = append(edits, ed...)
		}
	}
	panic("unreachable")
}

// pruneImports deletes the import specs of src whose path is in paths: their lines, or the
// whole declaration when none of its specs remains.
func pruneImports(file string, src []byte, paths map[string]bool) ([]byte, []ImportEdit, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, nil, fmt.Errorf("mask: %w", err)
	}
	tf := fset.File(af.Pos())
	lines := pyLines(src)
	var edits []ImportEdit
	var cuts [][2]int // byte ranges to delete inside kept lines
	removed := make([]bool, len(lines))
	mark := func(a, b token.Pos) {
		for i := tf.Line(a); i <= tf.Line(b); i++ {
			removed[i-1] = true
		}
	}
	hits, _ := gocheck.FindImports(af, paths)
	for _, h := range hits {
		gd, hit := h.Decl, h.Specs
		switch {
		case h.All():
			edits = append(edits, ImportEdit{File: file, Line: tf.Line(gd.Pos()), Removed: specNames(hit), Dropped: true})
			start := gd.Pos()
			if gd.Doc != nil {
				start = gd.Doc.Pos()
			}
			mark(start, gd.End())
		default:
			edits = append(edits, ImportEdit{File: file, Line: tf.Line(gd.Pos()), Removed: specNames(hit)})
			hitSet := map[*ast.ImportSpec]bool{}
			for _, is := range hit {
				hitSet[is] = true
			}
			for k, sp := range gd.Specs {
				is := sp.(*ast.ImportSpec)
				if !hitSet[is] {
					continue
				}
				start, end := is.Pos(), is.End()
				if is.Doc != nil {
					start = is.Doc.Pos()
				}
				if is.Comment != nil {
					end = is.Comment.End()
				}
				if !sharesLine(tf, gd.Specs, k, start, end) {
					mark(start, end)
					continue
				}
				// Another spec on the same line (`import ("a"; "b")`): cut the spec's bytes
				// up to the next spec, or from the previous one for the last.
				if k+1 < len(gd.Specs) {
					cuts = append(cuts, [2]int{tf.Offset(is.Pos()), tf.Offset(gd.Specs[k+1].Pos())})
				} else {
					cuts = append(cuts, [2]int{tf.Offset(gd.Specs[k-1].End()), tf.Offset(is.End())})
				}
			}
		}
	}
	tidyBlank(len(lines), func(i int) bool { return len(bytes.TrimSpace(src[lines[i].start:lines[i].end])) == 0 }, removed)
	var b bytes.Buffer
	for i, l := range lines {
		if removed[i] {
			continue
		}
		for off := l.start; off < l.end; off++ {
			cut := false
			for _, c := range cuts {
				if c[0] <= off && off < c[1] {
					cut = true
					break
				}
			}
			if !cut {
				b.WriteByte(src[off])
			}
		}
	}
	return b.Bytes(), edits, nil
}

// sharesLine reports whether a spec other than specs[k] has a token on a line of
// [start, end].
func sharesLine(tf *token.File, specs []ast.Spec, k int, start, end token.Pos) bool {
	a, b := tf.Line(start), tf.Line(end)
	for j, sp := range specs {
		if j == k {
			continue
		}
		if tf.Line(sp.Pos()) <= b && tf.Line(sp.End()) >= a {
			return true
		}
	}
	return false
}

// specNames renders import specs as written: the quoted path, after its name if any.
func specNames(specs []*ast.ImportSpec) []string {
	out := make([]string, len(specs))
	for i, is := range specs {
		out[i] = is.Path.Value
		if is.Name != nil {
			out[i] = is.Name.Name + " " + is.Path.Value
		}
	}
	return out
}
