package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
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
	root, marker := hostileFixture(t)
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
	l := NewLocal(Options{Jobs: 2, Env: []string{"HOSTILE_TARGET=" + target, "HOSTILE_ADDR=" + ln.Addr().String()}})
	defer l.Close()
	ctx := context.Background()
	run := func(pkg string, limits task.Limits, args ...string) *task.Report {
		rep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{pkg}}, Limits: limits, Args: args})
		require.NoError(t, err)
		return rep
	}

	t.Run("sleep forever", func(t *testing.T) {
		rep := run("sleep", task.Limits{Timeout: 10 * time.Second}, "-timeout=1h")
		checkSleepForever(t, rep, marker)
	})
	t.Run("fork a daemon", func(t *testing.T) {
		rep := run("fork", task.Limits{Timeout: time.Minute})
		assert.Equal(t, task.RunOK, rep.State, rep.Detail)
		if hasNote(rep, "pid namespace unavailable") {
			t.Skipf("no pid namespace here; daemon left: %v", processesWith("987655"))
		}
		assert.Eventually(t, func() bool { return len(processesWith("987655")) == 0 }, 30*time.Second, 50*time.Millisecond,
			"the daemon outlived the run: %v", processesWith("987655"))
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
	root, marker := hostileFixture(t)
	l := NewLocal(Options{NoIsolation: true, Jobs: 1})
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest,
		Select: task.Selection{Files: []string{"sleep"}}, Limits: task.Limits{Timeout: 8 * time.Second}, Args: []string{"-timeout=1h"}})
	require.NoError(t, err)
	assert.True(t, hasNote(rep, "isolation disabled"))
	// The process group is killed even without a pid namespace.
	checkSleepForever(t, rep, marker)
}

// hostileFixture copies testdata/hostile and gives the copy's sleep test a duration of its
// own, the marker its processes are found by: another run of the fixture (a package run in
// parallel, a second go test of this package, an earlier test's processes still being
// reaped) then cannot be mistaken for this one's.
func hostileFixture(t *testing.T) (root, marker string) {
	t.Helper()
	root = fixture(t, "hostile")
	sleepSeq++
	marker = strconv.Itoa(800000000 + os.Getpid()%1000000*100 + sleepSeq%100)
	f := filepath.Join(root, "sleep", "sleep_test.go")
	src, err := os.ReadFile(f)
	require.NoError(t, err)
	require.Contains(t, string(src), `"987654"`)
	require.NoError(t, os.WriteFile(f, []byte(strings.ReplaceAll(string(src), `"987654"`, strconv.Quote(marker))), 0o644))
	return root, marker
}

var sleepSeq int

// checkSleepForever checks the run of testdata/hostile/sleep without timing assumptions:
// the run timed out; the test, when the report names it, got Timeout or (when a loaded
// machine spent most of the limit building, so that it was cut off just after it started,
// and its re-runs too) NotRun, never a verdict of its own; and no process of the run
// survives (the kill is asynchronous: polled for up to 30 s).
func checkSleepForever(t *testing.T, rep *task.Report, marker string) {
	t.Helper()
	assert.Equal(t, task.RunTimeout, rep.State, rep.Detail)
	if tr, ok := rep.Result("example.com/hostile/sleep.TestForever"); ok {
		assert.Contains(t, []task.Outcome{task.Timeout, task.NotRun}, tr.Outcome, tr.Message)
	}
	assert.Eventually(t, func() bool { return len(processesWith(marker)) == 0 }, 30*time.Second, 50*time.Millisecond,
		"processes of the run survived: %v", processesWith(marker))
}

// TestHostileFreshNamespaces runs the containment checks with new namespaces per run (the
// path taken when slots cannot keep namespaces, e.g. without nsenter or as non-root).
func TestHostileFreshNamespaces(t *testing.T) {
	needGo(t)
	root, _ := hostileFixture(t)
	target := filepath.Join(t.TempDir(), "host-file")
	require.NoError(t, os.WriteFile(target, []byte("original"), 0o644))
	l := NewLocal(Options{Jobs: 1, Env: []string{"HOSTILE_TARGET=" + target}})
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
	assert.Eventually(t, func() bool { return len(processesWith("987655")) == 0 }, 30*time.Second, 50*time.Millisecond)
}

// TestHolderRetiredAfterDaemon checks that a run leaving a daemon gets a fresh namespace
// holder, and that the next run in the slot works.
func TestHolderRetiredAfterDaemon(t *testing.T) {
	needGo(t)
	root, _ := hostileFixture(t)
	l := NewLocal(Options{Jobs: 1})
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

// stdlibEntries hashes the build cache entries (export data) of a few standard packages in
// cache, as `go list -export` finds them.
func stdlibEntries(t *testing.T, cache string) map[string]string {
	cmd := exec.Command("go", "list", "-export", "-f", "{{.Export}}", "testing", "fmt", "runtime", "os")
	cmd.Env = append(os.Environ(), "GOCACHE="+cache, "GOFLAGS=")
	out, err := cmd.Output()
	require.NoError(t, err)
	m := map[string]string{}
	for _, p := range strings.Fields(string(out)) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		m[p] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	require.Len(t, m, 4)
	return m
}

// ownedBy lists the files and directories under dir owned by uid.
func ownedBy(t *testing.T, dir string, uid int) []string {
	var found []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil && info.Sys().(*syscall.Stat_t).Uid == uint32(uid) {
			found = append(found, p)
		}
		return nil
	}))
	return found
}

// devState describes the host's device nodes a run's /dev binds: owner, group and mode.
func devState(t *testing.T) []string {
	var out []string
	for _, n := range []string{"null", "zero", "full", "random", "urandom", "tty"} {
		fi, err := os.Stat("/dev/" + n)
		require.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		out = append(out, fmt.Sprintf("%s %d:%d %s", n, st.Uid, st.Gid, fi.Mode()))
	}
	return out
}

func dirNames(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestHostileAttacks runs the attacks of testdata/hostile/attack (Go) and
// testdata/hostile/pyattack (pytest) through the local runner: each must fail, and the host
// must be unchanged afterwards (its /tmp, /dev, /dev/shm, hostname and core pattern, the
// checkout, the user's and faultline's build caches); a secret in the parent's environment
// must appear in no report, and a plain `go test` of an unrelated module with the user's
// cache must behave normally. FAULTLINE_ACCEPTANCE adds the slow attacks (rebuilding the
// testing package into the cache, 2 GiB written against the default quota).
func TestHostileAttacks(t *testing.T) {
	needGo(t)
	full := acceptance.On()
	root, _ := hostileFixture(t)
	// Only the read-only mount (not a directory's permissions) may keep the run's uid out of
	// the checkout.
	for d := root; d != filepath.Dir(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if d == filepath.Clean(os.TempDir()) {
			break
		}
		require.NoError(t, os.Chmod(d, 0o777))
	}
	before := hashTree(t, root)
	mark := fmt.Sprintf("faultline-hostile-%d-%d", os.Getpid(), time.Now().UnixNano())
	hostTmp := filepath.Join(os.TempDir(), mark)
	t.Cleanup(func() { os.Remove(hostTmp) })
	secret := "sk-" + mark + "-secret"
	t.Setenv("OPENAI_API_KEY", secret)
	devBefore := dirNames(t, "/dev")
	nodes := devState(t)
	hostname, _ := os.Hostname()
	core, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
	userCache, err := goEnv("go", "GOCACHE")
	require.NoError(t, err)
	userStd := stdlibEntries(t, userCache["GOCACHE"])

	env := []string{"HOSTILE_HOST_TMP=" + hostTmp, "HOSTILE_CHECKOUT=" + root, "HOSTILE_MARK=" + mark}
	if full {
		env = append(env, "HOSTILE_FULL=1")
	}
	l := NewLocal(Options{Jobs: 1, Env: env})
	defer l.Close()
	layers, err := l.Layers()
	require.NoError(t, err)
	if layers != LayersAll || !l.iso.dropUID {
		t.Skipf("needs every isolation layer as root; here %s: %s", layers, strings.Join(l.Notes(), "; "))
	}
	flCache, _, err := l.goDirs()
	require.NoError(t, err)
	l.opts.Env = append(l.opts.Env, "HOSTILE_GOCACHE="+flCache)
	flStd := stdlibEntries(t, flCache)
	ctx := context.Background()
	var reports []*task.Report

	goRep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"attack"}}, Limits: task.Limits{Timeout: 5 * time.Minute}})
	require.NoError(t, err)
	reports = append(reports, goRep)
	require.Equal(t, task.RunOK, goRep.State, goRep.Detail)
	want := map[string]task.Outcome{}
	for _, n := range []string{"Remount", "WriteDev", "Sethostname", "CorePattern", "DockerSocket", "ReadShadow", "PoisonCache", "GoWorkDir"} {
		want["example.com/hostile/attack.Test"+n] = task.Fail
	}
	want["example.com/hostile/attack.TestWriteDevShm"] = task.Pass
	want["example.com/hostile/attack.TestSecrets"] = task.Pass
	want["example.com/hostile/attack.TestFillDisk"] = task.Skip
	want["example.com/hostile/attack.TestRebuildTesting"] = task.Skip
	got := outcomes(goRep)
	if full {
		// The go command ignores a cache it cannot write, so the rebuild passes when
		// faultline's cache is one the run's uid can reach (XDG_CACHE_HOME outside root's
		// home) and fails when it is not (mkdir under /root): either way nothing may be
		// left in the cache, which the checks below and at the end assert.
		rebuild := got["example.com/hostile/attack.TestRebuildTesting"]
		assert.Contains(t, []task.Outcome{task.Pass, task.Fail}, rebuild, "TestRebuildTesting ran")
		want["example.com/hostile/attack.TestRebuildTesting"] = rebuild
		assert.Empty(t, ownedBy(t, flCache, RunUID), "the run's uid wrote into faultline's build cache")
	}
	assert.Equal(t, want, got)
	for _, tr := range goRep.Tests {
		if tr.Outcome == task.Fail {
			t.Logf("%s: %s", tr.ID, testrun.Truncate(tr.Message, 300))
		}
	}

	if _, err := findPython([]string{"/usr/bin/python3", "python3"}); err == nil {
		pyRep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"pyattack"}}})
		require.NoError(t, err)
		reports = append(reports, pyRep)
		require.Equal(t, task.RunOK, pyRep.State, pyRep.Detail)
		pw := map[string]task.Outcome{}
		for _, n := range []string{"remount", "write_dev", "sethostname", "core_pattern", "docker_socket", "read_shadow"} {
			pw["pyattack/test_attack.py::test_"+n] = task.Fail
		}
		pw["pyattack/test_attack.py::test_write_dev_shm"] = task.Pass
		pw["pyattack/test_attack.py::test_secrets"] = task.Pass
		assert.Equal(t, pw, outcomes(pyRep))
	} else {
		t.Log("pytest attacks skipped: no python3 with pytest")
	}

	// The quota: a small one here (the write stops at once), the default with
	// FAULTLINE_ACCEPTANCE.
	for _, disk := range []int64{64 << 20, 0} {
		if disk == 0 && !full {
			continue
		}
		ql := NewLocal(Options{Jobs: 1, DiskBytes: disk, Env: []string{"HOSTILE_FILL_MB=2048"}})
		rep, err := ql.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: []string{"example.com/hostile/attack.TestFillDisk"}}, Limits: task.Limits{Timeout: 5 * time.Minute}})
		ql.Close()
		require.NoError(t, err)
		reports = append(reports, rep)
		tr, ok := rep.Result("example.com/hostile/attack.TestFillDisk")
		require.True(t, ok, "%+v", rep)
		assert.Equal(t, task.Fail, tr.Outcome)
		assert.Contains(t, tr.Message, "no space left on device")
	}

	// With FAULTLINE_ACCEPTANCE, the cache attacks again against a build cache the run's uid
	// can reach (not below root's home): only the cache's own permissions stop them.
	if full {
		cdir, err := os.MkdirTemp("", "faultline-hostile-cache-")
		require.NoError(t, err)
		defer os.RemoveAll(cdir)
		require.NoError(t, os.Chmod(cdir, 0o755))
		cache := filepath.Join(cdir, "gocache")
		cl := NewLocal(Options{Jobs: 1, GoCache: cache, Env: append(append([]string{}, env...), "HOSTILE_GOCACHE="+cache)})
		rep, err := cl.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Limits: task.Limits{Timeout: 10 * time.Minute},
			Select: task.Selection{IDs: []string{"example.com/hostile/attack.TestPoisonCache", "example.com/hostile/attack.TestRebuildTesting"}}})
		cl.Close()
		require.NoError(t, err)
		reports = append(reports, rep)
		tr, ok := rep.Result("example.com/hostile/attack.TestPoisonCache")
		require.True(t, ok)
		assert.Equal(t, task.Fail, tr.Outcome)
		assert.Contains(t, tr.Message, "permission denied")
		assert.NotContains(t, tr.Message, "/root")
		// The go command ignores a cache it cannot write: the rebuild may pass, but it
		// must not have left anything there.
		_, ok = rep.Result("example.com/hostile/attack.TestRebuildTesting")
		require.True(t, ok)
		assert.Empty(t, ownedBy(t, cache, RunUID), "the run's uid wrote into the build cache")
	}

	// The host afterwards.
	_, err = os.Stat(hostTmp)
	assert.True(t, os.IsNotExist(err), "the host's /tmp got %s", hostTmp)
	_, err = os.Stat(filepath.Join("/dev/shm", mark))
	assert.True(t, os.IsNotExist(err), "the host's /dev/shm got %s", mark)
	assert.Equal(t, nodes, devState(t), "the host's device nodes changed")
	// /dev: nothing new of the run's (other processes on a shared machine may add entries).
	had := map[string]bool{}
	for _, n := range devBefore {
		had[n] = true
	}
	for _, n := range dirNames(t, "/dev") {
		if had[n] {
			continue
		}
		assert.NotContains(t, n, mark)
		if fi, err := os.Lstat(filepath.Join("/dev", n)); err == nil {
			assert.NotEqual(t, uint32(RunUID), fi.Sys().(*syscall.Stat_t).Uid, "/dev/%s was made by the run's uid", n)
		}
		t.Logf("/dev/%s appeared during the suite (not the run's)", n)
	}
	assert.Equal(t, before, hashTree(t, root), "the checkout changed")
	h, _ := os.Hostname()
	assert.Equal(t, hostname, h)
	c, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
	assert.Equal(t, string(core), string(c))
	assert.Equal(t, userStd, stdlibEntries(t, userCache["GOCACHE"]), "the user's build cache changed")
	assert.Equal(t, flStd, stdlibEntries(t, flCache), "faultline's build cache changed")
	assert.Empty(t, ownedBy(t, flCache, RunUID), "the run's uid wrote into faultline's build cache")
	_, err = os.Stat(filepath.Join(flCache, "00", "pwned-d"))
	assert.True(t, os.IsNotExist(err), "a test wrote into faultline's build cache")
	// Not only root's home directory keeps the run's uid out: the cache's own entries are
	// root's and not writable by others.
	for _, d := range []string{"00", "01", "ff"} {
		if fi, err := os.Stat(filepath.Join(flCache, d)); err == nil {
			st := fi.Sys().(*syscall.Stat_t)
			assert.Zero(t, fi.Mode().Perm()&0o002, "%s is writable by others", d)
			assert.NotEqual(t, uint32(RunUID), st.Uid)
		}
	}
	// The holders' own environment (what /proc/1/environ shows inside) holds no secret.
	for _, h := range l.holders {
		if h != nil {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", h.init))
			require.NoError(t, err)
			assert.NotContains(t, string(b), secret)
			var keys []string
			for _, kv := range strings.Split(strings.TrimRight(string(b), "\x00"), "\x00") {
				k, _, _ := strings.Cut(kv, "=")
				keys = append(keys, k)
			}
			assert.Subset(t, []string{"PATH", "LC_ALL", "PWD"}, keys, "the holder's environment: %q", b)
		}
	}
	for _, rep := range reports {
		b, err := json.Marshal(rep)
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret, "the parent's secret reached a report")
		assert.NotContains(t, string(b), "OPENAI_API_KEY")
	}

	// A victim: a plain go test of an unrelated module with the user's cache.
	victim := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(victim, "go.mod"), []byte("module example.com/victim\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(victim, "v_test.go"), []byte("package victim\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) { t.Log(\"victim ran\") }\n"), 0o644))
	cmd := exec.Command("go", "test", "-count=1", "-v", "./...")
	cmd.Dir = victim
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "victim ran")
	assert.NotContains(t, string(out), "pwned")
}
