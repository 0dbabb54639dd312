package golang

import (
	"bytes"
	"go/build"
	"path"
	"strings"

	"github.com/faultline-dev/faultline/task/repo"
)

// buildFilter tells which .go files the go command would build on this machine
// (repo.GoFileBuilds): a file left out is not analysed, so a function of xxhash_other.go
// (built only where no assembly version exists) is not a second Sum64 beside the assembly's
// declaration, and a `//go:build ignore` program is no part of the package.
type buildFilter struct {
	cgo bool
}

func newBuildFilter() *buildFilter {
	return &buildFilter{cgo: build.Default.CgoEnabled}
}

// match reports whether the file at p (a slash path) with source src would be built.
func (b *buildFilter) match(p string, src []byte) bool {
	if b.cgo && !constrainedName(path.Base(p)) && !hasBuildLine(src) {
		return true // nothing in the name or the header can leave it out
	}
	return repo.GoFileBuilds(path.Dir(p), path.Base(p), src)
}

// constrainedName reports whether a .go file's name has an element after its first '_'
// (test suffix aside) that could be a GOOS or GOARCH: only such names constrain the build.
func constrainedName(base string) bool {
	name := strings.TrimSuffix(strings.TrimSuffix(base, ".go"), "_test")
	i := strings.IndexByte(name, '_')
	return i >= 0 && i < len(name)-1
}

// hasBuildLine reports whether src has a //go:build or // +build line before its package
// clause would end the header (a cheap over-approximation: any such text in the first
// lines up to "package").
func hasBuildLine(src []byte) bool {
	head := src
	if i := bytes.Index(src, []byte("\npackage ")); i >= 0 {
		head = src[:i]
	} else if !bytes.HasPrefix(src, []byte("package ")) {
		head = src[:min(len(src), 4096)]
	} else {
		return false
	}
	return bytes.Contains(head, []byte("//go:build")) || bytes.Contains(head, []byte("+build"))
}
