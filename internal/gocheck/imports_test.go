package gocheck

import (
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFindImports(t *testing.T) {
	src := "package p\n\nimport \"os\"\n\nimport (\n\t\"fmt\"\n\tst \"strings\"\n\t\"sort\"\n)\n\nimport \"io\"\n"
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ImportsOnly)
	require.NoError(t, err)
	hits, n := FindImports(f, map[string]bool{"os": true, "strings": true, "sort": true, "missing": true})
	require.Equal(t, 3, n)
	require.Len(t, hits, 2)
	require.True(t, hits[0].All())
	require.Equal(t, `"os"`, hits[0].Specs[0].Path.Value)
	require.False(t, hits[1].All())
	require.Len(t, hits[1].Specs, 2)
	require.Equal(t, "st", hits[1].Specs[0].Name.Name)
	require.Equal(t, `"sort"`, hits[1].Specs[1].Path.Value)
	none, n := FindImports(f, map[string]bool{"net": true})
	require.Empty(t, none)
	require.Zero(t, n)
}
