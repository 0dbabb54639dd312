// Command gtgen writes the ground-truth call graph of a Go module for the golang front
// end's precision/recall test: the union of golang.org/x/tools/go/callgraph/vta (seeded
// with CHA) and go/callgraph/static edges over the module's non-test packages, mapped to
// faultline's node IDs.
//
// Usage (network access to the module proxy needed the first time):
//
//	cd callgraph/golang/testdata/gtgen
//	go run . -dir /tmp/copy/of/module -module github.com/sergi/go-diff -version v1.4.0 \
//	    -out ../groundtruth/go-diff.txt
//
// The module directory must be writable (copy it out of GOMODCACHE first: the go command
// may update its go.sum). Mapping rules, matching the front end's node definition:
//
//   - a function or method is `relpath/file.go::Name` / `::Type.Method` (receivers (*T),
//     (T) and T[K] give T); names repeated in one file get `@line` (`@line:column` when
//     they also share the line);
//   - generic instantiations map to their origin;
//   - function literals are folded into their enclosing declared function: edges from a
//     literal belong to the enclosing function, and edges *to* a literal are dropped (a
//     call of a function literal is not an edge between nodes);
//   - edges from the synthetic package initializer (package-level variable initialisers)
//     come from `relpath/file.go::<module>` of the call site's file;
//   - synthetic wrappers (bound methods, thunks, promoted-method wrappers) are
//     collapsed: an edge to a wrapper becomes edges to what the wrapper calls;
//   - only functions declared in the module's non-test files are kept; every file that
//     was loaded is listed so the test analyses exactly the same files.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/static"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

func main() {
	dir := flag.String("dir", "", "module root directory (writable copy)")
	modPath := flag.String("module", "", "module path, for the header")
	version := flag.String("version", "", "module version, for the header")
	pattern := flag.String("pattern", "./...", "packages to load")
	out := flag.String("out", "", "output file")
	flag.Parse()
	if *dir == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	root, err := filepath.Abs(*dir)
	if err != nil {
		log.Fatal(err)
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: root, Tests: false}
	pkgs, err := packages.Load(cfg, strings.Fields(*pattern)...)
	if err != nil {
		log.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		log.Fatal("gtgen: packages had errors")
	}
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()

	fset := prog.Fset
	ids := map[token.Pos]string{} // FuncDecl name position → node ID
	var files []string
	rel := func(pos token.Pos) (string, bool) {
		p := fset.PositionFor(pos, false).Filename // ignore //line directives (generated code)
		r, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(r, "..") || strings.HasSuffix(r, "_test.go") {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			path, ok := rel(f.Pos())
			if !ok {
				continue
			}
			files = append(files, path)
			count := map[string]int{}
			var decls []*ast.FuncDecl
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					q := qualName(fd)
					count[q]++
					count[fmt.Sprintf("%s@%d", q, fset.PositionFor(fd.Pos(), false).Line)]++
					decls = append(decls, fd)
				}
			}
			for _, fd := range decls {
				q := qualName(fd)
				id := path + "::" + q
				if count[q] > 1 {
					pos := fset.PositionFor(fd.Pos(), false)
					at := fmt.Sprintf("@%d", pos.Line)
					id += at
					if count[q+at] > 1 { // several on one line: add the column
						id += fmt.Sprintf(":%d", pos.Column)
					}
				}
				ids[fd.Name.Pos()] = id
			}
		}
	}
	sort.Strings(files)

	funcs := ssautil.AllFunctions(prog)
	graphs := []*callgraph.Graph{static.CallGraph(prog), vta.CallGraph(funcs, cha.CallGraph(prog))}

	edges := map[[2]string]bool{}
	// top returns the declared function a function's code belongs to.
	top := func(fn *ssa.Function) *ssa.Function {
		if fn.Origin() != nil {
			fn = fn.Origin()
		}
		for fn.Parent() != nil {
			fn = fn.Parent()
			if fn.Origin() != nil {
				fn = fn.Origin()
			}
		}
		return fn
	}
	isWrapper := func(fn *ssa.Function) bool {
		return fn.Synthetic != "" && fn.Synthetic != "package initializer" && fn.Parent() == nil && fn.Origin() == nil
	}
	for _, g := range graphs {
		// Callees of each function, for collapsing wrappers.
		var targets func(n *callgraph.Node, seen map[*ssa.Function]bool) []*ssa.Function
		targets = func(n *callgraph.Node, seen map[*ssa.Function]bool) []*ssa.Function {
			if seen[n.Func] {
				return nil
			}
			seen[n.Func] = true
			if !isWrapper(n.Func) {
				return []*ssa.Function{n.Func}
			}
			var out []*ssa.Function
			for _, e := range n.Out {
				out = append(out, targets(e.Callee, seen)...)
			}
			return out
		}
		for fn, n := range g.Nodes {
			if fn == nil {
				continue
			}
			caller := top(fn)
			var callerID string
			if caller.Synthetic == "package initializer" {
				callerID = "" // per call site below
			} else if caller.Synthetic != "" {
				continue
			} else if id, ok := ids[caller.Pos()]; ok {
				callerID = id
			} else {
				continue
			}
			for _, e := range n.Out {
				cid := callerID
				if caller.Synthetic == "package initializer" {
					if e.Site == nil || !e.Site.Pos().IsValid() {
						continue
					}
					path, ok := rel(e.Site.Pos())
					if !ok {
						continue
					}
					cid = path + "::<module>"
				}
				for _, callee := range targets(e.Callee, map[*ssa.Function]bool{}) {
					if callee.Origin() != nil {
						callee = callee.Origin()
					}
					if callee.Parent() != nil || callee.Synthetic != "" {
						continue // a function literal (folded) or synthetic code
					}
					id, ok := ids[callee.Pos()]
					if !ok {
						continue
					}
					edges[[2]string{cid, id}] = true
				}
			}
		}
	}
	list := make([][2]string, 0, len(edges))
	for e := range edges {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i][0] != list[j][0] {
			return list[i][0] < list[j][0]
		}
		return list[i][1] < list[j][1]
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "# ground truth: x/tools go/callgraph VTA (seeded with CHA) ∪ static, generated by testdata/gtgen\n")
	fmt.Fprintf(&sb, "module %s %s\n", *modPath, *version)
	for _, f := range files {
		fmt.Fprintf(&sb, "file %s\n", f)
	}
	for _, e := range list {
		fmt.Fprintf(&sb, "edge %s %s\n", e[0], e[1])
	}
	if err := os.WriteFile(*out, []byte(sb.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("gtgen: %d files, %d edges", len(files), len(list))
}

// qualName is the front end's qualified name of a declaration.
func qualName(fd *ast.FuncDecl) string {
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
		}
		break
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
