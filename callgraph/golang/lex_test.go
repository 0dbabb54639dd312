package golang

import (
	"bytes"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// scannerTokens lists the tokens of src as astBuilder.scan did with go/scanner, the
// reference lexTokens must match.
func scannerTokens(src []byte) ([]stok, bool) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	tf := fset.AddFile("", -1, len(src))
	bad := false
	s.Init(tf, src, func(token.Position, string) { bad = true }, scanner.ScanComments)
	var toks []stok
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		st := tf.Offset(pos)
		t := stok{start: st}
		switch tok {
		case token.COMMENT:
			t.typ = "comment"
			if src[st+1] == '/' {
				e := bytes.IndexByte(src[st:], '\n')
				if e < 0 {
					e = len(src) - st
				}
				t.end = st + e
			} else {
				t.end = st + 2 + bytes.Index(src[st+2:], []byte("*/")) + 2
			}
		case token.STRING:
			if src[st] == '`' {
				t.end = st + 1 + bytes.IndexByte(src[st+1:], '`') + 1
				t.typ = "raw_string_literal"
			} else {
				t.end = st + len(lit)
				t.typ = "interpreted_string_literal"
			}
		case token.IDENT, token.INT, token.FLOAT, token.IMAG, token.CHAR:
			t.end = st + len(lit)
		default:
			t.typ = tok.String()
			t.end = st + len(t.typ)
		}
		toks = append(toks, t)
	}
	return toks, !bad
}

// TestLexTokensMatchScanner checks lexTokens against go/scanner on every file go/parser
// accepts among this package's sources, the module-cache modules of
// TestASTTreesMatchTreeSitter that are present and all of $(go env GOROOT)/src, and on
// hand-made snippets of every number, string and operator form.
func TestLexTokensMatchScanner(t *testing.T) {
	snippets := []string{
		"package p\nvar x = 0x1p-2 + 0X_1F + 0b1_0 + 0o17 + 017 + 1_000.5e+3i + .5 + 1. + 1e9 + 0xep1 + 0xe+1 + 3i + 0.i\n",
		"package p\nvar s = \"a\\\"b\\\\\" + `raw\n\\` + 'x' + '\\'' + '\\u00e9' + \"é\"\n",
		"\uFEFFpackage p\n// c\n/* d\n */ func f(a ...int) { a[1:2:3] <- x; x &^= y; y <<= 2; z >>= 1; p &&= q || r; x != y; i++; j--; ~k; a := b; c: goto c }\n",
		"package p\nvar ünïcode, x٣ = 1, 2 // trailing",
		"package p\nfunc f() { if x >= 1 && y <= 2 { x %= 3; x ^= 4; x |= 5; x &= 6; x /= 7; x *= 8; x -= 9; x += 10 } }\n",
	}
	check := func(name string, src []byte, mustScan bool) {
		want, ok := scannerTokens(src)
		if !ok {
			if mustScan {
				t.Errorf("%s: go/scanner reports an error", name)
			}
			return
		}
		got, gotOK := lexTokens(src, nil)
		if !gotOK {
			t.Errorf("%s: lexTokens failed where go/scanner did not", name)
			return
		}
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || got[i] != want[i] {
				var g, w stok
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				t.Errorf("%s: token %d: got %+v, go/scanner %+v", name, i, g, w)
				return
			}
		}
	}
	for i, s := range snippets {
		check("snippet "+string(rune('0'+i)), []byte(s), true)
	}
	paths := goFiles(t, ".")
	if modCache, err := goEnv("GOMODCACHE"); err == nil {
		for _, m := range []string{"gonum.org/v1/gonum@v0.17.0", "github.com/klauspost/compress@v1.18.7", "github.com/sergi/go-diff@v1.4.0"} {
			if _, err := os.Stat(filepath.Join(modCache, m)); err == nil {
				paths = append(paths, goFiles(t, filepath.Join(modCache, m))...)
			}
		}
	}
	if root, err := goEnv("GOROOT"); err == nil && root != "" && !testing.Short() {
		paths = append(paths, goFiles(t, filepath.Join(root, "src"))...)
	}
	checked := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution); err != nil {
			continue // such files go to tree-sitter
		}
		check(p, src, false)
		checked++
	}
	t.Logf("%d files", checked)
}
