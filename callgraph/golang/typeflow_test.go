package golang

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
)

// archive is a txtar-style file: a comment, then sections introduced by "-- name --".
type archive struct {
	comment string
	files   map[string]string
}

func readArchive(t testing.TB, path string) archive {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	ar := archive{files: map[string]string{}}
	name := ""
	var sb strings.Builder
	flush := func() {
		if name == "" {
			ar.comment = sb.String()
		} else {
			ar.files[name] = sb.String()
		}
		sb.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			continue
		}
		sb.WriteString(line)
	}
	flush()
	return ar
}

func edgeLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// TestTypeFlowRules runs the rule fixtures of testdata/typeflow (see its README): under
// the default mode the edge set is exactly `want` and contains none of `not`; under CHA
// at least one `not` edge appears, so each fixture tells the two apart.
func TestTypeFlowRules(t *testing.T) {
	shapes, err := os.ReadFile(filepath.Join("testdata", "typeflow", "shapes.go"))
	require.NoError(t, err)
	paths, err := filepath.Glob(filepath.Join("testdata", "typeflow", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ar := readArchive(t, p)
			require.Contains(t, ar.files, "main.go")
			require.Contains(t, ar.files, "want")
			files := []callgraph.SourceFile{
				{Path: "go.mod", Src: []byte("module example.com/rules\n")},
				{Path: "shapes.go", Src: shapes},
				{Path: "main.go", Src: []byte(ar.files["main.go"])},
			}
			analyze := func(opts Options) []string {
				a, err := New(opts).Analyze(context.Background(), files)
				require.NoError(t, err)
				require.Empty(t, a.Errors)
				assert.Equal(t, a.CallSites, a.Resolved+a.Unresolved)
				return edgeSet(a)
			}
			got := analyze(Options{})
			assert.Equal(t, edgeLines(ar.files["want"]), got, ar.comment)
			not := edgeLines(ar.files["not"])
			require.NotEmpty(t, not, "a fixture lists the edges type flow must not find")
			for _, e := range not {
				assert.NotContains(t, got, e)
			}
			cha := analyze(Options{Interfaces: InterfacesCHA})
			found := false
			for _, e := range not {
				found = found || contains(cha, e)
			}
			assert.True(t, found, "CHA finds none of %v: the fixture does not discriminate", not)
		})
	}
}
