package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
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

// TestShards builds the fixture whole and in three shards, merges the shards' directories
// (given out of order) and compares the output trees byte for byte: instance directories,
// instances.jsonl and mirror.git. -n 1 with both levels keeps one item of the shards'
// several (shard 1/3 finds none and writes an empty directory); -n 0 keeps every item.
// The first shard is interrupted while tracing and started again: it resumes from the
// result cache the shards share, and the merge is still the whole run's output.
func TestShards(t *testing.T) {
	acceptance.Skip(t, "long end-to-end runs (the whole pipeline, whole and in three shards, twice)")
	needPytest(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("featurebench: git is not installed")
	}
	repo := filepath.Join(t.TempDir(), "shapes")
	require.NoError(t, os.CopyFS(repo, os.DirFS("../../extract/testdata/pipeline/repo")))
	caches := t.TempDir()
	for _, cfg := range []struct{ n, level string }{{"1", "1,2"}, {"0", "1"}} {
		t.Run("n="+cfg.n+",level="+cfg.level, func(t *testing.T) {
			args := func(out, cache string, extra ...string) []string {
				return append([]string{"-repo", repo, "-out", out, "-n", cfg.n, "-level", cfg.level, "-seed", "7",
					"-python", "/usr/bin/python3", "-jobs", "1", "-name", "acme/shapes",
					"-commit", "0123456789abcdef0123456789abcdef01234567", "-cache", filepath.Join(caches, cache+cfg.n)}, extra...)
			}
			dir := t.TempDir()
			full := filepath.Join(dir, "full")
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run(context.Background(), args(full, "full"), &stdout, &stderr), stderr.String())
			wantIDs := stdout.String()

			var parts []string
			for i := range 3 {
				part := filepath.Join(dir, fmt.Sprintf("part%d", i))
				shard := fmt.Sprintf("%d/3", i)
				if i == 0 && cfg.n == "1" {
					ctx, cancel := context.WithCancel(context.Background())
					w := &clitest.CancelAfter{Marker: "tracing test files: ", K: 3, Cancel: cancel} // the phase line, then 2 files
					code := run(ctx, args(part, "shards", "-shard", shard), &stdout, w)
					cancel()
					require.NotEqual(t, 0, code, w.String())
					require.NoDirExists(t, part, "an interrupted shard wrote its output")
				}
				stderr.Reset()
				require.Equal(t, 0, run(context.Background(), args(part, "shards", "-shard", shard), &stdout, &stderr), stderr.String())
				require.Contains(t, stderr.String(), "featurebench: shard "+shard+": ")
				if i == 0 && cfg.n == "1" {
					m := runStats.FindStringSubmatch(stderr.String())
					require.NotNil(t, m, stderr.String())
					hits, _ := strconv.Atoi(m[2])
					require.GreaterOrEqual(t, hits, 2, "the traces made before the interruption come from the cache")
				}
				require.FileExists(t, filepath.Join(part, ShardFile))
				parts = append(parts, part)
			}

			merged := filepath.Join(dir, "merged")
			stdout.Reset()
			stderr.Reset()
			require.Equal(t, 0, run(context.Background(), []string{"-merge", "-out", merged, parts[2], parts[0], parts[1]}, &stdout, &stderr), stderr.String())
			require.Equal(t, wantIDs, stdout.String())
			require.Equal(t, readTree(t, full), readTree(t, merged), "the merged shards are the whole run's output")
			checkMirror(t, merged)
		})
	}
}
