// Package linemut holds language-agnostic, seeded single-line mutation rules: the default
// bug source of package compose (and reusable by corrupt).
//
// A Rule turns one source line into zero or more Mutants: a replacement line, the
// deletion of the line, or the insertion of a line after it. Rules are values (Name, Doc, Mutants); the caller lists the ones it
// wants, Default returns them all. Every rule works on the tokens of Scan, so it never
// changes text inside string literals or comments, and it is Python-aware enough to keep
// the line plausible: it flips only binary operators (not `*args` or a unary minus), leaves
// the `in` of a for-loop or comprehension alone, negates only `if`/`elif`/`while` headers,
// and deletes or duplicates only lines the caller marked deletable (plain statements). A
// replacement never equals its line. Python is the language the rules are tuned for; on
// C-like lines they handle &&, ||, // comments and `return x;`.
//
// Mutants are listed in a deterministic order (rule order, then left to right); Sample
// draws one with a *rand.Rand, so the same seed gives the same mutation.
package linemut

import (
	"math/rand"
	"strconv"
	"strings"
)

// Context carries what the caller knows about the line.
type Context struct {
	// Deletable allows the delete-statement rule (set by the caller for plain statements
	// that are not the sole statement of a block).
	Deletable bool
}

// Mutant is one mutation of a line.
type Mutant struct {
	Rule   string // the rule's Name
	Line   string // the mutated line (empty when Delete); the inserted line when Insert
	Delete bool   // the mutation deletes the line
	Insert bool   // the mutation inserts Line after the line (which itself is kept)
}

// Rule is a named single-line mutation.
type Rule struct {
	Name    string
	Doc     string
	Mutants func(line string, ctx Context) []Mutant
}

// The rules of Default, in order.
var (
	FlipComparison = Rule{Name: "flip-comparison", Doc: "replace a comparison operator by its negation (== ↔ !=, < ↔ >=, > ↔ <=), `is` ↔ `is not`, `in` ↔ `not in`", Mutants: flipComparison}
	OffByOne       = Rule{Name: "off-by-one", Doc: "add or subtract one from a decimal integer literal (bounds, indices, counts)", Mutants: offByOne}
	SwapArithmetic = Rule{Name: "swap-arithmetic", Doc: "swap a binary arithmetic operator: + ↔ -, * ↔ /, // ↔ /, % → //, and the augmented forms += ↔ -=, *= ↔ /=", Mutants: swapArithmetic}
	SwapBoolean    = Rule{Name: "swap-boolean", Doc: "swap a boolean connective: and ↔ or, && ↔ ||", Mutants: swapBoolean}
	NegateCond     = Rule{Name: "negate-condition", Doc: "negate the condition of an if/elif/while header (`if c:` → `if not (c):`, `if not c:` → `if c:`)", Mutants: negateCondition}
	ChangeConstant = Rule{Name: "change-constant", Doc: "replace a constant: True ↔ False (true ↔ false), 0.0 ↔ 1.0", Mutants: changeConstant}
	SwapCallArgs   = Rule{Name: "swap-call-args", Doc: "swap the two positional arguments of a two-argument call f(a, b) → f(b, a)", Mutants: swapCallArgs}
	DeleteLine     = Rule{Name: "delete-statement", Doc: "delete the line (only when the caller marks it deletable)", Mutants: deleteLine}
	DuplicateLine  = Rule{Name: "duplicate-statement", Doc: "repeat the statement on a new line after it (only when the caller marks it deletable: a plain statement)", Mutants: duplicateLine}
	ReturnValue    = Rule{Name: "return-value", Doc: "return a different value: `return x` → `return None` (`return null;` for a C-like line ending in `;`); a bare return or `return None` is left alone", Mutants: returnValue}
)

// Default returns every rule, in a fixed order.
func Default() []Rule {
	return []Rule{FlipComparison, OffByOne, SwapArithmetic, SwapBoolean, NegateCond, ChangeConstant, SwapCallArgs, DeleteLine, ReturnValue, DuplicateLine}
}

// All returns every distinct mutant of line under rules, in rule order then left to right;
// duplicates (the same resulting line from two rules) keep the first.
func All(line string, ctx Context, rules []Rule) []Mutant {
	var out []Mutant
	seen := make(map[string]bool)
	for _, r := range rules {
		for _, m := range r.Mutants(line, ctx) {
			key := m.Line
			switch {
			case m.Delete:
				key = "\x00delete"
			case m.Insert:
				key = "\x00insert\x00" + m.Line
			case m.Line == line:
				continue
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			m.Rule = r.Name
			out = append(out, m)
		}
	}
	return out
}

// Sample draws one mutant of line uniformly from All; ok is false when there is none.
func Sample(rng *rand.Rand, line string, ctx Context, rules []Rule) (m Mutant, ok bool) {
	all := All(line, ctx, rules)
	if len(all) == 0 {
		return Mutant{}, false
	}
	return all[rng.Intn(len(all))], true
}

// replace returns line with toks[i] replaced by text.
func replace(line string, t Token, text string) string {
	return line[:t.Start] + text + line[t.End:]
}

var keywords = map[string]bool{
	"and": true, "or": true, "not": true, "in": true, "is": true, "if": true, "elif": true,
	"else": true, "while": true, "for": true, "return": true, "yield": true, "lambda": true,
	"await": true, "assert": true, "del": true, "import": true, "from": true,
	"raise": true, "with": true, "as": true, "def": true, "class": true,
}

// binaryAt reports whether the operator at code position k (index into idx) is binary:
// the previous code token ends an operand.
func binaryAt(toks []Token, idx []int, k int) bool {
	if k == 0 {
		return false
	}
	p := toks[idx[k-1]]
	switch p.Kind {
	case Number, String:
		return true
	case Ident:
		return !keywords[p.Text]
	case Op:
		return p.Text == ")" || p.Text == "]" || p.Text == "}"
	}
	return false
}

func hasIdent(toks []Token, name string) bool {
	for _, t := range toks {
		if t.Kind == Ident && t.Text == name {
			return true
		}
	}
	return false
}

var comparisonFlip = map[string]string{"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}

func flipComparison(line string, _ Context) []Mutant {
	toks := Scan(line)
	idx := code(toks)
	var out []Mutant
	for k, i := range idx {
		t := toks[i]
		switch {
		case t.Kind == Op && comparisonFlip[t.Text] != "":
			if t.Text == "<" || t.Text == ">" {
				// Skip generics / templates and arrows: require spaces around.
				if t.Start == 0 || t.End >= len(line) || line[t.Start-1] != ' ' || line[t.End] != ' ' {
					continue
				}
			}
			out = append(out, Mutant{Line: replace(line, t, comparisonFlip[t.Text])})
		case t.Kind == Ident && t.Text == "is" && binaryAt(toks, idx, k):
			if k+1 < len(idx) && toks[idx[k+1]].Text == "not" {
				nt := toks[idx[k+1]]
				out = append(out, Mutant{Line: line[:t.Start] + "is" + line[nt.End:]})
			} else {
				out = append(out, Mutant{Line: replace(line, t, "is not")})
			}
		case t.Kind == Ident && t.Text == "in" && !hasIdent(toks, "for"):
			if k > 0 && toks[idx[k-1]].Text == "not" {
				nt := toks[idx[k-1]]
				out = append(out, Mutant{Line: line[:nt.Start] + "in" + line[t.End:]})
			} else if binaryAt(toks, idx, k) {
				out = append(out, Mutant{Line: replace(line, t, "not in")})
			}
		}
	}
	return out
}

func offByOne(line string, _ Context) []Mutant {
	toks := Scan(line)
	var out []Mutant
	for _, i := range code(toks) {
		t := toks[i]
		if t.Kind != Number {
			continue
		}
		n, err := strconv.Atoi(t.Text)
		if err != nil || n > 1<<40 || (len(t.Text) > 1 && t.Text[0] == '0') {
			continue
		}
		out = append(out, Mutant{Line: replace(line, t, strconv.Itoa(n+1))})
		if n > 0 {
			out = append(out, Mutant{Line: replace(line, t, strconv.Itoa(n-1))})
		}
	}
	return out
}

var arithmeticSwap = map[string]string{"+": "-", "-": "+", "*": "/", "/": "*", "//": "/", "%": "//", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}

func swapArithmetic(line string, _ Context) []Mutant {
	toks := Scan(line)
	idx := code(toks)
	var out []Mutant
	for k, i := range idx {
		t := toks[i]
		to, ok := arithmeticSwap[t.Text]
		if t.Kind != Op || !ok {
			continue
		}
		if !strings.HasSuffix(t.Text, "=") && !binaryAt(toks, idx, k) {
			continue // unary minus, *args, **kwargs
		}
		if k+1 >= len(idx) {
			continue
		}
		out = append(out, Mutant{Line: replace(line, t, to)})
	}
	return out
}

func swapBoolean(line string, _ Context) []Mutant {
	toks := Scan(line)
	var out []Mutant
	for _, i := range code(toks) {
		t := toks[i]
		var to string
		switch {
		case t.Kind == Ident && t.Text == "and":
			to = "or"
		case t.Kind == Ident && t.Text == "or":
			to = "and"
		case t.Kind == Op && t.Text == "&&":
			to = "||"
		case t.Kind == Op && t.Text == "||":
			to = "&&"
		default:
			continue
		}
		out = append(out, Mutant{Line: replace(line, t, to)})
	}
	return out
}

// negateCondition handles Python headers `if|elif|while COND:` (optionally followed by a
// comment).
func negateCondition(line string, _ Context) []Mutant {
	toks := Scan(line)
	idx := code(toks)
	if len(idx) < 3 {
		return nil
	}
	head := toks[idx[0]]
	if head.Kind != Ident || (head.Text != "if" && head.Text != "elif" && head.Text != "while") {
		return nil
	}
	colon := toks[idx[len(idx)-1]]
	if colon.Kind != Op || colon.Text != ":" {
		return nil
	}
	first := toks[idx[1]]
	cond := strings.TrimSpace(line[first.Start:colon.Start])
	if cond == "" {
		return nil
	}
	var neg string
	if first.Kind == Ident && first.Text == "not" && len(idx) > 3 && !hasIdent(toks[idx[2]:], "and") && !hasIdent(toks[idx[2]:], "or") {
		neg = strings.TrimSpace(line[toks[idx[2]].Start:colon.Start])
	} else {
		neg = "not (" + cond + ")"
	}
	return []Mutant{{Line: line[:first.Start] + neg + line[colon.Start:]}}
}

func changeConstant(line string, _ Context) []Mutant {
	toks := Scan(line)
	var out []Mutant
	for _, i := range code(toks) {
		t := toks[i]
		var to string
		switch {
		case t.Kind == Ident && t.Text == "True":
			to = "False"
		case t.Kind == Ident && t.Text == "False":
			to = "True"
		case t.Kind == Ident && t.Text == "true":
			to = "false"
		case t.Kind == Ident && t.Text == "false":
			to = "true"
		case t.Kind == Number && t.Text == "0.0":
			to = "1.0"
		case t.Kind == Number && t.Text == "1.0":
			to = "0.0"
		default:
			continue
		}
		out = append(out, Mutant{Line: replace(line, t, to)})
	}
	return out
}

// swapCallArgs swaps the arguments of calls name(a, b) with exactly two positional
// arguments that differ, both closed on this line.
func swapCallArgs(line string, _ Context) []Mutant {
	toks := Scan(line)
	idx := code(toks)
	var out []Mutant
	for k := 1; k < len(idx); k++ {
		open := toks[idx[k]]
		prev := toks[idx[k-1]]
		if open.Text != "(" || prev.Kind != Ident || keywords[prev.Text] {
			continue
		}
		depth := 0
		var commas []int // positions in idx of top-level commas
		end := -1
		for m := k; m < len(idx) && end < 0; m++ {
			switch toks[idx[m]].Text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
				if depth == 0 {
					end = m
				}
			case ",":
				if depth == 1 {
					commas = append(commas, m)
				}
			case "=", "*", "**":
				if depth == 1 && (toks[idx[m-1]].Text == "(" || toks[idx[m-1]].Text == "," || toks[idx[m]].Text == "=") {
					end = -2 // keyword or starred argument
				}
			}
			if end == -2 {
				break
			}
		}
		if end < 0 || len(commas) != 1 {
			continue
		}
		if hasIdent(toks[idx[k]:idx[end]], "for") || hasIdent(toks[idx[k]:idx[end]], "lambda") {
			continue // a generator expression or a lambda: the comma is not an argument separator
		}
		c := toks[idx[commas[0]]]
		a := strings.TrimSpace(line[open.End:c.Start])
		b := strings.TrimSpace(line[c.End:toks[idx[end]].Start])
		if a == "" || b == "" || a == b {
			continue
		}
		out = append(out, Mutant{Line: line[:open.End] + b + ", " + a + line[toks[idx[end]].Start:]})
	}
	return out
}

func deleteLine(line string, ctx Context) []Mutant {
	if !ctx.Deletable || strings.TrimSpace(line) == "" {
		return nil
	}
	return []Mutant{{Delete: true}}
}

func duplicateLine(line string, ctx Context) []Mutant {
	if !ctx.Deletable || strings.TrimSpace(line) == "" {
		return nil
	}
	toks := Scan(line)
	idx := code(toks)
	if len(idx) == 0 || !balanced(toks, idx) || toks[idx[0]].Text == "return" || toks[idx[0]].Text == "raise" ||
		toks[idx[0]].Text == "break" || toks[idx[0]].Text == "continue" {
		return nil // a duplicate after a jump would be dead code, not a bug
	}
	return []Mutant{{Line: line, Insert: true}}
}

func returnValue(line string, _ Context) []Mutant {
	toks := Scan(line)
	idx := code(toks)
	if len(idx) < 2 || toks[idx[0]].Text != "return" || !balanced(toks, idx) || strings.HasSuffix(strings.TrimSpace(line), "\\") {
		return nil // the value continues on the next line
	}
	val := strings.TrimSpace(line[toks[idx[1]].Start:])
	if c := len(toks) - 1; toks[c].Kind == Comment {
		val = strings.TrimSpace(line[toks[idx[1]].Start:toks[c].Start])
	}
	if val == "None" || val == "nil" {
		return nil
	}
	repl := "None"
	if strings.HasSuffix(val, ";") {
		repl = "null;"
	}
	return []Mutant{{Line: line[:toks[idx[1]].Start] + repl}}
}

// balanced reports whether the line's brackets close on the line.
func balanced(toks []Token, idx []int) bool {
	depth := 0
	for _, i := range idx {
		switch toks[i].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		}
	}
	return depth == 0
}
