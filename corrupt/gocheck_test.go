package corrupt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goDiffDir returns github.com/sergi/go-diff@v1.4.0 in the module cache (read in place: the
// checker never writes), or skips.
func goDiffDir(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip("corrupt: the go command is not on PATH")
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		tb.Skipf("corrupt: go env GOMODCACHE: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github.com", "sergi", "go-diff@v1.4.0")
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("corrupt: github.com/sergi/go-diff@v1.4.0 is not in the module cache: %v", err)
	}
	return dir
}

// ruleMutants returns up to limit mutants of every Go rule on the functions of root/file, in
// rule order.
func ruleMutants(tb testing.TB, root, file string, limit int) ([]Mutant, []byte) {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		tb.Fatal(err)
	}
	var out []Mutant
	for _, fn := range goFuncs(tb, file, src) {
		tg := mustTarget(tb, file, src, fn)
		for _, r := range GoRules() {
			out = append(out, r.Mutants(tg)...)
		}
	}
	if len(out) > limit {
		// Spread the choice over the file rather than taking its first function only.
		step := float64(len(out)) / float64(limit)
		picked := make([]Mutant, limit)
		for i := range picked {
			picked[i] = out[int(float64(i)*step)]
		}
		out = picked
	}
	if len(out) == 0 {
		tb.Fatalf("no mutants of %s", file)
	}
	return out, src
}

// BenchmarkGoChecker type-checks 40 rule mutants of one file per op, on the sample module
// and on go-diff: "cold" builds a new checker each op (baseline and imports included),
// "warm" reuses one whose imports are loaded.
//
//	go test ./corrupt -run '^$' -bench GoChecker -benchtime 5x
func BenchmarkGoChecker(b *testing.B) {
	sample, err := filepath.Abs("../examples/sample")
	if err != nil {
		b.Fatal(err)
	}
	subjects := []struct{ name, root, file string }{
		{"sample", sample, "ledger/balance.go"},
		{"go-diff", goDiffDir(b), "diffmatchpatch/diff.go"},
	}
	for _, s := range subjects {
		muts, src := ruleMutants(b, s.root, s.file, 40)
		run := func(b *testing.B, c *GoChecker) {
			accepted := 0
			for _, m := range muts {
				m := m
				m.Edits = append([]Edit(nil), m.Edits...)
				ok, err := c.Accept(&m, src)
				if err != nil {
					b.Fatal(err)
				}
				if ok {
					accepted++
				}
			}
			if accepted == 0 || accepted == len(muts) {
				b.Fatalf("%d of %d mutants accepted: the checker does not discriminate", accepted, len(muts))
			}
		}
		b.Run(s.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				c, err := NewGoChecker(s.root)
				if err != nil {
					b.Fatal(err)
				}
				run(b, c)
			}
		})
		b.Run(s.name+"/warm", func(b *testing.B) {
			c, err := NewGoChecker(s.root)
			if err != nil {
				b.Fatal(err)
			}
			run(b, c)
			for b.Loop() {
				run(b, c)
			}
		})
	}
}

// TestGoCheckerNotBuiltHere: a mutant of a file this platform's build leaves out (a
// //go:build ignore program, alone in its directory, as xxhash's dynamic/plugin.go is) is
// rejected with the reason, not a failure of the whole run; a file that is built is
// checked.
func TestGoCheckerNotBuiltHere(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("m.go", "package m\n\nfunc F() int { return 1 }\n")
	write("plugin/plugin.go", "//go:build ignore\n\npackage main\n\nfunc G() int { return 2 }\n")
	c, err := NewGoChecker(root)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := c.NewErrors("plugin/plugin.go", []byte("//go:build ignore\n\npackage main\n\nfunc G() int { }\n"))
	if err != nil || len(errs) != 1 || !strings.Contains(errs[0], "not built on this platform") {
		t.Fatalf("errs %q, err %v: want the file named as not built", errs, err)
	}
	errs, err = c.NewErrors("m.go", []byte("package m\n\nfunc F() int { }\n"))
	if err != nil || len(errs) == 0 || !strings.Contains(strings.Join(errs, "; "), "missing return") {
		t.Fatalf("errs %q, err %v: want a missing return", errs, err)
	}
	errs, err = c.NewErrors("m.go", []byte("package m\n\nfunc F() int { return 2 }\n"))
	if err != nil || len(errs) != 0 {
		t.Fatalf("errs %q, err %v: want none", errs, err)
	}
}
