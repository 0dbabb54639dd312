package pylex

import (
	"os"
	"testing"
)

// benchSource is a large real module of Debian's python3 packages.
func benchSource(b *testing.B) []byte {
	src, err := os.ReadFile("/usr/lib/python3/dist-packages/attr/_make.py")
	if err != nil {
		b.Skip("attr/_make.py of Debian's python3-attr is not installed")
	}
	b.SetBytes(int64(len(src)))
	return src
}

func BenchmarkTokenize(b *testing.B) {
	src := benchSource(b)
	for b.Loop() {
		Tokenize(src)
	}
}

func BenchmarkLines(b *testing.B) {
	src := benchSource(b)
	for b.Loop() {
		Lines(src)
	}
}
