package faultline

// The module's dependency policy (which of its packages may import which, and which must
// build without cgo), written down as a test in the manner of the standard library's
// go/build deps_test.go. It asks the go command for the import graph of every package in
// the module (tests excluded: they may import anything).

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/faultline-dev/faultline"

// pkgInfo is what the policy needs about one package of the module.
type pkgInfo struct {
	path    string   // import path relative to the module ("task", "callgraph/python")
	imports []string // direct imports (full paths), non-test
	deps    []string // transitive non-standard deps (full paths), non-test
}

func listModule(t *testing.T) []pkgInfo {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("deps: the go command is not on PATH")
	}
	cmd := exec.Command("go", "list", "-e", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{range .Deps}}{{.}} {{end}}`, "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkgInfo
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "|", 3)
		if len(parts) != 3 {
			t.Fatalf("go list: unexpected line %q", sc.Text())
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(parts[0], module), "/")
		p := pkgInfo{path: rel, imports: strings.Fields(parts[1])}
		for _, d := range strings.Fields(parts[2]) {
			if !isStd(d) {
				p.deps = append(p.deps, d)
			}
		}
		pkgs = append(pkgs, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].path < pkgs[j].path })
	return pkgs
}

// isStd reports whether an import path belongs to the standard library: its first element
// has no dot (and it is not this module).
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") && !strings.HasPrefix(p, module)
}

// under reports whether rel is dir or a package below it.
func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// allowedForTask reports whether task may use dep: only module-internal packages, which must
// themselves be standard-library only (checked through task's transitive deps).
func allowedForTask(dep string) bool {
	rel := strings.TrimPrefix(dep, module+"/")
	return strings.HasPrefix(dep, module+"/") && under(rel, "internal")
}

func TestDependencyPolicy(t *testing.T) {
	pkgs := listModule(t)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.path] = true
		for _, dep := range p.deps {
			if err := checkDep(p.path, dep); err != "" {
				t.Errorf("%s imports %s: %s", p.path, dep, err)
			}
		}
	}
	for _, required := range []string{"task", "task/llm"} {
		if !seen[required] {
			t.Errorf("package %s is missing from the module", required)
		}
	}
}

// checkDep returns a non-empty reason when package rel may not depend (directly or
// transitively) on dep.
func checkDep(rel, dep string) string {
	inModule := strings.HasPrefix(dep, module+"/")
	depRel := strings.TrimPrefix(dep, module+"/")
	thirdParty := !inModule
	top, _, _ := strings.Cut(rel, "/")

	// Nothing but examples imports the Docker runner.
	if inModule && under(depRel, "sandbox/container") && top != "examples" && !under(rel, "sandbox/container") {
		return "only examples and tests may import sandbox/container"
	}
	switch {
	case under(rel, "internal"):
		// internal packages serve task and others; those used by task must be std-only,
		// which the task rule checks through task's transitive deps.
		return ""
	case rel == "task" || under(rel, "task"):
		if allowedForTask(dep) || (rel != "task" && inModule && under(depRel, "task")) {
			return "" // task's subpackages may use task (all of it standard-library only)
		}
		return "task uses the standard library only (plus std-only internal packages)"
	case under(rel, "stats"):
		if inModule && under(depRel, "stats") && rel != "stats" {
			return "" // stats/plot draws what stats computes
		}
		if inModule && depRel == "internal/numeric" {
			return "" // the numerical rules stats shares with corrupt and metrics
		}
		if inModule {
			return "stats imports nothing from the module but internal/numeric"
		}
		if strings.HasPrefix(dep, "gonum.org/v1/gonum") {
			return ""
		}
		if strings.HasPrefix(dep, "gonum.org/v1/plot") || isPlotDep(dep) {
			if strings.Contains(rel, "plot") {
				return ""
			}
			return "only the plotting subpackage of stats may use gonum.org/v1/plot"
		}
		return "stats depends on gonum only"
	case rel == "callgraph":
		if inModule && (under(depRel, "task") || under(depRel, "internal")) {
			return ""
		}
		if strings.HasPrefix(dep, "gonum.org/v1/gonum") {
			return ""
		}
		if strings.Contains(dep, "go-tree-sitter") {
			return "tree-sitter belongs in the language subpackages only"
		}
		return "callgraph imports task, internal and gonum only"
	case under(rel, "callgraph"):
		if inModule && (under(depRel, "task") || under(depRel, "internal") || under(depRel, "callgraph")) {
			return ""
		}
		if strings.HasPrefix(dep, "gonum.org/v1/gonum") || strings.HasPrefix(dep, "github.com/smacker/go-tree-sitter") {
			return ""
		}
		return "callgraph front ends import task, internal, callgraph, gonum and go-tree-sitter only"
	case top == "corrupt" || top == "extract":
		if inModule && (under(depRel, "task") || under(depRel, "internal") || under(depRel, "callgraph") || under(depRel, top)) {
			return ""
		}
		if inModule && top == "extract" && under(depRel, "extract") {
			return "" // the pipeline uses its masking and artifact subpackages
		}
		if inModule && top == "extract" && depRel == "metrics" {
			return "" // one FeatureBench scorer: extract scores Level 2 attempts with metrics.FeatureBench
		}
		if inModule && under(depRel, "sandbox") {
			return "corrupt and extract run tests only through the task interfaces, never sandbox"
		}
		if thirdParty && (strings.HasPrefix(dep, "gonum.org/v1/gonum") || strings.HasPrefix(dep, "github.com/smacker/go-tree-sitter")) {
			return "" // through callgraph
		}
		return "corrupt and extract import task, callgraph and internal only"
	case top == "compose" || top == "metrics":
		if inModule && (under(depRel, "task") || under(depRel, "internal")) {
			return ""
		}
		return "compose and metrics import task and internal only"
	case rel == "sandbox" || under(rel, "sandbox/internal"):
		// sandbox/internal holds what the local and the Docker runner share.
		if inModule && (under(depRel, "task") || under(depRel, "internal") || under(depRel, "sandbox/internal")) {
			return ""
		}
		return "sandbox and sandbox/internal import task and the internal packages only"
	case under(rel, "sandbox/container"):
		if inModule && (under(depRel, "task") || under(depRel, "internal") || depRel == "sandbox" || under(depRel, "sandbox/internal")) {
			return ""
		}
		if thirdParty {
			return "" // testcontainers-go and its dependency tree
		}
		return "sandbox/container imports task, sandbox, sandbox/internal and testcontainers-go"
	}
	return "" // examples, the root package, bench programs
}

// isPlotDep reports modules that only gonum/plot brings in (fonts, vector backends).
func isPlotDep(dep string) bool {
	for _, p := range []string{"codeberg.org/go-", "git.sr.ht/~sbinet/", "github.com/ajstarks/", "github.com/golang/freetype", "golang.org/x/image", "github.com/campoy/embedmd", "rsc.io/pdf", "golang.org/x/text"} {
		if strings.HasPrefix(dep, p) {
			return true
		}
	}
	return false
}

// TestCgoFreePackages builds the packages that must build without cgo (listed below).
func TestCgoFreePackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("deps: the go command is not on PATH")
	}
	var targets []string
	for _, p := range []string{"task", "stats", "metrics", "compose", "sandbox"} {
		if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 {
			targets = append(targets, "./"+p)
		}
	}
	if len(targets) == 0 {
		t.Fatal("none of the cgo-free packages exist")
	}
	// Building non-main packages discards the result; only compilation matters.
	cmd := exec.Command("go", append([]string{"build"}, targets...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build %s: %v\n%s", strings.Join(targets, " "), err, out)
	}
}

func TestCheckDepRules(t *testing.T) {
	// The policy itself must be able to fail: a few known violations.
	bad := []struct{ rel, dep string }{
		{"task", "gonum.org/v1/gonum/mat"},
		{"task", module + "/callgraph"},
		{"stats", module + "/task"},
		{"callgraph", "github.com/smacker/go-tree-sitter"},
		{"corrupt", module + "/sandbox"},
		{"metrics", module + "/callgraph"},
		{"sandbox", "github.com/testcontainers/testcontainers-go"},
		{"extract", module + "/sandbox/container"},
		{"extract/mask", module + "/corrupt"},
		{"stats", "gonum.org/v1/plot"},
		{"task/repo", module + "/callgraph"},
		{"task/repo", "gonum.org/v1/gonum/mat"},
		{"task/llm", module + "/corrupt"},
		{"task/llm", "golang.org/x/net/http2"},
	}
	for _, c := range bad {
		if checkDep(c.rel, c.dep) == "" {
			t.Errorf("policy allows %s → %s, want a violation", c.rel, c.dep)
		}
	}
	good := []struct{ rel, dep string }{
		{"task", module + "/internal/difflib"},
		{"task/repo", module + "/task"},
		{"stats", "gonum.org/v1/gonum/mat"},
		{"stats/plot", "gonum.org/v1/plot/vg"},
		{"stats/plot", module + "/stats"},
		{"callgraph/python", "github.com/smacker/go-tree-sitter/python"},
		{"corrupt", module + "/callgraph"},
		{"examples/breakpoint", module + "/sandbox/container"},
		{"extract", module + "/extract/mask"},
		{"sandbox/container", "github.com/testcontainers/testcontainers-go"},
		// Every component that talks to a model uses task/llm.
		{"corrupt", module + "/task/llm"},
		{"extract", module + "/task/llm"},
		{"extract/artifact", module + "/task/llm"},
		{"compose", module + "/task/llm"},
	}
	for _, c := range good {
		if r := checkDep(c.rel, c.dep); r != "" {
			t.Errorf("policy refuses %s → %s: %s", c.rel, c.dep, r)
		}
	}
}
