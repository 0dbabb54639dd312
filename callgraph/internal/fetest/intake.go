package fetest

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/internal/acceptance"
)

// Acceptance skips t unless the acceptance runs are on (internal/acceptance).
func Acceptance(t testing.TB) {
	t.Helper()
	acceptance.Skip(t, "a run on real repositories")
}

// Edges returns g's edges as "caller -> callee" by ID, keeping only those between nodes
// whose file lies at or below the slash directory dir ("." keeps all), with dir/
// removed from the IDs: the graph of dir as seen from g's root.
func Edges(g *callgraph.Graph, dir string) map[string]bool {
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	out := map[string]bool{}
	for _, e := range g.Edges() {
		a, b := g.Node(e.From).ID, g.Node(e.To).ID
		ra, ok1 := strings.CutPrefix(a, prefix)
		rb, ok2 := strings.CutPrefix(b, prefix)
		if ok1 && ok2 {
			out[ra+" -> "+rb] = true
		}
	}
	return out
}

// Jaccard is |a ∩ b| / |a ∪ b| (1 for two empty sets).
func Jaccard(a, b map[string]bool) float64 {
	inter := 0
	for e := range a {
		if b[e] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// WriteTree writes files (slash path → contents) below root.
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	if err := fstree.Write(root, files); err != nil {
		t.Fatal(err)
	}
}

// Recorder wraps a front end and records the paths of the files it is given.
type Recorder struct {
	callgraph.Language
	Paths []string
}

// Analyze records the paths, then analyses with the wrapped front end.
func (r *Recorder) Analyze(ctx context.Context, files []callgraph.SourceFile) (*callgraph.Analysis, error) {
	for _, f := range files {
		r.Paths = append(r.Paths, f.Path)
	}
	return r.Language.Analyze(ctx, files)
}

// ModuleDir downloads module@version from the module proxy into the module cache (go mod
// download; nothing when it is there already) and returns its directory, skipping t when
// the go command cannot.
func ModuleDir(t testing.TB, module, version string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go mod download %s@%s failed (offline? CI downloads it first): %v\n%s", module, version, err, out)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Skipf("go mod download %s@%s: no module directory in %s (%v)", module, version, out, err)
	}
	return info.Dir
}
