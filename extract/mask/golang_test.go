package mask

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/task"
)

// copyTree copies the tree below src into a new temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, fstree.Copy(src, dst, fstree.Options{Writable: true}))
	return dst
}

// goBuilds writes the overlay on a copy of root and runs `go vet ./...` there, which
// type-checks the packages and their tests.
func goBuilds(t *testing.T, root string, o task.Overlay) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("mask: the go command is not on PATH")
	}
	dir := copyTree(t, root)
	require.NoError(t, o.WriteTo(dir))
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOSUMDB=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "masked tree does not build:\n%s", out)
}

func TestMaskGoGolden(t *testing.T) {
	root := filepath.Join("testdata", "gorepo")
	cases := []struct {
		name    string
		targets []string
		keep    []string
	}{
		{"doc_unused_import", []string{"lib/lib.go::Upper"}, nil},
		{"single_import", []string{"lib/extra.go::Env"}, nil},
		{"used_by_importer", []string{"lib/lib.go::Format", "lib/lib.go::Upper"}, nil},
		{"used_in_package", []string{"lib/lib.go::helper"}, nil},
		{"caller_and_callee", []string{"lib/lib.go::helper", "lib/lib.go::usesHelper"}, nil},
		{"method", []string{"lib/lib.go::T.Name"}, nil},
		{"keep", []string{"lib/lib.go::Exported", "lib/lib.go::Nope::3"}, []string{"lib/lib.go::Exported"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Mask(context.Background(), root, mustTargets(t, c.targets...), Options{Keep: mustTargets(t, c.keep...)})
			require.NoError(t, err)
			goBuilds(t, root, res.Overlay)
			golden(t, "go_"+c.name+".txt", render(t, res))
		})
	}
}

func TestNamedBy(t *testing.T) {
	cases := map[string][]string{
		"undefined: helper":     {"helper"},
		"undefined: lib.Format": {"Format"},
		"t.Name undefined (type *T has no field or method Name)":                        {"Name"},
		"*T does not implement fmt.Stringer (missing method String)":                    {"String"},
		`"strings" imported and not used`:                                               nil,
		"cannot use x (variable of type int) as string value in argument to f":          nil,
		"x.Name undefined (type *T has no field or method Name, but does have field n)": {"Name"},
		"built-in min requires go1.21 or later (-lang was set to go1.13; check go.mod)": {"min"},
	}
	for msg, want := range cases {
		require.Equal(t, want, namedBy(msg), msg)
	}
}

func TestPruneImports(t *testing.T) {
	cases := []struct {
		name, src string
		paths     []string
		want      string
	}{
		{"group", "package p\n\nimport (\n\t\"fmt\"\n\t// os doc\n\t\"os\" // trailing\n)\n", []string{"os"}, "package p\n\nimport (\n\t\"fmt\"\n)\n"},
		{"whole", "package p\n\n// imports\nimport (\n\t\"os\"\n)\n\nvar x = 1\n", []string{"os"}, "package p\n\nvar x = 1\n"},
		{"same line first", "package p\n\nimport (\"os\"; \"fmt\")\n", []string{"os"}, "package p\n\nimport (\"fmt\")\n"},
		{"same line last", "package p\n\nimport (\"os\"; \"fmt\")\n", []string{"fmt"}, "package p\n\nimport (\"os\")\n"},
		{"named", "package p\n\nimport (\n\tf \"fmt\"\n\t\"os\"\n)\n", []string{"fmt"}, "package p\n\nimport (\n\t\"os\"\n)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := map[string]bool{}
			for _, p := range c.paths {
				ps[p] = true
			}
			got, edits, err := pruneImports("p.go", []byte(c.src), ps)
			require.NoError(t, err)
			require.Equal(t, c.want, string(got))
			require.Len(t, edits, 1)
		})
	}
}
