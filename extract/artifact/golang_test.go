package artifact

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/extract/mask"
)

// A Go instance: the methods Rect.Area (with a doc comment) and Rect.Scale (without) are
// masked; the problem statement shows the Go import path, signatures and doc comment.
func TestGoInstance(t *testing.T) {
	root := filepath.Join("testdata", "gorepo")
	objs := []mask.Target{{File: "shapes/shapes.go", Name: "Rect.Area"}, {File: "shapes/shapes.go", Name: "Rect.Scale"}}
	res, err := mask.Mask(context.Background(), root, objs, mask.Options{})
	require.NoError(t, err)
	require.Len(t, res.Removed, 2)
	a, err := Build(context.Background(), Spec{
		Root: root, Repo: "acme/shapes", BaseCommit: "fedcba9876543210", Level: 1,
		TestFile: "shapes/shapes_test.go", Masked: res.Overlay, Objects: objs, Functions: 2,
		FailToPass: []string{"example.com/shapes/shapes.TestArea"},
	}, Options{})
	require.NoError(t, err)
	require.Equal(t, "acme__shapes.fedcba98.shapes_test", a.Instance.InstanceID[:len("acme__shapes.fedcba98.shapes_test")])
	area, scale := a.Interfaces[0], a.Interfaces[1]
	require.Equal(t, "example.com/shapes/shapes", area.ImportPath)
	require.Equal(t, `import "example.com/shapes/shapes"`, area.Import)
	require.Equal(t, "func (r Rect) Area() int", area.Signature)
	require.Equal(t, "Area returns the area of r.\nIt is W times H.", area.Docstring)
	require.Equal(t, "func (r *Rect) Scale(k int)", scale.Signature)
	require.Empty(t, scale.Docstring)
	require.True(t, strings.HasPrefix(area.Source, "// Area returns"))
	require.Contains(t, a.ProblemStatement, "```go\nfunc (r Rect) Area() int\n```\n\n> Area returns the area of r.\n> It is W times H.\n")

	// The starting tree builds without the test file; the patches restore a passing package.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("artifact: the go command is not on PATH")
	}
	dir := copyTree(t, root)
	require.NoError(t, a.Overlay.WriteTo(dir))
	goCmd(t, dir, "vet", "./...")
	for _, p := range [][]byte{a.Patch, a.TestPatch} {
		f := filepath.Join(t.TempDir(), "p.diff")
		require.NoError(t, os.WriteFile(f, p, 0o644))
		git(t, dir, "apply", f)
	}
	goCmd(t, dir, "test", "./...")
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %v: %s", args, out)
}
