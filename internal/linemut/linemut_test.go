package linemut

import (
	"math/rand"
	"strings"
	"testing"
)

func lines(ms []Mutant) []string {
	var out []string
	for _, m := range ms {
		if m.Delete {
			out = append(out, "<delete>")
			continue
		}
		if m.Insert {
			out = append(out, "<insert>"+m.Line)
			continue
		}
		out = append(out, m.Line)
	}
	return out
}

func TestRules(t *testing.T) {
	cases := []struct {
		name string
		rule Rule
		line string
		ctx  Context
		want []string
	}{
		{"cmp", FlipComparison, "    if a == b and c < d:", Context{}, []string{"    if a != b and c < d:", "    if a == b and c >= d:"}},
		{"cmp in string untouched", FlipComparison, `    x = "a == b"  # c < d`, Context{}, nil},
		{"is not", FlipComparison, "    if x is not None:", Context{}, []string{"    if x is None:"}},
		{"is", FlipComparison, "    if x is None:", Context{}, []string{"    if x is not None:"}},
		{"in", FlipComparison, "    if k in seen:", Context{}, []string{"    if k not in seen:"}},
		{"not in", FlipComparison, "    if k not in seen:", Context{}, []string{"    if k in seen:"}},
		{"for-in left alone", FlipComparison, "    for k in seen:", Context{}, nil},
		{"off by one", OffByOne, "    return s[1:10]", Context{}, []string{"    return s[2:10]", "    return s[0:10]", "    return s[1:11]", "    return s[1:9]"}},
		{"zero", OffByOne, "i = 0", Context{}, []string{"i = 1"}},
		{"hex untouched", OffByOne, "m = 0xff", Context{}, nil},
		{"arith binary only", SwapArithmetic, "    y = -x + f(*args) * 2", Context{}, []string{"    y = -x - f(*args) * 2", "    y = -x + f(*args) / 2"}},
		{"augmented", SwapArithmetic, "    n += 1", Context{}, []string{"    n -= 1"}},
		{"bool", SwapBoolean, "    ok = a and not b or c", Context{}, []string{"    ok = a or not b or c", "    ok = a and not b and c"}},
		{"c bool", SwapBoolean, "  if (a && b) {", Context{}, []string{"  if (a || b) {"}},
		{"negate if", NegateCond, "    if x > 0:  # positive", Context{}, []string{"    if not (x > 0):  # positive"}},
		{"negate not", NegateCond, "    elif not done:", Context{}, []string{"    elif done:"}},
		{"negate not-and", NegateCond, "    while not a and b:", Context{}, []string{"    while not (not a and b):"}},
		{"negate non-header", NegateCond, "    x = 1 if a else 2", Context{}, nil},
		{"const", ChangeConstant, "    return True", Context{}, []string{"    return False"}},
		{"swap args", SwapCallArgs, "    d = divmod(a, f(b, c))", Context{}, []string{"    d = divmod(f(b, c), a)", "    d = divmod(a, f(c, b))"}},
		{"swap kwargs untouched", SwapCallArgs, "    g(a, key=b)", Context{}, nil},
		{"swap starred untouched", SwapCallArgs, "    g(*a, b)", Context{}, nil},
		{"swap equal args untouched", SwapCallArgs, "    g(a, a)", Context{}, nil},
		{"delete allowed", DeleteLine, "    x += 1", Context{Deletable: true}, []string{"<delete>"}},
		{"delete not allowed", DeleteLine, "    x += 1", Context{}, nil},
		{"duplicate", DuplicateLine, "    total += x", Context{Deletable: true}, []string{"<insert>    total += x"}},
		{"duplicate not deletable", DuplicateLine, "    total += x", Context{}, nil},
		{"duplicate return", DuplicateLine, "    return x", Context{Deletable: true}, nil},
		{"return", ReturnValue, "    return a + b  # sum", Context{}, []string{"    return None"}},
		{"return none", ReturnValue, "    return None", Context{}, nil},
		{"return c", ReturnValue, "    return x;", Context{}, []string{"    return null;"}},
		{"return open bracket", ReturnValue, "        return (", Context{}, nil},
		{"return open call", ReturnValue, "        return self.getCommonAncestor(", Context{}, nil},
		{"return continued", ReturnValue, "        return a + \\", Context{}, nil},
		{"swap genexp untouched", SwapCallArgs, "    if any(count == 1 for value, count in values.items()):", Context{}, nil},
		{"swap lambda untouched", SwapCallArgs, "    f(lambda a, b: a)", Context{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := lines(All(c.line, c.ctx, []Rule{c.rule}))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%s(%q)\n got %q\nwant %q", c.rule.Name, c.line, got, c.want)
			}
		})
	}
}

func TestScan(t *testing.T) {
	toks := Scan(`x = rb'a\'b' + f"""c""" # d`)
	var kinds []Kind
	for _, tk := range toks {
		if tk.Kind != Space {
			kinds = append(kinds, tk.Kind)
		}
	}
	want := []Kind{Ident, Op, String, Op, String, Comment}
	if len(kinds) != len(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("kinds %v, want %v", kinds, want)
		}
	}
	if got := Scan(`s = "unterminated`); got[len(got)-1].Kind != String || got[len(got)-1].Text != `"unterminated` {
		t.Errorf("unterminated string: %+v", got)
	}
	if got := Scan("  // a comment == 1"); got[1].Kind != Comment {
		t.Errorf("C comment: %+v", got)
	}
	if got := Scan("a // b"); got[2].Kind != Op || got[2].Text != "//" {
		t.Errorf("floor division: %+v", got)
	}
	if got := Scan("x = 1.5e-3j"); got[len(got)-1].Text != "1.5e-3j" {
		t.Errorf("number: %+v", got)
	}
	// A backslash keeps a triple-quoted literal open, raw ones too, and the literal ends at
	// the first unescaped closing quotes (the scanner used to close a raw literal at an
	// escaped quote and to run a plain one to the line end after one).
	for line, lit := range map[string]string{
		`x = r'''a\'''' + y`:    `r'''a\''''`,
		`x = '''a\''' b''' + y`: `'''a\''' b'''`,
		`x = "é" + ñame`:        `"é"`,
	} {
		got := Scan(line)
		if got[4].Kind != String || got[4].Text != lit || got[len(got)-1].Kind != Ident {
			t.Errorf("%s: %+v", line, got)
		}
	}
}

func TestDefaultNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Default() {
		if r.Name == "" || r.Doc == "" || r.Mutants == nil || seen[r.Name] {
			t.Errorf("bad rule %q", r.Name)
		}
		seen[r.Name] = true
	}
	if len(seen) != 10 {
		t.Errorf("%d rules", len(seen))
	}
}

func TestSampleDeterministic(t *testing.T) {
	line := "    if a[i] < b[j + 1] and ok: # x"
	var first []string
	for run := 0; run < 2; run++ {
		rng := rand.New(rand.NewSource(7))
		var got []string
		for i := 0; i < 20; i++ {
			m, ok := Sample(rng, line, Context{}, Default())
			if !ok {
				t.Fatal("no mutant")
			}
			got = append(got, m.Rule+":"+m.Line)
		}
		if run == 0 {
			first = got
		} else if strings.Join(got, "\n") != strings.Join(first, "\n") {
			t.Fatal("same seed, different samples")
		}
	}
	if _, ok := Sample(rand.New(rand.NewSource(1)), "    pass", Context{}, Default()); ok {
		t.Error("pass has no mutant")
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"", "x = 1", `s = 'a\'' # c`, `f"""x""" + b"y"`, "a // b // c", "  // c", "é = λ(1e5, 0x1F)", `"""`, `r"\"`, "x == 1 and y <= 2", "g(*a, **k)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var b strings.Builder
		end := 0
		for _, tk := range Scan(line) {
			if tk.Start != end || tk.End <= tk.Start || line[tk.Start:tk.End] != tk.Text {
				t.Fatalf("bad token %+v in %q", tk, line)
			}
			end = tk.End
			b.WriteString(tk.Text)
		}
		if b.String() != line {
			t.Fatalf("tokens do not rebuild %q", line)
		}
		for _, m := range All(line, Context{Deletable: true}, Default()) {
			if !m.Delete && !m.Insert && m.Line == line {
				t.Fatalf("rule %s returned the line unchanged", m.Rule)
			}
		}
	})
}
