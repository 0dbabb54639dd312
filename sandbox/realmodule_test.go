package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A realModule is a module from the module proxy with one function to corrupt so that the
// tests calling it panic.
type realModule struct {
	path, version string
	file, fn      string
	heldOut       bool // chosen before the rule was tuned, run as it stands
}

var realModules = []realModule{
	// Tuned on: a MustParse helper (Parse itself runs in the package's init), and
	// table-driven suites over NewVersion.
	{"github.com/google/uuid", "v1.6.0", "uuid.go", "MustParse", false},
	{"github.com/Masterminds/semver/v3", "v3.5.0", "version.go", "NewVersion", false},
	// Held out.
	{"github.com/hashicorp/go-version", "v1.9.0", "version.go", "NewVersion", true},
	{"github.com/dustin/go-humanize", "v1.1.0", "bytes.go", "humanateBytes", true},
}

// moduleCopy downloads m (when the cache lacks it) and copies it to a temporary directory.
func moduleCopy(t *testing.T, m realModule) string {
	out, err := exec.Command("go", "mod", "download", "-json", m.path+"@"+m.version).Output()
	if err != nil {
		t.Skipf("go mod download %s@%s: %v", m.path, m.version, err)
	}
	var info struct{ Dir string }
	require.NoError(t, json.Unmarshal(out, &info))
	root := filepath.Join(t.TempDir(), "m")
	require.NoError(t, copyTree(info.Dir, root))
	return root
}

// corruptFunc returns the source of file with fn's body starting with a panic (the rest is
// kept, so every import and variable stays used).
func corruptFunc(t *testing.T, file, fn string) []byte {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	require.NoError(t, err)
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		d, ok := n.(*ast.FuncDecl)
		if !ok || d.Name.Name != fn || d.Recv != nil || d.Body == nil {
			return true
		}
		found = true
		call := &ast.CallExpr{Fun: ast.NewIdent("panic"), Args: []ast.Expr{&ast.BasicLit{Kind: token.STRING, Value: `"faultline: corrupted ` + fn + `"`}}}
		d.Body.List = append([]ast.Stmt{&ast.ExprStmt{X: call}}, d.Body.List...)
		return false
	})
	require.True(t, found, "no function %s in %s", fn, file)
	var b bytes.Buffer
	require.NoError(t, printer.Fprint(&b, fset, f))
	return b.Bytes()
}

// TestRealModulesPanics corrupts one function of real modules so that the tests calling it
// panic and take the test binary down, and checks that every test still gets the verdict it
// gets when run alone (a deterministic sample of them, run alone with the bare go command).
func TestRealModulesPanics(t *testing.T) {
	acceptance.Skip(t, "runs the tests of real modules from the module proxy")
	needGo(t)
	l := NewLocal(Options{Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off"}, Jobs: 1})
	defer l.Close()
	for _, m := range realModules {
		t.Run(filepath.Base(m.path), func(t *testing.T) {
			root := moduleCopy(t, m)
			ov := task.Overlay{}
			ov.Set(m.file, corruptFunc(t, filepath.Join(root, m.file), m.fn))
			rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Overlay: ov, Kind: task.GoTest})
			require.NoError(t, err)
			require.Equal(t, task.RunOK, rep.State, rep.Detail)
			fails, passes := len(rep.Failing()), len(rep.Passing())
			t.Logf("%s@%s (held out: %v): %d tests, %d fail, %d pass, %d not run; %v", m.path, m.version, m.heldOut,
				len(rep.Tests), fails, passes, len(rep.NotRun()), rep.Notes)
			assert.Positive(t, fails, "the corruption makes tests fail")
			assert.Positive(t, passes)
			for _, id := range rep.NotRun() {
				r, _ := rep.Result(id)
				assert.Contains(t, r.Message, "not run: ", id)
			}
			// The first panic took the binary down: without re-runs the tests after it would
			// have no verdict.
			assert.True(t, hasNote(rep, "re-runs: "), "%v", rep.Notes)
			// A sample of the decided tests, failing and passing, run alone.
			sample := sampleIDs(rep, 8)
			for _, id := range sample {
				tr, _ := rep.Result(id)
				assert.Equal(t, aloneGo(t, root, ov, id), tr.Outcome, "%s: the run's verdict differs from running it alone (%s)", id, tr.Message)
			}
		})
	}
}

// sampleIDs picks up to n decided tests, half failing and half passing when it can, spread
// evenly over the sorted ids (deterministic).
func sampleIDs(rep *task.Report, n int) []string {
	pick := func(ids []string, k int) []string {
		sort.Strings(ids)
		if len(ids) <= k {
			return ids
		}
		var out []string
		for i := range k {
			out = append(out, ids[i*len(ids)/k])
		}
		return out
	}
	f := pick(rep.Failing(), n/2)
	return append(f, pick(rep.Passing(), n-len(f))...)
}
