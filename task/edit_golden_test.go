package task_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/difflib"
	"github.com/faultline-dev/faultline/task"
)

// testdata/edits/golden.json and pairs/ are produced by testdata/edits/gen.py with CPython's
// difflib (see that script for how to regenerate them).
type goldenPair struct {
	Name         string      `json:"name"`
	Ndiff        string      `json:"ndiff"`
	OpCodes      [][]any     `json:"opcodes"`
	Edits        [][4]string `json:"edits"`
	Reordered    bool        `json:"reordered_by_sort"`
	CleanKeys    []string    `json:"clean_keys"`
	Blocks       [][]any     `json:"blocks"`
	Strides      [][2]*int   `json:"strides"`
	ReverseKeys  []string    `json:"reverse_keys"`
	ApplyClean   string      `json:"apply_clean"`
	ApplyAlt     string      `json:"apply_alternate_blocks"`
	ApplyShifted string      `json:"apply_shifted"`
	Verify       [][5]any    `json:"verify"`
	old, new     string
}

func loadPairs(t testing.TB) []goldenPair {
	t.Helper()
	data, err := os.ReadFile("testdata/edits/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Pairs []goldenPair `json:"pairs"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Pairs) < 20 {
		t.Fatalf("only %d golden pairs", len(g.Pairs))
	}
	for i := range g.Pairs {
		p := &g.Pairs[i]
		p.old = readPair(t, p.Name+".old")
		p.new = readPair(t, p.Name+".new")
	}
	return g.Pairs
}

func readPair(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/edits/pairs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func keys(e task.Edits) []string {
	out := make([]string, len(e))
	for i, x := range e {
		out[i] = x.Key()
	}
	return out
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestGoldenDiffLines(t *testing.T) {
	pairs := loadPairs(t)
	var syncedPairs, tiePairs, bigPairs int
	for _, p := range pairs {
		t.Run(p.Name, func(t *testing.T) {
			a, b := task.Lines(p.old), task.Lines(p.new)
			if len(a) >= 200 || len(b) >= 200 {
				bigPairs++
			}

			// The alignment itself.
			var ops strings.Builder
			for _, l := range difflib.Ndiff(a, b) {
				ops.WriteByte(l.Op)
			}
			if ops.String() != p.Ndiff {
				t.Fatalf("ndiff classification differs from Python's")
			}
			var want []difflib.OpCode
			for _, r := range p.OpCodes {
				want = append(want, difflib.OpCode{Tag: r[0].(string)[0], I1: int(r[1].(float64)),
					I2: int(r[2].(float64)), J1: int(r[3].(float64)), J2: int(r[4].(float64))})
			}
			if got := difflib.NewMatcher(a, b).OpCodes(); !slices.Equal(got, want) {
				t.Fatalf("opcodes differ from Python's")
			}
			equal, kept := 0, strings.Count(p.Ndiff, " ")
			for _, op := range want {
				if op.Tag == 'e' {
					equal += op.I2 - op.I1
				}
			}
			if kept > equal {
				syncedPairs++
			}

			// The edit script: keys, types, texts and order.
			e := task.DiffLines(p.old, p.new)
			if len(e) != len(p.Edits) {
				t.Fatalf("%d edits, want %d", len(e), len(p.Edits))
			}
			for i, x := range e {
				w := p.Edits[i]
				if x.Key() != w[0] || x.Type.String() != w[1] || x.Original != w[2] || x.Modified != w[3] {
					t.Fatalf("edit %d = %q %s %q %q, want %q", i, x.Key(), x.Type, x.Original, x.Modified, w)
				}
				if x.Tie > 0 {
					tiePairs++
				}
			}
			if p.Reordered {
				t.Errorf("the reference's sort reordered the merge; the documented invariant is wrong")
			}
			if got := task.Apply(p.old, e); got != task.Normalize(p.new) {
				t.Fatalf("Apply(old, DiffLines(old, new)) != Normalize(new)")
			}
			if got := keys(e.Clean()); !slices.Equal(got, p.CleanKeys) && len(got)+len(p.CleanKeys) > 0 {
				t.Errorf("clean keys = %q, want %q", got, p.CleanKeys)
			}

			// Blocks and strides.
			bs := task.Blocks(e)
			if len(bs) != len(p.Blocks) {
				t.Fatalf("%d blocks, want %d", len(bs), len(p.Blocks))
			}
			var alt task.Edits
			for i, bl := range bs {
				w := p.Blocks[i]
				var wk []string
				for _, k := range w[3].([]any) {
					wk = append(wk, k.(string))
				}
				if bl.ID != int(w[0].(float64)) || bl.Start != int(w[1].(float64)) || bl.End != int(w[2].(float64)) ||
					!slices.Equal(keys(bl.Edits), wk) {
					t.Errorf("block %d = {%d %d %d %q}, want %v", i, bl.ID, bl.Start, bl.End, keys(bl.Edits), w)
				}
				if got := task.StrideBefore(bs, i); got != *p.Strides[i][0] {
					t.Errorf("stride before block %d = %d, want %d", i, got, *p.Strides[i][0])
				}
				after, ok := task.StrideAfter(bs, i)
				if wa := p.Strides[i][1]; (wa == nil) == ok || (ok && after != *wa) {
					t.Errorf("stride after block %d = %d, %v, want %v", i, after, ok, wa)
				}
				if i%2 == 0 {
					alt = append(alt, bl.Edits...)
				}
			}

			// Apply on partial and shifted scripts, and the reverse script.
			if got := sha(task.Apply(p.old, e.Clean())); got != p.ApplyClean {
				t.Errorf("apply(cleaned) digest differs")
			}
			if got := sha(task.Apply(p.old, alt)); got != p.ApplyAlt {
				t.Errorf("apply(alternate blocks) digest differs")
			}
			shifted := slices.Clone(e)
			for i := range shifted {
				shifted[i].Line += len(a) / 2
			}
			if got := sha(task.Apply(p.old, shifted)); got != p.ApplyShifted {
				t.Errorf("apply(shifted) digest differs")
			}
			rev := task.Reverse(p.old, e)
			if got := keys(rev); !slices.Equal(got, p.ReverseKeys) && len(got)+len(p.ReverseKeys) > 0 {
				t.Errorf("reverse keys = %q, want %q", got, p.ReverseKeys)
			}
			if task.Apply(task.Apply(p.old, e), rev) != task.Normalize(p.old) {
				t.Errorf("reverse does not restore old")
			}

			for _, v := range p.Verify {
				k, s, mx, mn := int(v[0].(float64)), int(v[1].(float64)), int(v[2].(float64)), int(v[3].(float64))
				err := task.Verify(e, k, s, mx, mn)
				if (err == nil) != v[4].(bool) {
					t.Errorf("Verify(k=%d, stride=%d, max=%d, min=%d) = %v, want ok=%v", k, s, mx, mn, err, v[4])
				}
			}
		})
	}
	// The vectors must exercise autojunk-sized inputs, tied Add keys and replace blocks
	// synchronised on identical (popular) lines.
	if bigPairs == 0 || tiePairs == 0 || syncedPairs == 0 {
		t.Errorf("coverage: %d pairs ≥ 200 lines, %d tied adds, %d pairs synced on identical lines",
			bigPairs, tiePairs, syncedPairs)
	}
}

// TestPythonWhitespace checks that Lines strips exactly the characters for which Python's
// str.isspace() holds (recorded by gen.py), over all code points.
func TestPythonWhitespace(t *testing.T) {
	data, err := os.ReadFile("testdata/edits/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		IsSpace []rune `json:"isspace"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.IsSpace) < 20 {
		t.Fatalf("golden isspace set has %d entries", len(g.IsSpace))
	}
	space := map[rune]bool{}
	for _, r := range g.IsSpace {
		space[r] = true
	}
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r == '\n' || (r >= 0xD800 && r <= 0xDFFF) {
			continue // the line separator; surrogates are not valid in Go strings
		}
		stripped := len(task.Lines("x" + string(r))[0]) == 1
		if stripped != space[r] {
			t.Errorf("U+%04X: stripped=%v, Python isspace=%v", r, stripped, space[r])
		}
	}
}
