package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/internal/cli/clitest"
)

// composeSetup returns compose's flags on calcProgram, without -out and -cache.
func composeSetup(t *testing.T) []string {
	t.Helper()
	prog, repo, tests := calcProgram(t)
	return []string{"compose", "-program", prog, "-repo", repo, "-tests", tests,
		"-k-max", "3", "-m1", "6", "-m2", "10", "-m3", "2", "-seed", "5", "-jobs", "2"}
}

var composeStats = regexp.MustCompile(`pdb compose: (\d+) test runs, (\d+) cache hits`)

// TestComposeShards: shards 0/3, 1/3 and 2/3, each with a cache of its own, merged, write
// the unsharded output byte for byte, in both formats.
func TestComposeShards(t *testing.T) {
	acceptance.Skip(t, "compose runs seven times")
	base := composeSetup(t)
	dir := t.TempDir()
	for _, format := range []string{"jsonl", "json"} {
		full := filepath.Join(dir, "full."+format)
		args := append(append([]string(nil), base...), "-format", format, "-out", full, "-cache", filepath.Join(dir, "cache-full"))
		if code, _, stderr := runPDB(context.Background(), args...); code != 0 {
			t.Fatalf("unsharded: exit %d: %s", code, stderr)
		}
		want, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for i := 0; i < 3; i++ {
			part := filepath.Join(dir, fmt.Sprintf("%s-shard%d.jsonl", format, i))
			args := append(append([]string(nil), base...), "-shard", fmt.Sprintf("%d/3", i), "-out", part, "-cache", filepath.Join(dir, fmt.Sprintf("cache-%d", i)))
			if code, _, stderr := runPDB(context.Background(), args...); code != 0 {
				t.Fatalf("shard %d/3: exit %d: %s", i, code, stderr)
			}
			parts = append(parts, part)
		}
		merged := filepath.Join(dir, "merged."+format)
		args = append(append(append([]string(nil), base...), "-format", format, "-merge", "-out", merged, "-cache", filepath.Join(dir, "cache-merge")), parts...)
		code, _, stderr := runPDB(context.Background(), args...)
		if code != 0 {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
		got, err := os.ReadFile(merged)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: merged shards differ from the unsharded output:\n%s\nwant\n%s", format, got, want)
		}
		// Every shard validated some candidates of its own: the split is not all in one.
		for _, p := range parts {
			if b, _ := os.ReadFile(p); len(b) == 0 {
				t.Logf("%s holds no bug", p)
			}
		}
	}

}

// TestComposeShardFlags: bad -shard, -merge and shard files are usage errors (exit 2)
// naming the problem, before any run.
func TestComposeShardFlags(t *testing.T) {
	base := composeSetup(t)
	dir := t.TempDir()
	prog, _ := os.ReadFile(base[2])
	rec := func(shard string, cand int, seed uint64) string {
		return jsonl(t, shardBug{Shard: shard, Candidate: cand, M1: 6, Seed: seed, Program: programHash(string(prog))})
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s0 := write("s0.jsonl", rec("0/2", 3, 5))
	s1 := write("s1.jsonl", rec("1/2", 3, 5))
	other := write("other.jsonl", rec("1/2", 4, 6))
	plain := write("plain.jsonl", jsonl(t, example("t/k1/0", "a = 1", "a = 2", "")))
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"-merge"}, "-merge: name the shards' files"},
		{[]string{"-merge", "-shard", "0/2", s0}, "-merge: merges shards"},
		{[]string{"-merge", s0}, "merge every shard's file"},
		{[]string{"-merge", s0, s1}, "candidate 3 is in two shards' files"},
		{[]string{"-merge", s0, s0}, "shard 0/2 is also in"},
		{[]string{"-merge", s0, other}, "written with -seed 6"},
		{[]string{"-merge", plain}, "not a shard's record"},
		{[]string{"-merge", filepath.Join(dir, "missing.jsonl")}, "-merge"},
		{[]string{"-shard", "3/3"}, "-shard"},
		{[]string{"-shard", "x"}, "-shard"},
		{[]string{"-shard", "0/3", "-format", "json"}, "-format"},
		{[]string{s0}, "unexpected argument"},
	} {
		args := append(append(append([]string(nil), base...), "-cache", "off", "-out", filepath.Join(dir, "bad.jsonl")), c.extra...)
		code, _, stderr := runPDB(context.Background(), args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.extra, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.jsonl")); err == nil {
		t.Error("a refused run wrote its output")
	}
}

// TestComposeResume interrupts compose once it has validated its bugs and starts it again
// with the same flags: the output is the uninterrupted run's, and the validations come from
// the cache.
func TestComposeResume(t *testing.T) {
	base := composeSetup(t)
	dir := t.TempDir()
	stats := func(stderr string) (int, int) {
		m := composeStats.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("no cache statistics:\n%s", stderr)
		}
		runs, _ := strconv.Atoi(m[1])
		hits, _ := strconv.Atoi(m[2])
		return runs, hits
	}
	full := filepath.Join(dir, "full.jsonl")
	code, _, stderr := runPDB(context.Background(), append(append([]string(nil), base...), "-out", full, "-cache", filepath.Join(dir, "c1"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fullRuns, _ := stats(stderr)

	out := filepath.Join(dir, "resumed.jsonl")
	args := append(append([]string(nil), base...), "-out", out, "-cache", filepath.Join(dir, "c2"))
	ctx, cancel := context.WithCancel(context.Background())
	w := &clitest.CancelAfter{Marker: "compose k=2", Cancel: cancel}
	var stdout bytes.Buffer
	code = run(ctx, args, &stdout, w)
	cancel()
	if code == 0 {
		t.Fatalf("the interrupted run succeeded:\n%s", w.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the interrupted run wrote its output")
	}
	code, _, stderr = runPDB(context.Background(), args...)
	if code != 0 {
		t.Fatalf("resumed: exit %d: %s", code, stderr)
	}
	runs, hits := stats(stderr)
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile(full)
	if !bytes.Equal(got, want) {
		t.Errorf("resumed output differs:\n%s\nwant\n%s", got, want)
	}
	if hits < 6 || runs >= fullRuns {
		t.Errorf("resumed run: %d runs, %d cache hits; uninterrupted: %d runs (want the 6 bugs' validations from the cache)", runs, hits, fullRuns)
	}
}
