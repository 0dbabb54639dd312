package difflib

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// golden.json is produced by testdata/gen.py with CPython's difflib (see that script).
type goldenFile struct {
	Python string `json:"python"`
	Seqs   []struct {
		A, B      []string
		AutoJunk  bool     `json:"autojunk"`
		Junk      []string `json:"junk"`
		Longest   [3]int   `json:"longest"`
		Blocks    [][3]int `json:"blocks"`
		OpCodes   [][]any  `json:"opcodes"`
		Grouped   map[string][][][]any
		Ratio     float64 `json:"ratio"`
		Quick     float64 `json:"quick"`
		RealQuick float64 `json:"real_quick"`
		Popular   []string
		BJunk     []string `json:"bjunk"`
	} `json:"seqs"`
	Chars []struct {
		A, B      string
		OpCodes   [][]any `json:"opcodes"`
		Ratio     float64 `json:"ratio"`
		Quick     float64 `json:"quick"`
		RealQuick float64 `json:"real_quick"`
	} `json:"chars"`
	Ndiff []struct {
		A, B     []string
		Ndiff    string   `json:"ndiff"`
		LineJunk string   `json:"linejunk"`
		Plain    string   `json:"plain"`
		Hints    [][2]any `json:"hints"`
	} `json:"ndiff"`
	LineJunk [][2]any `json:"line_junk"`
}

func loadGolden(t *testing.T) goldenFile {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Seqs) == 0 || len(g.Chars) == 0 || len(g.Ndiff) == 0 {
		t.Fatal("golden file has empty sections")
	}
	return g
}

// pyOpCodes converts the JSON form ["e", i1, i2, j1, j2] to OpCodes.
func pyOpCodes(t *testing.T, raw [][]any) []OpCode {
	t.Helper()
	out := []OpCode{}
	for _, r := range raw {
		tag := r[0].(string)
		out = append(out, OpCode{tag[0], int(r[1].(float64)), int(r[2].(float64)), int(r[3].(float64)), int(r[4].(float64))})
	}
	return out
}

func TestGoldenSequenceMatcher(t *testing.T) {
	g := loadGolden(t)
	for n, c := range g.Seqs {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			opts := Options{AutoJunk: c.AutoJunk}
			if len(c.Junk) > 0 {
				opts.IsJunk = func(s string) bool { return slices.Contains(c.Junk, s) }
			}
			m := NewMatcherOptions(c.A, c.B, opts)
			if got := m.FindLongestMatch(0, len(c.A), 0, len(c.B)); got != (Match{c.Longest[0], c.Longest[1], c.Longest[2]}) {
				t.Errorf("longest = %v, want %v", got, c.Longest)
			}
			var blocks []Match
			for _, b := range c.Blocks {
				blocks = append(blocks, Match{b[0], b[1], b[2]})
			}
			if got := m.MatchingBlocks(); !slices.Equal(got, blocks) {
				t.Errorf("blocks = %v\nwant %v", got, blocks)
			}
			if got, want := m.OpCodes(), pyOpCodes(t, c.OpCodes); !slices.Equal(got, want) {
				t.Errorf("opcodes = %v\nwant %v", got, want)
			}
			for _, n := range []int{0, 1, 3} {
				want := [][]OpCode{}
				for _, grp := range c.Grouped[strconv.Itoa(n)] {
					want = append(want, pyOpCodes(t, grp))
				}
				got := m.GroupedOpCodes(n)
				if len(got) != len(want) {
					t.Fatalf("grouped(%d): %d groups, want %d", n, len(got), len(want))
				}
				for k := range got {
					if !slices.Equal(got[k], want[k]) {
						t.Errorf("grouped(%d)[%d] = %v, want %v", n, k, got[k], want[k])
					}
				}
			}
			if r := m.Ratio(); r != c.Ratio {
				t.Errorf("ratio = %v, want %v", r, c.Ratio)
			}
			if r := m.QuickRatio(); r != c.Quick {
				t.Errorf("quick ratio = %v, want %v", r, c.Quick)
			}
			if r := m.RealQuickRatio(); r != c.RealQuick {
				t.Errorf("real quick ratio = %v, want %v", r, c.RealQuick)
			}
			junk := m.Junk()
			slices.Sort(junk)
			if !slices.Equal(junk, c.BJunk) && !(len(junk) == 0 && len(c.BJunk) == 0) {
				t.Errorf("junk = %v, want %v", junk, c.BJunk)
			}
			pop := m.Popular()
			slices.Sort(pop)
			if !slices.Equal(pop, c.Popular) && !(len(pop) == 0 && len(c.Popular) == 0) {
				t.Errorf("popular = %v, want %v", pop, c.Popular)
			}
		})
	}
}

func TestGoldenCharacterMatcher(t *testing.T) {
	g := loadGolden(t)
	for n, c := range g.Chars {
		m := New([]rune(c.A), []rune(c.B), SequenceOptions[rune]{AutoJunk: true, IsJunk: IsCharacterJunk})
		if got, want := m.OpCodes(), pyOpCodes(t, c.OpCodes); !slices.Equal(got, want) {
			t.Errorf("case %d: opcodes = %v\nwant %v", n, got, want)
		}
		if m.Ratio() != c.Ratio || m.QuickRatio() != c.Quick || m.RealQuickRatio() != c.RealQuick {
			t.Errorf("case %d: ratios %v %v %v, want %v %v %v", n, m.Ratio(), m.QuickRatio(),
				m.RealQuickRatio(), c.Ratio, c.Quick, c.RealQuick)
		}
	}
}

// expand turns a classification string into diff lines: ' ' and '-' take the next line
// of a, '+' the next line of b (Python's output has that shape, so the letters determine it).
func expand(t *testing.T, ops string, a, b []string) []DiffLine {
	t.Helper()
	var out []DiffLine
	i, j := 0, 0
	for k := 0; k < len(ops); k++ {
		switch ops[k] {
		case ' ':
			if a[i] != b[j] {
				t.Fatalf("golden ' ' line %d pairs different lines", k)
			}
			out = append(out, DiffLine{' ', a[i]})
			i++
			j++
		case '-':
			out = append(out, DiffLine{'-', a[i]})
			i++
		case '+':
			out = append(out, DiffLine{'+', b[j]})
			j++
		}
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("golden classification covers %d/%d and %d/%d lines", i, len(a), j, len(b))
	}
	return out
}

func TestGoldenNdiff(t *testing.T) {
	g := loadGolden(t)
	fancy, synced, paired, hints := 0, 0, 0, 0
	for n, c := range g.Ndiff {
		for _, v := range []struct {
			name string
			d    Differ
			want string
		}{
			{"ndiff", Differ{CharJunk: IsCharacterJunk}, c.Ndiff},
			{"ndiff linejunk", Differ{LineJunk: IsLineJunk, CharJunk: IsCharacterJunk}, c.LineJunk},
			{"Differ()", Differ{}, c.Plain},
		} {
			want := expand(t, v.want, c.A, c.B)
			got := v.d.Compare(c.A, c.B)
			if v.name == "ndiff" && !slices.Equal(Ndiff(c.A, c.B), got) {
				t.Errorf("case %d: Ndiff differs from Differ{CharJunk: IsCharacterJunk}", n)
			}
			if !slices.Equal(got, want) {
				for k := range min(len(got), len(want)) {
					if got[k] != want[k] {
						t.Errorf("case %d %s: first difference at line %d: got %q, want %q", n, v.name, k, got[k], want[k])
						break
					}
				}
				t.Errorf("case %d %s: %d lines, want %d", n, v.name, len(got), len(want))
			}
			if !slices.Equal(Restore(got, 1), c.A) || !slices.Equal(Restore(got, 2), c.B) {
				t.Errorf("case %d %s: the comparison does not restore both inputs", n, v.name)
			}
		}
		// The full ndiff output with Python's '?' hint lines inserted at their positions.
		full := expand(t, c.Ndiff, c.A, c.B)
		for _, h := range c.Hints {
			k := int(h[0].(float64))
			full = slices.Insert(full, k, DiffLine{'?', h[1].(string)})
			hints++
		}
		if got := (Differ{CharJunk: IsCharacterJunk, Hints: true}).Compare(c.A, c.B); !slices.Equal(got, full) {
			t.Errorf("case %d: ndiff with hints differs from Python's", n)
		}
		equal := 0
		for _, op := range NewMatcher(c.A, c.B).OpCodes() {
			switch op.Tag {
			case 'r':
				fancy++
			case 'e':
				equal += op.I2 - op.I1
			}
		}
		if strings.Count(c.Ndiff, " ") > equal {
			synced++ // an identical (popular) pair was emitted inside a replace block
		}
		if strings.Contains(c.Ndiff, "-+") {
			paired++
		}
	}
	// The vectors must exercise the three ways a replace block is refined.
	if fancy == 0 || synced == 0 || paired == 0 || hints == 0 {
		t.Errorf("coverage: %d replace blocks, %d cases synced on identical lines, %d with paired lines, %d hints",
			fancy, synced, paired, hints)
	}
}

func TestIsLineJunk(t *testing.T) {
	g := loadGolden(t)
	if len(g.LineJunk) == 0 {
		t.Fatal("no line_junk vectors")
	}
	for _, c := range g.LineJunk {
		line, want := c[0].(string), c[1].(bool)
		if got := IsLineJunk(line); got != want {
			t.Errorf("IsLineJunk(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestOpCodeString(t *testing.T) {
	for op, want := range map[OpCode]string{
		{'e', 0, 2, 1, 3}: "equal a[0:2] b[1:3]",
		{'r', 1, 2, 3, 5}: "replace a[1:2] b[3:5]",
		{'d', 4, 6, 2, 2}: "delete a[4:6] b[2:2]",
		{'i', 3, 3, 0, 9}: "insert a[3:3] b[0:9]",
		{'x', 0, 0, 0, 0}: "tag(x) a[0:0] b[0:0]",
	} {
		if got := op.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
