package pylex

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refFile is one file of testdata/tokens.txt: what Python's tokenize made of it.
type refFile struct {
	path, sha string
	toks      []string // "KIND start end"
	err       string   // tokenize's error, if it stopped with one
}

func readRef(t testing.TB) []refFile {
	f, err := os.Open(filepath.Join("testdata", "tokens.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []refFile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "FILE "):
			fields := strings.Fields(line)
			out = append(out, refFile{path: fields[1], sha: fields[2]})
		case strings.HasPrefix(line, "ERROR "):
			out[len(out)-1].err = line[len("ERROR "):]
		default:
			out[len(out)-1].toks = append(out[len(out)-1].toks, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func refPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join("testdata", p)
}

func show(toks []Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Kind.String() + " " + strconv.Itoa(t.Start) + " " + strconv.Itoa(t.End)
	}
	return out
}

// TestTokenizeMatchesPython compares Tokenize with Python's tokenize module
// (testdata/tokens.py) token by token: kinds and byte spans. Where tokenize reports an
// ERRORTOKEN or gives up (pylex goes on, see the package doc), the tokens before are
// compared.
func TestTokenizeMatchesPython(t *testing.T) {
	for _, ref := range readRef(t) {
		t.Run(ref.path, func(t *testing.T) {
			src, err := os.ReadFile(refPath(ref.path))
			if os.IsNotExist(err) && filepath.IsAbs(ref.path) {
				t.Skipf("%s is not installed (Debian's python3 packages)", ref.path)
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != ref.sha {
				if filepath.IsAbs(ref.path) {
					t.Skipf("%s differs from the file tokens.txt was made from", ref.path)
				}
				t.Fatalf("%s changed since tokens.txt was made: run tokens.py", ref.path)
			}
			want := ref.toks
			partial := ref.err != ""
			for i, w := range want {
				if strings.HasPrefix(w, "ERRORTOKEN ") {
					want, partial = want[:i], true
					break
				}
			}
			got := show(Tokenize(src))
			if partial && len(got) > len(want) {
				got = got[:len(want)]
			}
			for i := 0; i < len(want) && i < len(got); i++ {
				if got[i] != want[i] {
					t.Fatalf("token %d: got %s, Python %s (%q)\ngot  %v\nwant %v", i, got[i], want[i],
						context(src, want[i]), got[max(0, i-3):min(len(got), i+3)], want[max(0, i-3):min(len(want), i+3)])
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d tokens, Python %d", len(got), len(want))
			}
		})
	}
}

func context(src []byte, tok string) string {
	var kind string
	var s, e int
	fmt.Sscan(tok, &kind, &s, &e)
	return string(src[max(0, s-10):min(len(src), e+10)])
}

func TestTokenizeCounts(t *testing.T) {
	// the reference covers the hand cases and at least some real files
	refs := readRef(t)
	cases, real := 0, 0
	for _, r := range refs {
		if filepath.IsAbs(r.path) {
			real++
		} else {
			cases++
		}
	}
	if cases < 15 || real < 3 {
		t.Fatalf("tokens.txt has %d cases and %d real files", cases, real)
	}
}

// TestTokensStops checks that a caller may stop Tokens at any token (also inside the
// indentation and end-of-file tokens) and gets Tokenize's tokens up to there.
func TestTokensStops(t *testing.T) {
	src := []byte("if a:\n    if b:\n        x = 1\n# c\n\ny = 2")
	all := Tokenize(src)
	for stop := 0; stop < len(all); stop++ {
		var got []Token
		for tok := range Tokens(src) {
			got = append(got, tok)
			if len(got) == stop+1 {
				break
			}
		}
		if len(got) != stop+1 || got[stop] != all[stop] {
			t.Fatalf("stopping after %d tokens: got %v", stop+1, got)
		}
	}
}
