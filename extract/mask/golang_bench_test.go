package mask

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkMaskGo masks Go definitions end to end (removal, type-checking of the changed
// packages and their importers, import pruning, protection rounds): on the gorepo fixture
// (a function another package uses, so one protection round) and on
// github.com/sergi/go-diff@v1.4.0 read in place from the module cache (Mask never writes).
//
//	go test ./extract/mask -run '^$' -bench MaskGo -benchtime 5x
func BenchmarkMaskGo(b *testing.B) {
	type subject struct {
		name, root string
		targets    []Target
	}
	subjects := []subject{{"gorepo", filepath.Join("testdata", "gorepo"), []Target{
		{File: "lib/lib.go", Name: "Format"}, {File: "lib/lib.go", Name: "Upper"}, {File: "lib/lib.go", Name: "T.Name"},
	}}}
	if dir := goDiffDir(); dir != "" {
		subjects = append(subjects, subject{"go-diff", dir, []Target{
			{File: "diffmatchpatch/diff.go", Name: "DiffMatchPatch.DiffCleanupSemantic"},
			{File: "diffmatchpatch/diff.go", Name: "DiffMatchPatch.DiffPrettyHtml"},
			{File: "diffmatchpatch/diff.go", Name: "commonPrefixLength"},
			{File: "diffmatchpatch/patch.go", Name: "DiffMatchPatch.PatchToText"},
		}})
	} else {
		b.Log("mask: github.com/sergi/go-diff@v1.4.0 is not in the module cache: only the fixture is measured")
	}
	for _, s := range subjects {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				res, err := Mask(context.Background(), s.root, s.targets, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Removed) == 0 || len(res.Protected) == 0 {
					b.Fatalf("removed %d, protected %d: want some of each", len(res.Removed), len(res.Protected))
				}
			}
		})
	}
}

// goDiffDir returns github.com/sergi/go-diff@v1.4.0 in the module cache, or "".
func goDiffDir() string {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github.com", "sergi", "go-diff@v1.4.0")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}
