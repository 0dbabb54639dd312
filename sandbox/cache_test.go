package sandbox

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingRunner reports one passing test whose message is the content of f.txt after the
// overlay, counting its runs; gate (when set) holds each run until closed.
type countingRunner struct {
	runs atomic.Int32
	gate chan struct{}
	cur  atomic.Int32
	peak atomic.Int32
}

func (c *countingRunner) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	c.runs.Add(1)
	n := c.cur.Add(1)
	defer c.cur.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if c.gate != nil {
		<-c.gate
	}
	data, err := os.ReadFile(filepath.Join(req.Root, "f.txt"))
	if err != nil {
		return nil, err
	}
	if ch, ok := req.Overlay["f.txt"]; ok {
		data = ch.Data
	}
	return &task.Report{State: task.RunOK, Wall: time.Millisecond, Tests: []task.TestResult{{ID: "t", Outcome: task.Pass, Message: string(data)}}}, nil
}

func TestCacheHitsAndKeys(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("one"), 0o644))
	cr := &countingRunner{}
	c := NewCache(cr, CacheOptions{})
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.Pytest}

	rep, err := c.Run(ctx, req)
	require.NoError(t, err)
	assert.False(t, rep.Cached)
	rep, err = c.Run(ctx, req)
	require.NoError(t, err)
	assert.True(t, rep.Cached)
	assert.Equal(t, "one", rep.Tests[0].Message)
	assert.Equal(t, Stats{Runs: 1, CacheHits: 1, RunTime: time.Millisecond}, c.Stats())

	// A cached report is a copy: changing it does not change the cache.
	rep.Tests[0].Message = "changed"
	rep, _ = c.Run(ctx, req)
	assert.Equal(t, "one", rep.Tests[0].Message)

	// An overlay with the same content as the file is the same program.
	req.Overlay = task.Overlay{}
	req.Overlay.Set("f.txt", []byte("one"))
	_, err = c.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, int32(1), cr.runs.Load())

	// Different content, selection, kind: different keys.
	req.Overlay.Set("f.txt", []byte("two"))
	rep, _ = c.Run(ctx, req)
	assert.Equal(t, "two", rep.Tests[0].Message)
	req.Select.Files = []string{"x"}
	c.Run(ctx, req)
	req.Kind = task.GoTest
	c.Run(ctx, req)
	assert.Equal(t, int32(4), cr.runs.Load())

	// Editing the file on disk (new size and mtime) changes the key.
	req = task.RunRequest{Root: root, Kind: task.Pytest}
	require.NoError(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("three"), 0o644))
	rep, _ = c.Run(ctx, req)
	assert.Equal(t, "three", rep.Tests[0].Message)
	assert.False(t, rep.Cached)

	// WithoutCache runs again.
	rep, _ = c.Run(WithoutCache(ctx), req)
	assert.False(t, rep.Cached)
	assert.Equal(t, int32(6), cr.runs.Load())

	// A repeat (task.WithRepeat) is kept apart from the first run: it runs, and is then
	// served from the cache itself.
	rep, _ = c.Run(task.WithRepeat(ctx, 1), req)
	assert.False(t, rep.Cached)
	rep, _ = c.Run(task.WithRepeat(ctx, 1), req)
	assert.True(t, rep.Cached)
	rep, _ = c.Run(task.WithRepeat(ctx, 2), req)
	assert.False(t, rep.Cached)
	assert.Equal(t, int32(8), cr.runs.Load())

	_, err = c.Run(ctx, task.RunRequest{Root: filepath.Join(root, "missing"), Kind: task.Pytest})
	assert.Error(t, err)
}

func TestCacheDisk(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("one"), 0o644))
	dir := t.TempDir()
	req := task.RunRequest{Root: root, Kind: task.Pytest}
	cr := &countingRunner{}
	_, err := NewCache(cr, CacheOptions{Dir: dir}).Run(context.Background(), req)
	require.NoError(t, err)
	// A second cache (another process) finds the report on disk.
	c2 := NewCache(cr, CacheOptions{Dir: dir})
	rep, err := c2.Run(context.Background(), req)
	require.NoError(t, err)
	assert.True(t, rep.Cached)
	assert.Equal(t, "one", rep.Tests[0].Message)
	assert.Equal(t, int32(1), cr.runs.Load())
	assert.Equal(t, 1, c2.Stats().CacheHits)

	// A damaged entry is a miss: cut short (a kill mid-write without the rename), not JSON,
	// JSON of another shape, another key's entry, another format's.
	key, err := c2.Key(req)
	require.NoError(t, err)
	whole, err := os.ReadFile(c2.path(key))
	require.NoError(t, err)
	other := strings.Replace(string(whole), key, strings.Repeat("0", len(key)), 1)
	require.NotEqual(t, string(whole), other)
	oldFormat := strings.Replace(string(whole), cacheFormat, "faultline-sandbox-cache/v1", 1)
	require.NotEqual(t, string(whole), oldFormat)
	runs := cr.runs.Load()
	for _, bad := range []string{string(whole[:len(whole)/2]), "{garbage", "{}", "null", other, oldFormat} {
		require.NoError(t, os.WriteFile(c2.path(key), []byte(bad), 0o644))
		rep, err = NewCache(cr, CacheOptions{Dir: dir}).Run(context.Background(), req)
		require.NoError(t, err)
		assert.False(t, rep.Cached, "entry %.40q", bad)
		runs++
		assert.Equal(t, runs, cr.runs.Load())
		// The run replaced the entry with a whole one.
		rep, err = NewCache(cr, CacheOptions{Dir: dir}).Run(context.Background(), req)
		require.NoError(t, err)
		assert.True(t, rep.Cached)
	}

	// Stores leave no temporary files behind, and a leftover one (a kill between create and
	// rename) is not an entry.
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(c2.path(key)), ".tmp-123"), whole[:10], 0o644))
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, filepath.Base(p))
		}
		return err
	}))
	assert.ElementsMatch(t, []string{key + ".json", ".tmp-123"}, files)
	rep, err = NewCache(cr, CacheOptions{Dir: dir}).Run(context.Background(), req)
	require.NoError(t, err)
	assert.True(t, rep.Cached)
}

func TestResultsDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/somewhere")
	d, err := ResultsDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("/somewhere", "faultline", "results"), d)
	// The same rule as faultline's other caches: a sibling of its Go build cache.
	g, err := FaultlineGoCache()
	require.NoError(t, err)
	assert.Equal(t, filepath.Dir(g), filepath.Dir(d))
}

func TestCacheCoalescesAndBounds(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("one"), 0o644))
	cr := &countingRunner{gate: make(chan struct{})}
	c := NewCache(cr, CacheOptions{Jobs: 2})
	ctx := context.Background()
	var wg sync.WaitGroup
	reps := make([]*task.Report, 10)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := task.RunRequest{Root: root, Kind: task.Pytest, Overlay: task.Overlay{}}
			req.Overlay.Set("f.txt", []byte{byte('a' + i%5)}) // 5 distinct programs, 2 requests each
			rep, err := c.Run(ctx, req)
			assert.NoError(t, err)
			reps[i] = rep
		}()
	}
	// Let the requests pile up, then release the runs.
	require.Eventually(t, func() bool { return cr.cur.Load() == 2 }, 5*time.Second, time.Millisecond)
	close(cr.gate)
	wg.Wait()
	assert.Equal(t, int32(5), cr.runs.Load(), "identical requests ran once")
	assert.LessOrEqual(t, cr.peak.Load(), int32(2), "concurrency bound")
	s := c.Stats()
	assert.Equal(t, 5, s.Runs)
	assert.Equal(t, 5, s.Coalesced+s.CacheHits)
	for i, rep := range reps {
		assert.Equal(t, string(rune('a'+i%5)), rep.Tests[0].Message)
	}
}

func TestCacheWithLocalKeys(t *testing.T) {
	l1 := NewLocal(Options{Env: []string{"A=1"}})
	l2 := NewLocal(Options{Env: []string{"A=2"}})
	req := task.RunRequest{Root: "/r", Kind: task.GoTest}
	assert.NotEqual(t, l1.RunKey(req), l2.RunKey(req))
	req2 := req
	req2.Limits.Timeout = time.Hour
	assert.NotEqual(t, l1.RunKey(req), l1.RunKey(req2))
	req2 = req
	req2.Limits.Timeout = DefaultTimeout // the same effective limit
	assert.Equal(t, l1.RunKey(req), l1.RunKey(req2))
}

// limitRunner reports a run of wall time wall that timed out when the limit was shorter.
type limitRunner struct {
	wall time.Duration
	runs int
}

func (l *limitRunner) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	l.runs++
	if req.Limits.Timeout > 0 && req.Limits.Timeout <= l.wall {
		return &task.Report{State: task.RunTimeout, Wall: req.Limits.Timeout}, nil
	}
	return &task.Report{State: task.RunOK, Wall: l.wall, Tests: []task.TestResult{{ID: "t", Outcome: task.Pass}}}, nil
}

func TestCacheTimeouts(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("one"), 0o644))
	dir := t.TempDir()
	lr := &limitRunner{wall: 3 * time.Second}
	run := func(limit time.Duration) *task.Report {
		t.Helper()
		// A new cache each time: what is on disk decides, as in a run started again.
		rep, err := NewCache(lr, CacheOptions{Dir: dir}).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest, Limits: task.Limits{Timeout: limit}})
		require.NoError(t, err)
		return rep
	}
	for _, step := range []struct {
		limit  time.Duration
		state  task.RunState
		cached bool
		why    string
	}{
		{10 * time.Second, task.RunOK, false, "first run"},
		{10 * time.Second, task.RunOK, true, "same limit"},
		{11 * time.Second, task.RunOK, true, "finished in 3 s: finishes under any longer limit"},
		{4 * time.Second, task.RunOK, true, "and under a shorter one it beat"},
		{2 * time.Second, task.RunTimeout, false, "not under one it did not beat: runs again"},
		{time.Second, task.RunTimeout, true, "timed out at 2 s: times out at 1 s"},
		{2500 * time.Millisecond, task.RunTimeout, false, "not known at 2.5 s: runs again"},
		{0, task.RunOK, false, "the runner's default limit is only equal to itself"},
		{0, task.RunOK, true, "same default"},
	} {
		rep := run(step.limit)
		assert.Equal(t, step.state, rep.State, step.why)
		assert.Equal(t, step.cached, rep.Cached, step.why)
	}
	assert.Equal(t, 4, lr.runs)
}

// TestStampOf: the build a cache key names, from the build information of a program that
// imports faultline (released, replaced) or is faultline (released, a VCS build, clean or
// modified, and a build without VCS information such as a test binary).
func TestStampOf(t *testing.T) {
	dep := func(m *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/bench"}, Deps: []*debug.Module{
			{Path: "github.com/stretchr/testify", Version: "v1.11.1", Sum: "h1:x"}, m}}
	}
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"dependency", dep(&debug.Module{Path: module, Version: "v0.7.0", Sum: "h1:abc"}), "v0.7.0 h1:abc"},
		{"replaced dependency", dep(&debug.Module{Path: module, Version: "v0.7.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.7.1", Sum: "h1:def"}}), "replaced:example.com/fork@v0.7.1 h1:def"},
		{"not a dependency", &debug.BuildInfo{Main: debug.Module{Path: "example.com/other"}}, ""},
		{"released main module", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.7.0"}}, "v0.7.0"},
		{"VCS build", vcs("0123abcd", "false"), "0123abcd"},
		{"modified VCS build", vcs("0123abcd", "true"), "0123abcd+dirty"},
		{"test binary", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}}, ""},
	} {
		if got := stampOf(c.bi); got != c.want {
			t.Errorf("%s: stamp %q, want %q", c.name, got, c.want)
		}
	}

	// Two builds' caches key one request differently.
	root := t.TempDir()
	req := task.RunRequest{Root: root, Kind: task.GoTest}
	a, b := NewCache(nil, CacheOptions{}), NewCache(nil, CacheOptions{})
	b.stamp = "0123abcd"
	ka, err := a.Key(req)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := b.Key(req)
	if err != nil {
		t.Fatal(err)
	}
	if ka == kb {
		t.Errorf("builds %q and %q give one key", a.stamp, b.stamp)
	}
}
