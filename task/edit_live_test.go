package task_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// TestDiffLinesAgainstPythonLive compares DiffLines with the Python restatement in
// testdata/edits/gen.py (CPython's difflib.ndiff), run live, on pairs of neighbouring
// modules of the Debian packages installed on the machine — inputs beyond the stored golden
// vectors. It skips when /usr/bin/python3 or the packages are absent.
func TestDiffLinesAgainstPythonLive(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3 (the reference difflib)")
	}
	var files []string
	for _, pkg := range []string{"simplejson", "pyflakes", "bs4", "bs4/builder", "networkx/algorithms/centrality"} {
		m, _ := filepath.Glob(filepath.Join("/usr/lib/python3/dist-packages", pkg, "*.py"))
		slices.Sort(m)
		var kept []string
		for _, f := range m {
			data, err := os.ReadFile(f)
			if err == nil && len(data) < 40_000 {
				kept = append(kept, f)
			}
		}
		for i := 0; i+1 < len(kept); i += 2 {
			files = append(files, kept[i], kept[i+1])
		}
	}
	if len(files) < 10 {
		t.Skip("python3-simplejson, -pyflakes, -bs4 or -networkx not installed")
	}
	type pair struct{ Old, New string }
	var pairs []pair
	for i := 0; i+1 < len(files); i += 2 {
		o, _ := os.ReadFile(files[i])
		n, _ := os.ReadFile(files[i+1])
		pairs = append(pairs, pair{string(o), string(n)})
	}
	in, _ := json.Marshal(pairs)
	script := `
import json, sys
sys.path.insert(0, "testdata/edits")
import gen
out = []
for p in json.load(sys.stdin):
    d, _ = gen.get_diff(p["Old"], p["New"])
    out.append([[k, v["type"], v["original"], v["modified"]] for k, v in d.items()])
json.dump(out, sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var want [][][4]string
	if err := json.Unmarshal(outb, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(pairs) {
		t.Fatalf("python returned %d results for %d pairs", len(want), len(pairs))
	}
	for i, p := range pairs {
		got := task.DiffLines(p.Old, p.New)
		name := filepath.Base(files[2*i]) + " → " + filepath.Base(files[2*i+1])
		if len(got) != len(want[i]) {
			t.Errorf("%s: %d edits, Python %d", name, len(got), len(want[i]))
			continue
		}
		for k, x := range got {
			w := want[i][k]
			if x.Key() != w[0] || x.Type.String() != w[1] || x.Original != w[2] || x.Modified != w[3] {
				t.Errorf("%s: edit %d = %q %s, Python %q %s", name, k, x.Key(), x.Type, w[0], w[1])
				break
			}
		}
	}
	t.Logf("%d module pairs agree with CPython %s", len(pairs), strings.TrimSpace(pyVersion(py)))
}

func pyVersion(py string) string {
	out, _ := exec.Command(py, "-c", "import sys; print(sys.version.split()[0])").Output()
	return string(out)
}
