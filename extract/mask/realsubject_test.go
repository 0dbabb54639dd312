package mask

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// simplejsonRoot copies Debian's python3-simplejson (not written here) under a new root.
func simplejsonRoot(t *testing.T) string {
	t.Helper()
	src := "/usr/lib/python3/dist-packages/simplejson"
	if _, err := os.Stat(filepath.Join(src, "tests")); err != nil {
		t.Skip("mask: python3-simplejson with its tests is not installed (apt-get install python3-simplejson)")
	}
	root := t.TempDir()
	dst := copyTree(t, src)
	require.NoError(t, os.Rename(dst, filepath.Join(root, "simplejson")))
	for _, junk := range []string{"__pycache__", "tests/__pycache__"} {
		_ = os.RemoveAll(filepath.Join(root, "simplejson", junk))
	}
	return root
}

// Every definition of simplejson's encoder and decoder modules is asked to be removed: the
// names re-exported through simplejson.__all__ are protected, everything else goes, and
// every masked file still compiles.
func TestMaskSimplejsonAll(t *testing.T) {
	root := simplejsonRoot(t)
	var files []callgraph.SourceFile
	for _, p := range []string{"simplejson/encoder.py", "simplejson/decoder.py"} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		require.NoError(t, err)
		files = append(files, callgraph.SourceFile{Path: p, Src: b})
	}
	an, err := python.New(python.Options{}).Analyze(context.Background(), files)
	require.NoError(t, err)
	var targets []Target
	for _, d := range an.Definitions {
		if d.Kind != task.KindModule {
			targets = append(targets, Target{File: d.File, Name: d.Name, Line: d.Line})
		}
	}
	require.Greater(t, len(targets), 20)
	res, err := Mask(context.Background(), root, targets, Options{})
	require.NoError(t, err)
	pythonCompiles(t, res.Overlay)
	prot := map[string]string{}
	for _, p := range res.Protected {
		prot[p.Target.Name] = p.Reason
	}
	require.Equal(t, ReasonReexported+": simplejson/__init__.py", prot["JSONEncoder"])
	require.Equal(t, ReasonAll, prot["JSONDecoder"]) // decoder.py lists it in its own __all__
	removed := map[string]bool{}
	for _, r := range res.Removed {
		removed[r.Target.Name] = true
	}
	require.True(t, removed["JSONEncoderForHTML"])
	require.True(t, removed["py_scanstring"])
	// JSONEncoderForHTML is not in __all__: its import entry goes, JSONEncoder's stays.
	require.Contains(t, string(res.Overlay["simplejson/__init__.py"].Data), "from .encoder import JSONEncoder\n")
	require.Len(t, res.Protected, 2, "%v", res.Protected)
}

// Removing JSONEncoderForHTML keeps test_encode_for_html collecting (it uses the class at
// run time), makes its tests fail, and leaves test_dump green.
func TestMaskUntilCollectsSimplejson(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("mask: /usr/bin/python3 is not installed")
	}
	root := simplejsonRoot(t)
	run := sandbox.NewLocal(sandbox.Options{Python: "/usr/bin/python3", WorkDir: t.TempDir(), NoIsolation: true})
	defer run.Close()
	ctx := context.Background()
	f2p := "simplejson/tests/test_encode_for_html.py"
	res, err := MaskUntilCollects(ctx, run, CollectRequest{
		Root:    root,
		Targets: []Target{{File: "simplejson/encoder.py", Name: "JSONEncoderForHTML"}},
		Kind:    task.Pytest,
		Select:  task.Selection{Files: []string{f2p}},
	}, LoopOptions{})
	require.NoError(t, err)
	require.Empty(t, res.Protected)
	require.Len(t, res.Removed, 1)
	require.Equal(t, 1, res.Runs)
	rep, err := run.Run(ctx, task.RunRequest{Root: root, Overlay: res.Overlay, Kind: task.Pytest, Select: task.Selection{Files: []string{f2p}}})
	require.NoError(t, err)
	require.True(t, rep.Ran(), "%s: %s", rep.State, rep.Detail)
	require.Empty(t, rep.Passing())
	require.NotEmpty(t, rep.Failing())
	rep, err = run.Run(ctx, task.RunRequest{Root: root, Overlay: res.Overlay, Kind: task.Pytest, Select: task.Selection{Files: []string{"simplejson/tests/test_dump.py"}}})
	require.NoError(t, err)
	require.True(t, rep.Green(), "%s: %s", rep.State, rep.Detail)
}
