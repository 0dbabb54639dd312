package sandbox

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// processesWith lists host processes whose command line contains marker.
func processesWith(marker string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if bytes.Contains(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), []byte(marker)) {
			found = append(found, e.Name()+": "+string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	return found
}

func hasNote(rep *task.Report, sub string) bool {
	for _, n := range rep.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func TestHostile(t *testing.T) {
	needGo(t)
	root := fixture(t, "hostile")
	before := hashTree(t, root)
	target := filepath.Join(t.TempDir(), "host-file")
	require.NoError(t, os.WriteFile(target, []byte("original"), 0o644))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	l := NewLocal(Options{Concurrency: 2, Env: []string{"HOSTILE_TARGET=" + target, "HOSTILE_ADDR=" + ln.Addr().String()}})
	defer l.Close()
	ctx := context.Background()
	run := func(pkg string, limits task.Limits, args ...string) *task.Report {
		rep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{pkg}}, Limits: limits, Args: args})
		require.NoError(t, err)
		return rep
	}

	t.Run("sleep forever", func(t *testing.T) {
		rep := run("sleep", task.Limits{Timeout: 10 * time.Second}, "-timeout=1h")
		assert.Equal(t, task.RunTimeout, rep.State)
		if tr, ok := rep.Result("example.com/hostile/sleep.TestForever"); ok {
			assert.Equal(t, task.Timeout, tr.Outcome)
		}
		assert.Empty(t, processesWith("987654"), "processes of the run survived")
	})
	t.Run("fork a daemon", func(t *testing.T) {
		rep := run("fork", task.Limits{Timeout: time.Minute})
		assert.Equal(t, task.RunOK, rep.State, rep.Detail)
		time.Sleep(200 * time.Millisecond)
		left := processesWith("987655")
		if hasNote(rep, "pid namespace unavailable") {
			t.Skipf("no pid namespace here; daemon left: %v", left)
		}
		assert.Empty(t, left, "the daemon outlived the run")
	})
	t.Run("print 100MB", func(t *testing.T) {
		rep := run("print", task.Limits{Timeout: 2 * time.Minute, OutputBytes: 1 << 20})
		assert.Equal(t, task.RunOK, rep.State, rep.Detail)
		tr, ok := rep.Result("example.com/hostile/print.TestFlood")
		require.True(t, ok)
		assert.Equal(t, task.Pass, tr.Outcome)
		assert.LessOrEqual(t, len(rep.Output), 2<<20)
	})
	t.Run("write outside", func(t *testing.T) {
		rep := run("escape", task.Limits{Timeout: time.Minute})
		got, err := os.ReadFile(target)
		require.NoError(t, err)
		if hasNote(rep, "filesystem isolation unavailable") || hasNote(rep, "isolation disabled") {
			t.Skip("no filesystem isolation here: " + strings.Join(rep.Notes, "; "))
		}
		assert.Equal(t, "original", string(got), "the host file was changed")
		tr, ok := rep.Result("example.com/hostile/escape.TestWriteOutside")
		require.True(t, ok)
		assert.Equal(t, task.Fail, tr.Outcome)
		assert.Regexp(t, "read-only file system|permission denied", tr.Message)
		in, ok := rep.Result("example.com/hostile/escape.TestWriteInside")
		require.True(t, ok)
		assert.Equal(t, task.Pass, in.Outcome, in.Message)
	})
	t.Run("network", func(t *testing.T) {
		rep := run("net", task.Limits{Timeout: time.Minute})
		assert.Equal(t, task.RunOK, rep.State, rep.Detail)
		dial, ok := rep.Result("example.com/hostile/net.TestDial")
		require.True(t, ok)
		if hasNote(rep, "network") {
			return // isolation unavailable is reported
		}
		assert.Equal(t, task.Fail, dial.Outcome, "the test reached the host network")
		lo, ok := rep.Result("example.com/hostile/net.TestLoopback")
		require.True(t, ok)
		assert.Equal(t, task.Pass, lo.Outcome, "loopback must work inside the namespace: %s", lo.Message)
	})
	assert.Equal(t, before, hashTree(t, root))
}

func TestHostileWithoutIsolation(t *testing.T) {
	needGo(t)
	root := fixture(t, "hostile")
	l := NewLocal(Options{NoIsolation: true, Concurrency: 1})
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest,
		Select: task.Selection{Files: []string{"sleep"}}, Limits: task.Limits{Timeout: 8 * time.Second}, Args: []string{"-timeout=1h"}})
	require.NoError(t, err)
	assert.Equal(t, task.RunTimeout, rep.State)
	assert.True(t, hasNote(rep, "isolation disabled"))
	// The process group is killed even without a pid namespace.
	time.Sleep(200 * time.Millisecond)
	assert.Empty(t, processesWith("987654"))
}

// TestHostileFreshNamespaces runs the containment checks with new namespaces per run (the
// path taken when slots cannot keep namespaces, e.g. without nsenter or as non-root).
func TestHostileFreshNamespaces(t *testing.T) {
	needGo(t)
	root := fixture(t, "hostile")
	target := filepath.Join(t.TempDir(), "host-file")
	require.NoError(t, os.WriteFile(target, []byte("original"), 0o644))
	l := NewLocal(Options{Concurrency: 1, Env: []string{"HOSTILE_TARGET=" + target}})
	l.freshNS = true
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"escape", "fork"}}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	if hasNote(rep, "unavailable") || hasNote(rep, "disabled") {
		t.Skip("isolation unavailable here: " + strings.Join(rep.Notes, "; "))
	}
	assert.Equal(t, map[string]task.Outcome{
		"example.com/hostile/escape.TestWriteOutside": task.Fail,
		"example.com/hostile/escape.TestWriteInside":  task.Pass,
		"example.com/hostile/fork.TestDaemon":         task.Pass,
	}, outcomes(rep))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "original", string(got))
	time.Sleep(200 * time.Millisecond)
	assert.Empty(t, processesWith("987655"))
}

// TestHolderRetiredAfterDaemon checks that a run leaving a daemon gets a fresh namespace
// holder, and that the next run in the slot works.
func TestHolderRetiredAfterDaemon(t *testing.T) {
	needGo(t)
	root := fixture(t, "hostile")
	l := NewLocal(Options{Concurrency: 1})
	defer l.Close()
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"fork"}}}
	_, err := l.Run(ctx, req)
	require.NoError(t, err)
	if l.iso.nsenter == "" {
		t.Skip("slots do not keep namespaces here")
	}
	first := l.holders[0]
	assert.Nil(t, first, "the holder with a daemon in it was retired")
	assert.Empty(t, processesWith("987655"))
	req.Select.Files = []string{"escape"}
	rep, err := l.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, rep.State)
	require.NotNil(t, l.holders[0])
	assert.True(t, l.holders[0].alive())
	assert.False(t, l.holders[0].leftovers())
}
