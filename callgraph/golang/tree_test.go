package golang

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// samePruned reports the first difference between a whole parse tree and its encoded and
// decoded copy, which must equal it less the pruned nodes: "" when there is none.
func samePruned(t *testing.T, full *tsNode, kept *node, src []byte) string {
	t.Helper()
	if full.Type != kept.Type || full.Field != kept.Field || uint32(full.Start) != kept.Start || uint32(full.End) != kept.End ||
		uint32(full.Row) != kept.Row || uint32(full.Col) != kept.Col || full.Named != kept.Named || full.Bad != kept.Bad {
		return full.Type + " at " + string(src[full.Start:min(full.End, full.Start+20)])
	}
	var kids []*tsNode
	if !stringTypes[full.Type] {
		for _, k := range full.Kids {
			if !pruned(k) {
				kids = append(kids, k)
			}
		}
	}
	if len(kids) != len(kept.Kids) {
		return full.Type + ": children differ"
	}
	for i := range kids {
		if d := samePruned(t, kids[i], kept.Kids[i], src); d != "" {
			return d
		}
	}
	return ""
}

// TestEncodeDecodeKeepsTree encodes and decodes the trees of real files (this package's
// own sources and the shop fixture) and checks node for node that only the pruned nodes
// are gone; and that extract's outline and encoded bodies together hold every function
// body and package-level spec of the file.
func TestEncodeDecodeKeepsTree(t *testing.T) {
	paths, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("testdata/shop/*/*.go")
	paths = append(paths, more...)
	if len(paths) < 10 {
		t.Fatalf("only %d files found", len(paths))
	}
	fe := New(Options{})
	g := fe.grammar
	totalBodies := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		root, _, _, _, err := fe.parsers.Parse(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		kept := g.decode(g.encode(root, nil, nil), lineStarts(src))
		if len(kept) != 1 {
			t.Fatalf("%s: %d roots", p, len(kept))
		}
		if d := samePruned(t, root, kept[0], src); d != "" {
			t.Errorf("%s: %s", p, d)
		}

		pf := &parsedFile{}
		fe.extract(pf, p, src, root)
		f := &file{src: src, parsed: pf}
		bodies := f.bodies(g)
		ns := 0
		ord := -1
		for _, d := range root.Kids {
			switch d.Type {
			case "function_declaration", "method_declaration":
				ord++
				if b := d.Child("body"); b != nil {
					totalBodies++
					if bodies[ord] == nil || bodies[ord].Start != uint32(b.Start) || bodies[ord].End != uint32(b.End) {
						t.Errorf("%s: body of declaration %d not kept", p, ord)
					}
				}
			case "var_declaration", "const_declaration":
				ns++
			}
		}
		stubs := 0
		for _, d := range f.parsed.outline.Kids {
			if isValueDecl(d.Type) {
				stubs++
				specs, _ := f.valueSpecs(g, d)
				if len(specs) == 0 || len(d.Kids) != 0 {
					t.Errorf("%s: declaration at %d: %d specs, %d children in the outline", p, d.Start, len(specs), len(d.Kids))
				}
				for _, s := range specs {
					if s.Type != "var_spec" && s.Type != "const_spec" {
						t.Errorf("%s: spec of type %s", p, s.Type)
					}
				}
			}
			if d.Child("body") != nil {
				t.Errorf("%s: %s keeps its body in the outline", p, d.Type)
			}
		}
		if stubs != ns {
			t.Errorf("%s: %d value declarations in the outline, %d in the file", p, stubs, ns)
		}
	}
	if totalBodies < 100 {
		t.Errorf("only %d function bodies checked", totalBodies)
	}
}
