// Command callgraph builds the call graph of a directory and prints it with each
// function's complexity metrics and centrality.
//
// Usage:
//
//	go run ./examples/callgraph [flags] DIR
//
// Flags:
//
//	-lang auto|python|go|javascript
//	                          front ends to run (auto: all of them; each file goes to
//	                          the first that claims it)
//	-format json|dot          output format (default json)
//	-compat breakpoint        reproduce the released Breakpoint code's quirks (α = 0.8,
//	                          its betweenness and PageRank, code lines + 1)
//	-alpha A                  distance-discount base (default 0.5; 0.8 under -compat)
//	-unique-names             Python: resolve obj.m() to the only method named m
//	-interfaces typeflow|cha|none
//	                          Go: resolve an interface method call to the types whose
//	                          values reach the receiver (typeflow, default), to every
//	                          implementation the code creates (cha), or not at all
//	-cha                      Go: same as -interfaces cha
//	-skip-tests               leave test files out
//	-include-modules          rank module pseudo-nodes too
//
// The JSON output is callgraph.Report:
//
//	{"nodes":[{"id","file","name","kind","line","end_line",
//	           "metrics":{"code_lines","cyclomatic","halstead_volume","halstead_difficulty","nesting"},
//	           "centrality":{"harmonic","distance_discount","pagerank","betweenness","in_degree","out_degree"}}],
//	 "edges":[{"caller","callee","lines":[...]}],
//	 "stats":{"files","functions","calls","resolved","unresolved","parse_errors"}}
//
// where file is the slash path relative to DIR and name the qualified name. Files that
// were skipped and files with syntax errors are reported on stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/javascript"
	"github.com/faultline-dev/faultline/callgraph/python"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its streams; it returns the exit status (2 for usage errors).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("callgraph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lang := fs.String("lang", "auto", "front ends: auto, python, go, javascript")
	format := fs.String("format", "json", "output format: json or dot")
	compat := fs.String("compat", "", `compatibility mode: "" or breakpoint`)
	alpha := fs.Float64("alpha", 0, "distance-discount base (0: 0.5, or 0.8 under -compat breakpoint)")
	uniqueNames := fs.Bool("unique-names", false, "Python: resolve obj.m() to the project's only method named m")
	ifaces := fs.String("interfaces", "typeflow", "Go: resolve interface method calls by typeflow (values that reach the receiver), cha (every implementation created) or none")
	cha := fs.Bool("cha", false, "Go: same as -interfaces cha")
	skipTests := fs.Bool("skip-tests", false, "leave test files out")
	includeModules := fs.Bool("include-modules", false, "rank module pseudo-nodes too")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: callgraph [flags] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "callgraph: "+format+"\n", a...)
		return 2
	}
	var mode callgraph.Compat
	switch *compat {
	case "":
	case "breakpoint":
		mode = callgraph.CompatBreakpoint
	default:
		return usage("unknown -compat %q (want breakpoint)", *compat)
	}
	if *format != "json" && *format != "dot" {
		return usage("unknown -format %q (want json or dot)", *format)
	}
	if *alpha < 0 || *alpha > 1 {
		return usage("-alpha %g outside [0, 1]", *alpha)
	}
	var imode golang.InterfaceMode
	switch *ifaces {
	case "typeflow":
		imode = golang.InterfacesTypeFlow
	case "cha":
		imode = golang.InterfacesCHA
	case "none":
		imode = golang.InterfacesNone
	default:
		return usage("unknown -interfaces %q (want typeflow, cha or none)", *ifaces)
	}
	py := python.New(python.Options{UniqueNameFallback: *uniqueNames})
	gofe := golang.New(golang.Options{Interfaces: imode, CHA: *cha, IncludeTests: !*skipTests})
	js := javascript.New(javascript.Options{IncludeTests: !*skipTests})
	var langs []callgraph.Language
	switch *lang {
	case "auto":
		langs = []callgraph.Language{py, gofe, js}
	case "python":
		langs = []callgraph.Language{py}
	case "go":
		langs = []callgraph.Language{gofe}
	case "javascript":
		langs = []callgraph.Language{js}
	default:
		return usage("unknown -lang %q (want auto, python, go or javascript)", *lang)
	}

	dir := fs.Arg(0)
	g, err := callgraph.Build(ctx, dir, langs, callgraph.BuildOptions{SkipTests: *skipTests})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, s := range g.Stats().Skipped {
		if s.Reason != callgraph.SkipTest {
			fmt.Fprintf(stderr, "callgraph: skipped %s: %s\n", s.Path, s.Reason)
		}
	}
	for _, e := range g.Errors() {
		fmt.Fprintln(stderr, e)
	}
	c, err := g.Centrality(ctx, callgraph.CentralityOptions{Alpha: *alpha, Compat: mode, IncludeModules: *includeModules})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if !c.PageRankConverged {
		fmt.Fprintf(stderr, "callgraph: PageRank did not converge in %d iterations\n", c.PageRankIterations)
	}
	if *format == "dot" {
		err = g.WriteDOT(stdout, c)
	} else {
		err = g.WriteJSON(stdout, c, mode)
	}
	if err != nil {
		fmt.Fprintln(stderr, strings.TrimSpace(err.Error()))
		return 1
	}
	return 0
}
