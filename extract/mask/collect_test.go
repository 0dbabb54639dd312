package mask

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

func TestBlamedNames(t *testing.T) {
	py := `ERROR collecting tests/test_core.py
E   ImportError: cannot import name 'helper' from 'pkg.core' (/tmp/x/pkg/core.py)
E   NameError: name 'make' is not defined
E   AttributeError: module 'pkg.util' has no attribute 'fmt_a'
E   AttributeError: type object 'Engine' has no attribute 'speed'. Did you mean: 'sped'?
E   NameError: name 'make' is not defined`
	require.Equal(t, []string{"fmt_a", "helper", "make", "speed"}, BlamedNames(task.Pytest, py))
	gob := `# example.com/gofix/lib [example.com/gofix/lib.test]
lib/lib_test.go:6:5: undefined: Exported
app/app.go:7:35: undefined: lib.Format
lib/x_test.go:9:4: t.Name undefined (type *T has no field or method Name)`
	require.Equal(t, []string{"Exported", "Format", "Name"}, BlamedNames(task.GoTest, gob))
	require.Empty(t, BlamedNames(task.Pytest, "SyntaxError: invalid syntax"))
}

// fakeCollector fails a collection while the overlay's version of file lacks any of the
// needles, with the given message; it counts its runs.
type fakeCollector struct {
	file    string
	needles []string
	msg     string
	runs    atomic.Int32
}

func (f *fakeCollector) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	f.runs.Add(1)
	if req.Kind != task.Pytest || !strings.Contains(strings.Join(req.Args, " "), "--collect-only") {
		return nil, errors.New("fake: not a collection run")
	}
	ch, ok := req.Overlay[f.file]
	if ok {
		for _, n := range f.needles {
			if !bytes.Contains(ch.Data, []byte(n)) {
				return &task.Report{State: task.RunCollectionError, Detail: f.msg}, nil
			}
		}
	}
	return &task.Report{State: task.RunOK}, nil
}

func TestMaskUntilCollectsFake(t *testing.T) {
	root := filepath.Join("testdata", "pyrepo")
	targets := mustTargets(t, "pkg/util.py::fmt_a", "pkg/util.py::fmt_b", "pkg/util.py::fmt_c")
	t.Run("named", func(t *testing.T) {
		f := &fakeCollector{file: "pkg/util.py", needles: []string{"def fmt_b"}, msg: "E   NameError: name 'fmt_b' is not defined"}
		res, err := MaskUntilCollects(context.Background(), f, CollectRequest{Root: root, Targets: targets, Kind: task.Pytest}, LoopOptions{})
		require.NoError(t, err)
		require.Equal(t, 2, res.Runs)
		require.Equal(t, []Protection{{Target{File: "pkg/util.py", Name: "fmt_b"}, ReasonCollect + ": fmt_b"}}, res.Protected)
		require.Len(t, res.Removed, 2)
		require.Contains(t, string(res.Overlay["pkg/util.py"].Data), "def fmt_b")
	})
	t.Run("bisect", func(t *testing.T) {
		f := &fakeCollector{file: "pkg/util.py", needles: []string{"def fmt_c"}, msg: "E   RuntimeError: something broke"}
		res, err := MaskUntilCollects(context.Background(), f, CollectRequest{Root: root, Targets: targets, Kind: task.Pytest}, LoopOptions{})
		require.NoError(t, err)
		require.Equal(t, []Protection{{Target{File: "pkg/util.py", Name: "fmt_c"}, ReasonBisect}}, res.Protected)
		require.Equal(t, []string{"fmt_a", "fmt_b"}, []string{res.Removed[0].Target.Name, res.Removed[1].Target.Name})
		// 1 failing run, 2 bisection runs over 3 removals, 1 final run.
		require.Equal(t, 4, res.Runs)
		require.Equal(t, int32(4), f.runs.Load())
	})
	t.Run("bounded", func(t *testing.T) {
		f := &fakeCollector{file: "pkg/util.py", needles: []string{"never there"}, msg: "broken"}
		// Even with everything protected the overlay is empty and the fake passes, so
		// bound the runs below what the bisection needs.
		_, err := MaskUntilCollects(context.Background(), f, CollectRequest{Root: root, Targets: targets, Kind: task.Pytest}, LoopOptions{MaxRuns: 2})
		require.ErrorIs(t, err, ErrNotCollected)
		require.LessOrEqual(t, f.runs.Load(), int32(2))
	})
	t.Run("runner error", func(t *testing.T) {
		boom := errors.New("boom")
		r := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return nil, boom })
		_, err := MaskUntilCollects(context.Background(), r, CollectRequest{Root: root, Targets: targets, Kind: task.Pytest}, LoopOptions{})
		require.ErrorIs(t, err, boom)
	})
}

func TestMaskUntilCollectsPytest(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("mask: /usr/bin/python3 is not installed")
	}
	root := copyTree(t, filepath.Join("testdata", "pyrepo"))
	run := sandbox.NewLocal(sandbox.Options{Python: "/usr/bin/python3", WorkDir: t.TempDir(), NoIsolation: true})
	defer run.Close()
	ctx := context.Background()
	// The test files import helper and fmt_a (ImportError) and pkg.registry, whose module
	// code needs make (NameError); other can go, and so can fmt_b.
	req := CollectRequest{
		Root:    root,
		Targets: mustTargets(t, "pkg/core.py::helper", "pkg/util.py::fmt_a", "pkg/util.py::fmt_b", "pkg/registry.py::make", "pkg/registry.py::other"),
		Kind:    task.Pytest,
		Select:  task.Selection{Files: []string{"tests/test_core.py", "tests/test_registry.py"}},
	}
	res, err := MaskUntilCollects(ctx, run, req, LoopOptions{})
	require.NoError(t, err)
	var prot []string
	for _, p := range res.Protected {
		require.True(t, strings.HasPrefix(p.Reason, ReasonCollect), p.Reason)
		prot = append(prot, p.Target.Name)
	}
	require.ElementsMatch(t, []string{"helper", "fmt_a", "make"}, prot)
	var rem []string
	for _, r := range res.Removed {
		rem = append(rem, r.Target.Name)
	}
	require.Equal(t, []string{"other", "fmt_b"}, rem)
	pythonCompiles(t, res.Overlay)
	// The masked tree really collects and the tests pass.
	rep, err := run.Run(ctx, task.RunRequest{Root: root, Overlay: res.Overlay, Kind: task.Pytest, Select: req.Select})
	require.NoError(t, err)
	require.True(t, rep.Green(), "%s %s", rep.State, rep.Detail)
}

func TestMaskUntilCollectsGo(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "gorepo"))
	run := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), NoIsolation: true, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off"}})
	defer run.Close()
	ctx := context.Background()
	req := CollectRequest{
		Root:    root,
		Targets: mustTargets(t, "lib/lib.go::Exported", "lib/lib.go::Upper"),
		Kind:    task.GoTest,
	}
	res, err := MaskUntilCollects(ctx, run, req, LoopOptions{})
	require.NoError(t, err)
	require.Equal(t, []Protection{{Target{File: "lib/lib.go", Name: "Exported"}, ReasonCollect + ": Exported"}}, res.Protected)
	require.Len(t, res.Removed, 1)
	require.Equal(t, "Upper", res.Removed[0].Target.Name)
	goBuilds(t, root, res.Overlay)
}
