package golang

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// groundTruth is a generated edge list (see testdata/gtgen).
type groundTruth struct {
	module, version string
	files           []string
	edges           map[[2]string]bool
}

func readGroundTruth(t *testing.T, name string) groundTruth {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "groundtruth", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gt := groundTruth{edges: map[[2]string]bool{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "module":
			gt.module, gt.version = fields[1], fields[2]
		case len(fields) == 2 && fields[0] == "file":
			gt.files = append(gt.files, fields[1])
		case len(fields) == 3 && fields[0] == "edge":
			gt.edges[[2]string{fields[1], fields[2]}] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return gt
}

// moduleDir returns the module's directory in the module cache, skipping the test when
// it is absent.
func moduleDir(t *testing.T, module, version string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	esc := strings.Builder{}
	for _, r := range module {
		if r >= 'A' && r <= 'Z' {
			esc.WriteByte('!')
			r += 'a' - 'A'
		}
		esc.WriteRune(r)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), esc.String()+"@"+version)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("module %s@%s not in the module cache (run go mod download): %v", module, version, err)
	}
	return dir
}

// precisionRecall compares an analysis' edge set with the ground truth.
func precisionRecall(a *callgraph.Analysis, gt map[[2]string]bool) (p, r float64, fp, fn [][2]string) {
	got := map[[2]string]bool{}
	for _, c := range a.Calls {
		got[[2]string{c.Caller, c.Callee}] = true
	}
	tp := 0
	for e := range got {
		if gt[e] {
			tp++
		} else {
			fp = append(fp, e)
		}
	}
	for e := range gt {
		if !got[e] {
			fn = append(fn, e)
		}
	}
	less := func(l [][2]string) {
		sort.Slice(l, func(i, j int) bool { return l[i][0]+" "+l[i][1] < l[j][0]+" "+l[j][1] })
	}
	less(fp)
	less(fn)
	if len(got) > 0 {
		p = float64(tp) / float64(len(got))
	}
	if len(gt) > 0 {
		r = float64(tp) / float64(len(gt))
	}
	return p, r, fp, fn
}

func analyzeModule(t *testing.T, gt groundTruth, opts Options) *callgraph.Analysis {
	t.Helper()
	dir := moduleDir(t, gt.module, gt.version)
	files := []callgraph.SourceFile{}
	if src, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
		files = append(files, callgraph.SourceFile{Path: "go.mod", Src: src})
	}
	for _, p := range gt.files {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, callgraph.SourceFile{Path: p, Src: src})
	}
	a, err := New(opts).Analyze(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Errors) > 0 {
		t.Fatalf("syntax errors in %s: %v", gt.module, a.Errors)
	}
	return a
}

func TestGroundTruthEval(t *testing.T) {
	for _, name := range []string{"go-diff.txt", "testify.txt", "gonum-graph.txt"} {
		gt := readGroundTruth(t, name)
		for _, cha := range []bool{false, true} {
			a := analyzeModule(t, gt, Options{CHA: cha})
			p, r, fp, fn := precisionRecall(a, gt.edges)
			t.Logf("%s CHA=%v: P=%.3f R=%.3f edges=%d gt=%d fp=%d fn=%d", name, cha, p, r, len(a.Calls), len(gt.edges), len(fp), len(fn))
			if os.Getenv("SHOWDIFF") != "" {
				for _, e := range fp {
					t.Logf("  FP %s -> %s", e[0], e[1])
				}
				for _, e := range fn {
					t.Logf("  FN %s -> %s", e[0], e[1])
				}
			}
		}
	}
}
