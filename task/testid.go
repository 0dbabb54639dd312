package task

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitGoTestID splits a Go test id `import/path.TestName/sub` into the package import path
// and the test name `TestName/sub`. Import paths may contain dots (gopkg.in/check.v1) and
// subtest names may contain anything, so the split is at the first dot followed by a name
// IsGoTestFunc accepts that ends at a slash or at the end. ok is false when there is none.
func SplitGoTestID(id string) (pkg, test string, ok bool) {
	for i := 1; i < len(id); i++ {
		if id[i] != '.' {
			continue
		}
		rest := id[i+1:]
		top, _, _ := strings.Cut(rest, "/")
		if IsGoTestFunc(top) {
			return id[:i], rest, true
		}
	}
	return "", "", false
}

// IsGoTestFunc reports whether s can name a test, example, fuzz test or benchmark
// function: the prefix Test, Example, Fuzz or Benchmark not followed by a lower-case letter
// (the testing package's rule), the whole an identifier.
func IsGoTestFunc(s string) bool {
	var prefix string
	for _, p := range []string{"Test", "Example", "Fuzz", "Benchmark"} {
		if strings.HasPrefix(s, p) {
			prefix = p
			break
		}
	}
	if prefix == "" {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError || !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	if rest := s[len(prefix):]; rest != "" {
		r, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}
