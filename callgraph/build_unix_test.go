//go:build unix

package callgraph

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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

// A claimed file whose path is not valid UTF-8 is skipped and reported under a quoted
// path that round-trips through strconv.Unquote and JSON; a valid sibling is analysed,
// and an unclaimed invalid name is not reported.
func TestBuildInvalidUTF8Names(t *testing.T) {
	root := writeTree(t, map[string]string{"ok.fk": "def ok\n"})
	for _, p := range []string{"caf\xe9.fk", "sub\xff/x.fk", "caf\xe9.txt"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Skipf("the file system refuses a name that is not UTF-8: %v", err)
		}
		if err := os.WriteFile(full, []byte("def x\n"), 0o644); err != nil {
			t.Skipf("the file system refuses a name that is not UTF-8: %v", err)
		}
	}
	l := &fakeLang{name: "fake", ext: ".fk"}
	g, err := Build(context.Background(), root, []Language{l}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"ok.fk"}, l.paths())
	want := []Skipped{{`caf\xe9.fk`, SkipInvalidName}, {`sub\xff/x.fk`, SkipInvalidName}}
	require.Equal(t, want, g.Stats().Skipped)
	for _, s := range g.Stats().Skipped {
		p, err := strconv.Unquote(`"` + s.Path + `"`)
		require.NoError(t, err)
		_, err = os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		require.NoError(t, err, "the unquoted path names the file")
	}
	b, err := json.Marshal(g.Stats())
	require.NoError(t, err)
	var back Stats
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, want, back.Skipped, "the report carries the paths unchanged")
}
