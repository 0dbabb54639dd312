package golang

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// FuzzAnalyze checks that arbitrary bytes never panic the front end, that every span is
// inside the file, and that a file with errors reports a *SyntaxError with its position.
//
// Under go test -fuzz almost every mutation reaches new parser paths and is minimized for
// up to -fuzzminimizetime (60s by default), so progress looks stalled; run it as
//
//	go test -run XXX -fuzz FuzzAnalyze -fuzzminimizetime 1s ./callgraph/golang
func FuzzAnalyze(f *testing.F) {
	for _, p := range []string{"store/store.go", "store/helpers.go", "cmd/shop/main.go"} {
		src, err := os.ReadFile(filepath.Join("testdata", "shop", filepath.FromSlash(p)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
		f.Add(src[:len(src)/2])
	}
	f.Add([]byte("package p\nfunc (\n"))
	f.Add([]byte("package p\nfunc f[T any](x T) { f[int](1); var y = func() { f(x) }; y() }\n"))
	f.Add([]byte("package p\ntype A struct{ A }\nfunc (a A) M() { a.M(); a.A.M() }\ntype B = B\nvar x = x.y()\n"))
	f.Add([]byte{0xff, 0xfe, 0})
	f.Add([]byte("package p\ntype I interface{ M() I }\ntype T struct{ i I; s []I }\nfunc (t *T) M() I { t.s = append(t.s, t.i, t); for _, x := range t.s { x.M().M() }; return t.s[0] }\nvar g I = &T{i: &T{}}\n"))
	cha := New(Options{Interfaces: InterfacesCHA})
	flow := New(Options{})
	f.Fuzz(func(t *testing.T, src []byte) {
		fe := cha
		if len(src)%2 == 1 {
			fe = flow
		}
		a, err := fe.Analyze(context.Background(), []callgraph.SourceFile{
			{Path: "x/a.go", Src: src},
			{Path: "x/b_test.go", Src: []byte("package x\nfunc TestB() { f() }\n")},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Definitions {
			n := len(src)
			if d.File != "x/a.go" {
				continue
			}
			if err := d.Validate(n); err != nil {
				t.Fatal(err)
			}
			if d.Doc.Start < 0 || d.Doc.End > n || d.Doc.End < d.Doc.Start {
				t.Fatalf("%s: doc span %v outside file", d.ID, d.Doc)
			}
		}
		if a.CallSites != a.Resolved+a.Unresolved || a.Unresolved < 0 {
			t.Fatalf("counts: %d sites, %d resolved, %d unresolved", a.CallSites, a.Resolved, a.Unresolved)
		}
		for _, e := range a.Errors {
			var se *callgraph.SyntaxError
			if !errors.As(e, &se) || se.Path != "x/a.go" || se.Line < 1 || se.Column < 1 {
				t.Fatalf("bad error %v", e)
			}
		}
	})
}
