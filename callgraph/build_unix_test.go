//go:build unix

package callgraph

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A named pipe is never opened (reading it would block until a writer appears).
func TestBuildSkipsFIFO(t *testing.T) {
	root := writeTree(t, map[string]string{"a.fk": "def a\n"})
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "pipe.fk"), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l := &fakeLang{name: "fake", ext: ".fk"}
	g, err := Build(ctx, root, []Language{l}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"a.fk"}, l.paths())
	require.Equal(t, []Skipped{{"pipe.fk", SkipNotRegular}}, g.Stats().Skipped)
}
