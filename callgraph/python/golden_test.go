package python

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// goldenDef is one definition as Python's ast and tokenize see it (testdata/gen_golden.py).
type goldenDef struct {
	Qualname        string `json:"qualname"`
	Kind            string `json:"kind"`
	Line            int    `json:"line"`
	EndLine         int    `json:"end_line"`
	DecoratorLine   int    `json:"decorator_line"`
	DefEnd          int    `json:"def_end"`
	SigStart        int    `json:"sig_start"`
	BodyStart       int    `json:"body_start"`
	BodyEnd         int    `json:"body_end"`
	CodeLines       int    `json:"code_lines"`
	CompatCodeLines *int   `json:"compat_code_lines"`
	DocStart        *int   `json:"doc_start"`
	DocEnd          *int   `json:"doc_end"`
}

type goldenFile struct {
	Path   string      `json:"path"`
	SHA256 string      `json:"sha256"`
	Defs   []goldenDef `json:"defs"`
}

const distPackages = "/usr/lib/python3/dist-packages"

// TestGoldenSpansAndCodeLines checks every function and class of the installed simplejson
// pyflakes and bs4 packages against vectors computed with Python's ast and tokenize: lines,
// decorator lines, byte spans of the definition, signature start, body and docstring, and
// the code-line count (plain and Breakpoint-compatible).
func TestGoldenSpansAndCodeLines(t *testing.T) {
	for _, pkg := range []string{"simplejson", "pyflakes", "bs4", "tokens"} {
		t.Run(pkg, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "golden", pkg+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var g struct {
				Files []goldenFile `json:"files"`
			}
			if err := json.Unmarshal(data, &g); err != nil {
				t.Fatal(err)
			}
			var files []callgraph.SourceFile
			want := map[string]map[string]goldenDef{}
			for _, gf := range g.Files {
				root := distPackages
				if pkg == "tokens" {
					root = "testdata" // our own corner cases
				}
				src, err := os.ReadFile(filepath.Join(root, gf.Path))
				if err != nil {
					t.Skipf("%s not installed (apt-get install python3-%s): %v", pkg, pkg, err)
				}
				sum := sha256.Sum256(src)
				if hex.EncodeToString(sum[:]) != gf.SHA256 {
					t.Logf("skipping %s: differs from the file the vectors were computed on", gf.Path)
					continue
				}
				files = append(files, callgraph.SourceFile{Path: gf.Path, Src: src})
				m := map[string]goldenDef{}
				for _, d := range gf.Defs {
					m[fmt.Sprintf("%s:%d", d.Qualname, d.Line)] = d
				}
				want[gf.Path] = m
			}
			if len(files) == 0 {
				t.Skip("no file matches the golden vectors")
			}
			a, err := New(Options{}).Analyze(context.Background(), files)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Errors) > 0 {
				t.Errorf("unexpected syntax errors: %v", a.Errors)
			}
			srcOf := map[string][]byte{}
			for _, f := range files {
				srcOf[f.Path] = f.Src
			}
			checkAnalysis(t, a, srcOf)
			if pkg != "tokens" && (len(a.Calls) == 0 || a.Resolved == 0) {
				t.Errorf("no call resolved in %s", pkg)
			}
			checked := 0
			seen := map[string]bool{}
			for _, d := range a.Definitions {
				if d.Kind == "module" {
					continue
				}
				key := fmt.Sprintf("%s:%d", d.Name, d.Line)
				w, ok := want[d.File][key]
				if !ok {
					t.Errorf("%s: %s not found by ast", d.File, key)
					continue
				}
				seen[d.File+"|"+key] = true
				checked++
				src := srcOf[d.File]
				if err := d.Validate(len(src)); err != nil {
					t.Error(err)
				}
				if d.EndLine != w.EndLine || d.DecoratorLine != w.DecoratorLine {
					t.Errorf("%s: lines %d-%d (decorators from %d), ast %d-%d (%d)", d.ID, d.Line, d.EndLine, d.DecoratorLine, w.Line, w.EndLine, w.DecoratorLine)
				}
				if d.Def.End != w.DefEnd || d.Signature.Start != w.SigStart || d.Body.Start != w.BodyStart || d.Body.End != w.BodyEnd {
					t.Errorf("%s: def end %d sig start %d body [%d,%d); ast %d %d [%d,%d)", d.ID, d.Def.End, d.Signature.Start, d.Body.Start, d.Body.End, w.DefEnd, w.SigStart, w.BodyStart, w.BodyEnd)
				}
				if w.Kind == "class" && d.Kind != "class" || w.Kind == "function" && d.Kind == "class" {
					t.Errorf("%s: kind %s, ast %s", d.ID, d.Kind, w.Kind)
				}
				if d.DecoratorLine == d.Line && d.Def.Start != d.Signature.Start {
					t.Errorf("%s: undecorated definition starts at %d, signature at %d", d.ID, d.Def.Start, d.Signature.Start)
				}
				if d.DecoratorLine < d.Line && src[d.Def.Start] != '@' {
					t.Errorf("%s: decorated definition does not start with @", d.ID)
				}
				sig := d.Signature.Text(src)
				if !bytes.HasSuffix(sig, []byte(":")) || d.Signature.End > d.Body.Start {
					t.Errorf("%s: signature %q does not end at the header's colon before the body", d.ID, sig)
				}
				switch {
				case w.DocStart == nil && !d.Doc.Empty():
					t.Errorf("%s: docstring %q that ast does not see", d.ID, d.Doc.Text(src))
				case w.DocStart != nil && (d.Doc.Start != *w.DocStart || d.Doc.End != *w.DocEnd):
					t.Errorf("%s: doc [%d,%d), ast [%d,%d)", d.ID, d.Doc.Start, d.Doc.End, *w.DocStart, *w.DocEnd)
				}
				if d.Metrics.CodeLines != w.CodeLines {
					t.Errorf("%s: code lines %d, tokenize %d", d.ID, d.Metrics.CodeLines, w.CodeLines)
				}
				if w.CompatCodeLines != nil && d.Metrics.CompatCodeLines() != *w.CompatCodeLines {
					t.Errorf("%s: compat code lines %d, reference %d", d.ID, d.Metrics.CompatCodeLines(), *w.CompatCodeLines)
				}
				if d.Metrics.Lines != w.EndLine-w.DecoratorLine+1 {
					t.Errorf("%s: lines %d, want %d", d.ID, d.Metrics.Lines, w.EndLine-w.DecoratorLine+1)
				}
			}
			for path, m := range want {
				for key := range m {
					if !seen[path+"|"+key] {
						t.Errorf("%s: ast definition %s not found", path, key)
					}
				}
			}
			if checked == 0 {
				t.Fatal("no definition checked")
			}
			t.Logf("%d definitions checked", checked)
		})
	}
}
