package mask

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// compileAll compiles many Python sources in one CPython process and returns the error
// message of each ("" when it compiles).
func compileAll(t *testing.T, srcs []string) []string {
	t.Helper()
	in, err := json.Marshal(srcs)
	require.NoError(t, err)
	script := `import json, sys
out = []
for s in json.load(sys.stdin):
    try:
        compile(s, "masked.py", "exec")
        out.append("")
    except SyntaxError as e:
        out.append("%s: line %s" % (e.msg, e.lineno))
json.dump(out, sys.stdout)`
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	raw, err := cmd.Output()
	require.NoError(t, err)
	var res []string
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Len(t, res, len(srcs))
	return res
}

// Every third definition of real modules no one here wrote (pyflakes' checker, bs4's element and
// dammit modules) is masked on its own; every masked module still compiles, and only the
// definition's lines (plus blank lines and inserted pass lines) changed.
func TestMaskEachDefinitionCompiles(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("mask: /usr/bin/python3 is not installed")
	}
	const dist = "/usr/lib/python3/dist-packages"
	subjects := []string{"pyflakes/checker.py", "bs4/element.py", "bs4/dammit.py"}
	root := t.TempDir()
	n := 0
	for _, s := range subjects {
		b, err := os.ReadFile(filepath.Join(dist, s))
		if err != nil {
			t.Skipf("mask: %s is not installed (python3-pyflakes, python3-bs4)", s)
		}
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(s)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, s), b, 0o644))
	}
	ctx := context.Background()
	fe := python.New(python.Options{})
	var srcs, names []string
	for _, s := range subjects {
		b, err := os.ReadFile(filepath.Join(root, s))
		require.NoError(t, err)
		an, err := fe.Analyze(ctx, []callgraph.SourceFile{{Path: s, Src: b}})
		require.NoError(t, err)
		for i, d := range an.Definitions {
			// Every third definition keeps the test to a few seconds.
			if d.Kind == task.KindModule || i%3 != 0 {
				continue
			}
			tg := Target{File: s, Name: d.Name, Line: d.Line}
			res, err := Mask(ctx, root, []Target{tg}, Options{Python: fe})
			require.NoError(t, err)
			ch, ok := res.Overlay[s]
			if !ok {
				require.NotEmpty(t, res.Protected, tg.String())
				continue
			}
			require.Len(t, res.Removed, 1, tg.String())
			require.True(t, deletionsAndPasses(strings.SplitAfter(string(b), "\n"), strings.SplitAfter(string(ch.Data), "\n")), tg.String())
			srcs = append(srcs, string(ch.Data))
			names = append(names, tg.String())
			n++
		}
	}
	require.Greater(t, n, 100)
	for i, msg := range compileAll(t, srcs) {
		require.Empty(t, msg, "masking %s", names[i])
	}
}

// goDiffRoot copies github.com/sergi/go-diff from the module cache (not written here) with
// a go.mod that requires the testify version this module already has, so it builds offline.
// The copy says go 1.17 (go-diff says 1.13): a pruned module graph does not need testify's
// own requirements in the cache, and 1.17 still predates the min builtin.
func goDiffRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("mask: the go command is not available")
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "github.com", "sergi", "go-diff@v1.4.0")
	if _, err := os.Stat(filepath.Join(src, "diffmatchpatch")); err != nil {
		t.Skip("mask: github.com/sergi/go-diff@v1.4.0 is not in the module cache")
	}
	root := copyTree(t, src)
	gomod := "module github.com/sergi/go-diff\n\nrequire github.com/stretchr/testify v1.12.1\n\ngo 1.17\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte(gomod), 0o644))
	_ = os.Remove(filepath.Join(root, "go.sum"))
	return root
}

// A go-diff feature whose F2P test file is diff_test.go (removed from the tree, as an
// instance's starting tree lacks it): the pretty printers and delta codec go; DiffLevenshtein
// stays because patch.go calls it and min because go.mod says go 1.17 (a Go 1.21 builtin
// would otherwise silently replace it), both found by the type check; PatchToText stays
// because patch_test.go calls it, found by the collection loop. The result builds with the
// remaining tests.
func TestMaskUntilCollectsGoDiff(t *testing.T) {
	root := goDiffRoot(t)
	env := []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOSUMDB=off"}
	run := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), NoIsolation: true, Env: env})
	defer run.Close()
	var targets []Target
	for _, n := range []string{"DiffPrettyHtml", "DiffPrettyText", "DiffToDelta", "DiffFromDelta", "DiffLevenshtein"} {
		targets = append(targets, Target{File: "diffmatchpatch/diff.go", Name: "DiffMatchPatch." + n})
	}
	targets = append(targets,
		Target{File: "diffmatchpatch/patch.go", Name: "DiffMatchPatch.PatchToText"},
		Target{File: "diffmatchpatch/mathutil.go", Name: "min"},
	)
	base := task.Overlay{}
	base.Remove("diffmatchpatch/diff_test.go")
	res, err := MaskUntilCollects(context.Background(), run, CollectRequest{Root: root, Targets: targets, Kind: task.GoTest, Overlay: base}, LoopOptions{})
	require.NoError(t, err)
	why := map[string]string{}
	for _, p := range res.Protected {
		why[p.Target.Name] = p.Reason
	}
	require.Len(t, why, 3, "%v", res.Protected)
	require.True(t, strings.HasPrefix(why["min"], ReasonUsed), why["min"])
	require.True(t, strings.HasPrefix(why["DiffMatchPatch.DiffLevenshtein"], ReasonUsed), why["DiffMatchPatch.DiffLevenshtein"])
	require.Equal(t, ReasonCollect+": PatchToText", why["DiffMatchPatch.PatchToText"])
	var removed []string
	for _, r := range res.Removed {
		removed = append(removed, r.Target.Name)
	}
	require.ElementsMatch(t, []string{"DiffMatchPatch.DiffPrettyHtml", "DiffMatchPatch.DiffPrettyText", "DiffMatchPatch.DiffToDelta", "DiffMatchPatch.DiffFromDelta"}, removed)
	require.Equal(t, 2, res.Runs)
	goBuilds(t, root, base.Merge(res.Overlay))
}
