package task_test

import (
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// BenchmarkDiffLines measures DiffLines on the bench pair of testdata/edits (pyflakes'
// checker.py, ~2,300 lines, and a seeded mutation of it). testdata/edits/bench_ndiff.py
// times CPython's difflib.ndiff on the same pair for the ratio.
func BenchmarkDiffLines(b *testing.B) {
	old := readPair(b, "bench-checker.old")
	new := readPair(b, "bench-checker.new")
	b.SetBytes(int64(len(old) + len(new)))
	for b.Loop() {
		task.DiffLines(old, new)
	}
}

func BenchmarkDiffLinesDifferentFiles(b *testing.B) {
	old := readPair(b, "dif-builders.old")
	new := readPair(b, "dif-builders.new")
	for b.Loop() {
		task.DiffLines(old, new)
	}
}

func BenchmarkApply(b *testing.B) {
	old := readPair(b, "bench-checker.old")
	e := task.DiffLines(old, readPair(b, "bench-checker.new"))
	for b.Loop() {
		task.Apply(old, e)
	}
}
