package compose

import (
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// FuzzMarkPython: one mark per line, deletable implies editable, the frozen prefix is
// never editable, and no panic on arbitrary text (unbalanced brackets and quotes).
func FuzzMarkPython(f *testing.F) {
	f.Add("def f(x):\n    return x\n", 0)
	f.Add("x = (1,\n     2)\ny = '''a\nb'''\nif x:\n    pass\n", 1)
	f.Add("\"\"\"\n\"\"\"\n)\n]\n\\\n", 0)
	f.Add("class C:\n    @d\n    def m(self): ...\n\tz = 1 # c\n", 2)
	f.Fuzz(func(t *testing.T, prog string, frozen int) {
		if frozen < 0 || frozen > 1000 || len(prog) > 5000 {
			return
		}
		marks := MarkPython(prog, frozen)
		lines := task.Lines(prog)
		if len(marks) != len(lines) {
			t.Fatalf("%d marks for %d lines", len(marks), len(lines))
		}
		for i, m := range marks {
			if m.Deletable && !m.Editable {
				t.Fatalf("line %d deletable but not editable", i+1)
			}
			if m.Editable && (i < frozen || lines[i] == "") {
				t.Fatalf("line %d %q editable (frozen %d)", i+1, lines[i], frozen)
			}
		}
	})
}
