package mask

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/task"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// render writes a result in a readable golden form: the report as JSON, then every
// overlay file as a `-- path --` section.
func render(t *testing.T, res *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	rep := struct {
		Removed   []Removal    `json:"removed"`
		Protected []Protection `json:"protected"`
		Imports   []ImportEdit `json:"imports"`
	}{res.Removed, res.Protected, res.Imports}
	j, err := json.MarshalIndent(rep, "", "  ")
	require.NoError(t, err)
	b.Write(j)
	b.WriteString("\n")
	for _, p := range res.Overlay.Paths() {
		b.WriteString("-- " + p + " --\n")
		b.Write(res.Overlay[p].Data)
	}
	return b.Bytes()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, got, 0o644))
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run with -update to create the golden file")
	require.Equal(t, string(want), string(got))
}

// pythonCompiles compiles every Python file of the overlay with CPython.
func pythonCompiles(t *testing.T, o task.Overlay) {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("mask: /usr/bin/python3 is not installed; cannot compile the masked files")
	}
	for _, p := range o.Paths() {
		if !strings.HasSuffix(p, ".py") {
			continue
		}
		cmd := exec.Command(py, "-c", "import sys; compile(sys.stdin.read(), sys.argv[1], 'exec')", p)
		cmd.Stdin = bytes.NewReader(o[p].Data)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s does not compile:\n%s\n%s", p, out, o[p].Data)
	}
}

func mustTargets(t *testing.T, ids ...string) []Target {
	t.Helper()
	var out []Target
	for _, id := range ids {
		tg, err := ParseTarget(id)
		require.NoError(t, err)
		out = append(out, tg)
	}
	return out
}

func TestMaskPythonGolden(t *testing.T) {
	root := filepath.Join("testdata", "pyrepo")
	cases := []struct {
		name    string
		targets []string
		keep    []string
	}{
		{"decorators", []string{"pkg/core.py::helper"}, nil},
		{"all", []string{"pkg/core.py::public_fn", "pkg/util.py::fmt_a"}, nil},
		{"emptied_class", []string{"pkg/core.py::Empty.only"}, nil},
		{"if_blocks", []string{"pkg/core.py::cond", "pkg/core.py::risky"}, nil},
		{"one_of_two", []string{"pkg/core.py::cond::41"}, nil},
		{"nested", []string{"pkg/core.py::Engine.run.inner", "pkg/core.py::outer.nested", "pkg/core.py::Engine.speed"}, nil},
		{"nested_in_removed", []string{"pkg/core.py::outer", "pkg/core.py::outer.nested"}, nil},
		{"multiline_import", []string{"pkg/util.py::fmt_a", "pkg/util.py::fmt_b"}, nil},
		{"drop_import", []string{"pkg/util.py::fmt_a", "pkg/util.py::fmt_b", "pkg/util.py::fmt_c"}, nil},
		{"reexport_all", []string{"pkg/core.py::Engine"}, nil},
		{"keep_and_missing", []string{"pkg/core.py::helper", "pkg/core.py::nope", "pkg/util.py::fmt_c", "README.md::x"}, []string{"pkg/util.py::fmt_c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Mask(context.Background(), root, mustTargets(t, c.targets...), Options{Keep: mustTargets(t, c.keep...)})
			require.NoError(t, err)
			require.NoError(t, res.Overlay.Validate())
			pythonCompiles(t, res.Overlay)
			golden(t, "py_"+c.name+".txt", render(t, res))
			// Same inputs, same bytes.
			again, err := Mask(context.Background(), root, mustTargets(t, c.targets...), Options{Keep: mustTargets(t, c.keep...)})
			require.NoError(t, err)
			require.Equal(t, render(t, res), render(t, again))
		})
	}
}

func TestParseTarget(t *testing.T) {
	cases := map[string]Target{
		"a/b.py::f":                       {File: "a/b.py", Name: "f"},
		"a/b.py::C.m::12":                 {File: "a/b.py", Name: "C.m", Line: 12},
		"a/b.py::outer.<locals>.inner::3": {File: "a/b.py", Name: "outer.inner", Line: 3},
		"x.go::T.M@7":                     {File: "x.go", Name: "T.M", Line: 7},
		"./a.py::f":                       {File: "./a.py", Name: "f"},
	}
	for id, want := range cases {
		got, err := ParseTarget(id)
		require.NoError(t, err, id)
		require.Equal(t, want, got, id)
	}
	for _, bad := range []string{"", "a.py", "a.py::", "::f", "a.py::f::x", "a.py::f::0", "../a.py::f", "/a.py::f", "a.py::a b"} {
		_, err := ParseTarget(bad)
		require.Error(t, err, bad)
	}
}

func TestResultJSON(t *testing.T) {
	res, err := Mask(context.Background(), filepath.Join("testdata", "pyrepo"), mustTargets(t, "pkg/core.py::helper", "pkg/core.py::public_fn"), Options{})
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	require.NotContains(t, string(b), "Overlay")
	var back Result
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, res.Removed[0].Target, back.Removed[0].Target)
	require.Equal(t, res.Protected, back.Protected)
	require.Equal(t, res.Imports, back.Imports)
	require.Equal(t, 5, res.RemovedLines())
	require.Equal(t, []string{"pkg/core.py"}, res.Files())
}
