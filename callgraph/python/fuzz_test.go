package python

import (
	"context"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// FuzzAnalyze feeds arbitrary bytes as a Python file next to a fixed module it may import;
// the front end must not panic and its output must satisfy the analysis invariants.
func FuzzAnalyze(f *testing.F) {
	for _, fx := range []string{
		"def f():\n    g()\n",
		"class A(B):\n    def __init__(self):\n        super().__init__()\n",
		"@d\n@e(1)\nasync def f(*a, b=1, **k) -> int:\n    '''doc'''\n    return [x for x in a if x]\n",
		"from . import *\nfrom ..x import y as z\nimport a.b as c\nz(); c.d()\n",
		"x = f'{a!r:>{w}}' \\\n  'b'\nmatch x:\n    case [1, *r] if r: pass\n",
		"def f(:\n  pass\n",
		"\xff\xfe\x00\x00",
		"lambda: (yield)",
		"class C:\n    x = lambda self: self.x()\n    def m(self): self.x = self.m; self.x()\n",
	} {
		f.Add([]byte(fx))
	}
	lib := []byte("def helper():\n    pass\n\nclass Base:\n    def __init__(self):\n        pass\n")
	f.Fuzz(func(t *testing.T, src []byte) {
		files := []callgraph.SourceFile{{Path: "lib.py", Src: lib}, {Path: "pkg/__init__.py", Src: src}, {Path: "pkg/m.py", Src: src}}
		a, err := New(Options{UniqueNameFallback: true}).Analyze(context.Background(), files)
		if err != nil {
			t.Fatal(err)
		}
		checkAnalysis(t, a, map[string][]byte{"lib.py": lib, "pkg/__init__.py": src, "pkg/m.py": src})
	})
}
