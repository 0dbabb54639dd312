package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/internal/cli/clitest"
	"github.com/stretchr/testify/require"
)

var runStats = regexp.MustCompile(`featurebench: (\d+) test runs, (\d+) cache hits`)

// TestResume interrupts a run after it traced two test files and starts it again with the
// same flags: the output is the uninterrupted run's, byte for byte, and the traces made
// before the interruption are served from the result cache.
func TestResume(t *testing.T) {
	acceptance.Skip(t, "a long end-to-end run (the whole pipeline three times)")
	needPytest(t)
	repo := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	caches := t.TempDir()
	args := func(out, cache string) []string {
		return []string{"-repo", repo, "-out", out, "-n", "1", "-seed", "7", "-python", "/usr/bin/python3", "-jobs", "1",
			"-name", "acme/shapes", "-commit", "0123456789abcdef0123456789abcdef01234567", "-cache", filepath.Join(caches, cache)}
	}
	stats := func(stderr string) (runs, hits int) {
		m := runStats.FindStringSubmatch(stderr)
		require.NotNil(t, m, stderr)
		runs, _ = strconv.Atoi(m[1])
		hits, _ = strconv.Atoi(m[2])
		return runs, hits
	}

	full := filepath.Join(t.TempDir(), "full")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), args(full, "full"), &stdout, &stderr), stderr.String())
	fullRuns, _ := stats(stderr.String())

	resumed := filepath.Join(t.TempDir(), "resumed")
	ctx, cancel := context.WithCancel(context.Background())
	w := &clitest.CancelAfter{Marker: "tracing test files: ", K: 3, Cancel: cancel} // the phase line, then 2 files
	code := run(ctx, args(resumed, "resume"), &stdout, w)
	cancel()
	require.NotEqual(t, 0, code, w.String())
	require.NoDirExists(t, resumed, "an interrupted run wrote its output")

	stderr.Reset()
	require.Equal(t, 0, run(context.Background(), args(resumed, "resume"), &stdout, &stderr), stderr.String())
	runs, hits := stats(stderr.String())
	require.Equal(t, readTree(t, full), readTree(t, resumed), "the resumed run's output is the uninterrupted one's")
	require.GreaterOrEqual(t, hits, 2, "the two traces made before the interruption come from the cache")
	require.Less(t, runs, fullRuns)
	require.Equal(t, fullRuns, runs+hits)
}
