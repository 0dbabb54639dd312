// Command callgraph builds the call graph of a directory and prints it with each
// function's complexity metrics and centrality.
//
// Usage:
//
//	go run ./examples/callgraph [flags] DIR
//	go run ./examples/callgraph [flags] -repo DIR
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
//	-all-files                Go: analyse every .go file, whatever its build constraints
//	                          (default: the files the go command builds on this machine)
//	-skip-tests               leave test files out (every language: they are analysed by
//	                          default)
//	-include-modules          rank module pseudo-nodes too
//	-repo DIR                 the directory (instead of the positional argument)
//	-out FILE                 write the output to FILE, whole or not at all (default -,
//	                          stdout)
//
// DIR may be a project's root or any directory inside it — a Python package directory, a
// Go module's subdirectory: callgraph.Build finds the project (task/repo's rules), analyses
// from its root so imports resolve as the project's own do, and keeps the graph of DIR. The
// root chosen and why is printed on stderr and recorded in the output's "project".
//
// The JSON output is callgraph.Report:
//
//	{"project":{"root","target","lang","include","module","reason",...},
//	 "nodes":[{"id","file","name","kind","line","end_line",
//	           "metrics":{"code_lines","cyclomatic","halstead_volume","halstead_difficulty","nesting"},
//	           "centrality":{"harmonic","distance_discount","pagerank","betweenness","in_degree","out_degree"}}],
//	 "edges":[{"caller","callee","lines":[...]}],
//	 "stats":{"files","functions","calls","resolved","unresolved","parse_errors"}}
//
// where file is the slash path relative to DIR and name the qualified name; a module
// pseudo-node has no "centrality" unless -include-modules. Calls, resolved and unresolved
// count the call sites of everything analysed (the project's root, which may hold more than
// DIR). Files that were skipped and files with syntax errors are reported on stderr, with
// progress. It
// follows the convention of internal/cli: flags are checked before any work (a bad one
// exits 2 naming it), -h exits 0, and SIGINT/SIGTERM stop it with status 130/143.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/javascript"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/internal/cli"
)

func main() { os.Exit(cli.Main(run)) }

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
	allFiles := fs.Bool("all-files", false, "Go: analyse every .go file, whatever its build constraints (default: the files the go command builds on this machine)")
	skipTests := fs.Bool("skip-tests", false, "leave test files out")
	includeModules := fs.Bool("include-modules", false, "rank module pseudo-nodes too")
	repo := fs.String("repo", "", "the `DIR` to analyse (or give it as the one positional argument)")
	outPath := fs.String("out", "-", "output `FILE` (- for stdout)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: callgraph [flags] DIR\n       callgraph [flags] -repo DIR")
		fs.PrintDefaults()
	}
	if code := cli.Parse(fs, args, true); code >= 0 {
		return code
	}
	usage := func(format string, a ...any) int { return cli.Usage(stderr, "callgraph", format, a...) }
	dir := *repo
	switch {
	case fs.NArg() > 1:
		return usage("one directory, not %d (%s)", fs.NArg(), strings.Join(fs.Args(), " "))
	case fs.NArg() == 1 && dir != "" && filepath.Clean(fs.Arg(0)) != filepath.Clean(dir):
		return usage("two directories: -repo %s and %s", dir, fs.Arg(0))
	case fs.NArg() == 1:
		dir = fs.Arg(0)
	case dir == "":
		fs.Usage()
		return cli.ExitUsage
	}
	if _, err := cli.Repo(dir); err != nil {
		return usage("%v", err)
	}
	if err := cli.CheckOutputs(dir, cli.Output{Flag: "out", Path: *outPath}); err != nil {
		return usage("%v", err)
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
	if *cha {
		imode = golang.InterfacesCHA
	}
	py := python.New(python.Options{UniqueNameFallback: *uniqueNames})
	gofe := golang.New(golang.Options{Interfaces: imode, AllFiles: *allFiles})
	js := javascript.New(javascript.Options{})
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

	prog := cli.NewProgress(stderr, "callgraph")
	stopBeat := prog.Beat(15 * time.Second)
	defer stopBeat()
	prog.Phase("building the call graph of "+dir, 0)
	g, err := callgraph.Build(ctx, dir, langs, callgraph.BuildOptions{SkipTests: *skipTests})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if p := g.Project(); p != nil {
		what := "the whole root"
		if p.Target != "." {
			what = p.Target
		}
		fmt.Fprintf(stderr, "callgraph: analysed from %s (%s); the graph holds %s\n", p.Root, p.Reason, what)
	}
	for _, s := range g.Stats().Skipped {
		if s.Reason != callgraph.SkipTest {
			fmt.Fprintf(stderr, "callgraph: skipped %s: %s\n", s.Path, s.Reason)
		}
	}
	for _, e := range g.Errors() {
		fmt.Fprintln(stderr, e)
	}
	st := g.Stats()
	prog.Phase(fmt.Sprintf("centrality of %d functions, %d edges", st.Functions, len(g.Edges())), 0)
	c, err := g.Centrality(ctx, callgraph.CentralityOptions{Alpha: *alpha, Compat: mode, IncludeModules: *includeModules})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if !c.PageRankConverged {
		fmt.Fprintf(stderr, "callgraph: PageRank did not converge in %d iterations\n", c.PageRankIterations)
	}
	out, err := cli.Create(*outPath, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "callgraph:", err)
		return cli.ExitFailure
	}
	defer out.Abort()
	if *format == "dot" {
		err = g.WriteDOT(out, c)
	} else {
		err = g.WriteJSON(out, c)
	}
	if err == nil {
		err = out.Commit()
	}
	if err != nil {
		fmt.Fprintln(stderr, strings.TrimSpace(err.Error()))
		return cli.ExitFailure
	}
	return cli.ExitOK
}
