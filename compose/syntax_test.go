package compose

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/linemut"
	"github.com/faultline-dev/faultline/task"
)

// Every rule-based mutant of every editable line of real modules keeps the program
// syntactically valid Python (checked with /usr/bin/python3's ast.parse in one batch).
// The modules come from Debian's python3-simplejson, python3-pyflakes and python3-bs4
// (pyflakes/checker.py, 2,000 lines, is left out to keep the test fast; its failures
// while this was written are pinned as linemut table tests).
func TestMutantsParse(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := exec.LookPath(py); err != nil {
		t.Skip("compose: /usr/bin/python3 not available")
	}
	var progs []string
	var names []string
	for _, path := range []string{
		"/usr/lib/python3/dist-packages/simplejson/encoder.py",
		"/usr/lib/python3/dist-packages/simplejson/decoder.py",
		"/usr/lib/python3/dist-packages/pyflakes/api.py",
		"/usr/lib/python3/dist-packages/bs4/formatter.py",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Logf("skipping %s: %v", path, err)
			continue
		}
		prog := task.Normalize(string(data))
		lines := task.Lines(prog)
		marks := MarkPython(prog, 0)
		for i, l := range lines {
			if !marks[i].Editable {
				continue
			}
			for _, m := range linemut.All(l, linemut.Context{Deletable: marks[i].Deletable}, linemut.Default()) {
				e := mutEdit(i+1, l, m)
				progs = append(progs, task.Apply(prog, task.Edits{e}))
				names = append(names, path+":"+m.Rule+": "+strings.TrimSpace(l)+" → "+strings.TrimSpace(m.Line))
			}
		}
	}
	if len(progs) == 0 {
		t.Skip("compose: no real modules installed (python3-simplejson, python3-pyflakes)")
	}
	in, _ := json.Marshal(progs)
	cmd := exec.Command(py, "-c", `
import ast, json, sys
bad = []
for i, p in enumerate(json.load(sys.stdin)):
    try:
        ast.parse(p)
    except SyntaxError:
        bad.append(i)
json.dump(bad, sys.stdout)
`)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var bad []int
	if err := json.Unmarshal(out, &bad); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d mutants, %d do not parse", len(progs), len(bad))
	for _, i := range bad {
		t.Errorf("does not parse: %s", names[i])
	}
}
