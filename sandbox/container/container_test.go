package container

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tc "github.com/testcontainers/testcontainers-go"
)

func needDocker(t testing.TB, image string) *Runner {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := Available(ctx); err != nil {
		t.Skipf("no Docker engine reachable: %v", err)
	}
	r := New(Options{})
	cli, err := r.client(ctx)
	require.NoError(t, err)
	if err := HasImage(ctx, cli, image); err != nil {
		t.Skipf("%v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func copyDir(t testing.TB, src string) string {
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	require.NoError(t, fstree.Copy(src, dst, fstree.Options{Links: true}))
	return dst
}

func outcomes(rep *task.Report) map[string]task.Outcome {
	m := map[string]task.Outcome{}
	for _, tr := range rep.Tests {
		m[tr.ID] = tr.Outcome
	}
	return m
}

// hostProcessesWith lists host processes (container processes included) whose command line
// contains marker.
func hostProcessesWith(marker string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), []byte(marker)) {
			found = append(found, e.Name())
		}
	}
	return found
}

func TestWriteTreeTar(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "d", ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", ".git", "HEAD"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink("run.sh", filepath.Join(root, "d", "link")))
	var buf bytes.Buffer
	require.NoError(t, WriteTreeTar(&buf, root, "pristine"))
	tr := tar.NewReader(&buf)
	got := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got[h.Name] = string(rune(h.Typeflag)) + " " + os.FileMode(h.Mode).Perm().String() + " " + h.Linkname
	}
	assert.Equal(t, map[string]string{
		"pristine/":         "5 " + got["pristine/"][2:12] + " ",
		"pristine/d/":       "5 -rwxr-xr-x ",
		"pristine/d/run.sh": "0 -rwxr-xr-x ",
		"pristine/d/link":   "2 -rwxrwxrwx run.sh",
	}, got)
}

func TestDemux(t *testing.T) {
	var in bytes.Buffer
	frame := func(stream byte, s string) {
		in.Write([]byte{stream, 0, 0, 0, 0, 0, 0, byte(len(s))})
		in.WriteString(s)
	}
	frame(1, "out1 ")
	frame(2, "err")
	frame(1, "out2")
	var o, e bytes.Buffer
	require.NoError(t, demux(&in, &o, &e))
	assert.Equal(t, "out1 out2", o.String())
	assert.Equal(t, "err", e.String())
	assert.Error(t, demux(bytes.NewReader([]byte{1, 0, 0, 0, 0, 0, 0, 9, 'x'}), &o, &e))
}

func TestDockerPytest(t *testing.T) {
	r := needDocker(t, PythonImage)
	root := copyDir(t, "../testdata/pyfix")
	ctx := context.Background()
	rep, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest})
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
	assert.Equal(t, task.Pass, outcomes(rep)["test_mathx.py::test_mul"])
	assert.Equal(t, task.XPass, outcomes(rep)["test_basic.py::test_xpass"])
	assert.Equal(t, task.Error, outcomes(rep)["test_fixtures.py::test_setup_error"])
	// Parameter ids with spaces, brackets that do not balance and the summary's separator
	// (test_params.py) come out as pytest names them, with pytest's verdicts
	// (testdata/pytest-ref/expected.json, recorded by its gen.py).
	b, err := os.ReadFile("../testdata/pytest-ref/expected.json")
	require.NoError(t, err)
	var ref struct {
		Outcomes map[string]task.Outcome `json:"outcomes"`
	}
	require.NoError(t, json.Unmarshal(b, &ref))
	params := 0
	for id, o := range ref.Outcomes {
		if strings.HasPrefix(id, "test_params.py::") {
			params++
			assert.Equal(t, o, outcomes(rep)[id], id)
		}
	}
	assert.Equal(t, 8, params)

	ov := task.Overlay{}
	ov.Set("pkg/mathx.py", []byte("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"))
	rep, err = r.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Overlay: ov, Select: task.Selection{Files: []string{"test_mathx.py"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{"test_mathx.py::test_add": task.Pass, "test_mathx.py::test_mul": task.Fail}, outcomes(rep))

	// The tree is reset between runs: the overlay is gone.
	rep, err = r.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"test_mathx.py"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{"test_mathx.py::test_add": task.Pass, "test_mathx.py::test_mul": task.Pass}, outcomes(rep))
	assert.Equal(t, 1, r.Stats().Containers, "one container reused")

	// Deletions in the overlay.
	del := task.Overlay{}
	del.Remove("test_basic.py")
	del.Remove("test_fixtures.py")
	del.Remove("test_params.py")
	rep, err = r.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Overlay: del})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{"test_mathx.py::test_add": task.Pass, "test_mathx.py::test_mul": task.Pass}, outcomes(rep))

	ids, err := r.List(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"test_mathx.py"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"test_mathx.py::test_add", "test_mathx.py::test_mul"}, ids)

	// A daemon left by one run is gone after the next run starts.
	daemonRoot := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(daemonRoot, "test_d.py"), []byte(
		"import subprocess\n\ndef test_daemon():\n    subprocess.Popen(['sleep', '987656'], start_new_session=True)\n"), 0o644))
	dreq := task.RunRequest{Root: daemonRoot, Kind: task.Pytest}
	rep, err = r.Run(ctx, dreq)
	require.NoError(t, err)
	assert.Equal(t, task.Pass, outcomes(rep)["test_d.py::test_daemon"])
	dreq.Overlay = task.Overlay{}
	dreq.Overlay.Set("test_d.py", []byte("def test_nothing():\n    pass\n"))
	rep, err = r.Run(ctx, dreq)
	require.NoError(t, err)
	assert.Equal(t, task.Pass, outcomes(rep)["test_d.py::test_nothing"])
	assert.Empty(t, hostProcessesWith("987656"))

	// No network inside: a connection attempt fails.
	netRoot := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(netRoot, "test_net.py"), []byte(
		"import socket\n\ndef test_dial():\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n"), 0o644))
	rep, err = r.Run(ctx, task.RunRequest{Root: netRoot, Kind: task.Pytest})
	require.NoError(t, err)
	assert.Equal(t, task.Fail, outcomes(rep)["test_net.py::test_dial"])

	// A test that sleeps forever is killed at the time limit.
	slowRoot := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(slowRoot, "test_slow.py"), []byte(
		"import time\n\ndef test_sleep():\n    time.sleep(3600)\n"), 0o644))
	start := time.Now()
	rep, err = r.Run(ctx, task.RunRequest{Root: slowRoot, Kind: task.Pytest, Limits: task.Limits{Timeout: 3 * time.Second}})
	require.NoError(t, err)
	assert.Equal(t, task.RunTimeout, rep.State)
	assert.Less(t, time.Since(start), 30*time.Second)

	// Collection errors.
	rep, err = r.Run(ctx, task.RunRequest{Root: copyDir(t, "../testdata/pysyntax"), Kind: task.Pytest})
	require.NoError(t, err)
	assert.Equal(t, task.RunCollectionError, rep.State)
	assert.Contains(t, rep.Detail, "SyntaxError")
}

func TestDockerGo(t *testing.T) {
	r := needDocker(t, GoImage)
	root := copyDir(t, "../testdata/gofix")
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"lib", "ok"}}, Limits: task.Limits{Timeout: 3 * time.Minute}}
	rep, err := r.Run(ctx, req)
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
	assert.Equal(t, task.Pass, outcomes(rep)["example.com/gofix/lib.TestAdd"])
	assert.Equal(t, task.Fail, outcomes(rep)["example.com/gofix/ok.TestSub/with_space#01"])
	req.Overlay = task.Overlay{}
	req.Overlay.Set("lib/lib.go", []byte("package lib\n\nfunc Add(a, b int) int { return a - }\n"))
	rep, err = r.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, task.RunBuildFailed, rep.State)
	assert.True(t, strings.Contains(rep.Detail, "lib.go:3"), rep.Detail)
}

func TestMissingImage(t *testing.T) {
	r := needDocker(t, PythonImage)
	r.opts.PythonImage = "faultline/does-not-exist:never"
	_, err := r.Run(context.Background(), task.RunRequest{Root: t.TempDir(), Kind: task.Pytest})
	assert.ErrorIs(t, err, ErrNoImage)
	assert.Contains(t, err.Error(), "build-images.sh")
}

// TestDockerGoDiff runs github.com/sergi/go-diff (from the module cache, with a go.mod that
// resolves offline) in the Go image with the host module cache mounted read-only, and checks
// the verdicts against the local runner's.
func TestDockerGoDiff(t *testing.T) {
	acceptance.Skip(t, "runs the tests of github.com/sergi/go-diff, a real repository, in Docker")
	needDocker(t, GoImage)
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("go not found")
	}
	modcache := strings.TrimSpace(string(out))
	src := filepath.Join(modcache, "github.com", "sergi", "go-diff@v1.4.0")
	if _, err := os.Stat(src); err != nil {
		t.Skip("go-diff not in the module cache")
	}
	root := copyDir(t, src)
	require.NoError(t, exec.Command("chmod", "-R", "u+w", root).Run())
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"),
		[]byte("module github.com/sergi/go-diff\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.12.1\n"), 0o644))
	os.Remove(filepath.Join(root, "go.sum"))
	r := New(Options{GoModCache: modcache})
	defer r.Close()
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Limits: task.Limits{Timeout: 5 * time.Minute}}
	ids, err := r.List(ctx, req)
	require.NoError(t, err)
	require.NotEmpty(t, ids)
	rep, err := r.Run(ctx, req)
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.True(t, rep.Green(), "%v", rep.Failing())
	var top []string
	for _, tr := range rep.Tests {
		if !strings.Contains(strings.TrimPrefix(tr.ID, "github.com/sergi/go-diff/diffmatchpatch."), "/") {
			top = append(top, tr.ID)
		}
	}
	assert.Equal(t, ids, top)
}

func FuzzDemux(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 2, 'h', 'i', 2, 0, 0, 0, 0, 0, 0, 1, 'e'})
	f.Add([]byte{1, 0, 0, 0, 255, 255, 255, 255})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var o, e bytes.Buffer
		err := demux(bytes.NewReader(data), &o, &e)
		if o.Len()+e.Len() > len(data) {
			t.Fatalf("more output than input")
		}
		if err == nil && o.Len()+e.Len() == 0 && len(data) >= 8 && (data[4]|data[5]|data[6]|data[7]) != 0 {
			t.Fatalf("a frame with a payload produced no output and no error")
		}
	})
}

func TestBuildImagesIdempotent(t *testing.T) {
	needDocker(t, GoImage)
	var log bytes.Buffer
	require.NoError(t, BuildImages(context.Background(), BuildAll, false, &log))
	assert.Contains(t, log.String(), "build-images: "+PythonImage+" exists")
	assert.Contains(t, log.String(), "build-images: "+GoImage+" exists")
	assert.Error(t, BuildImages(context.Background(), "rust", false, nil))
}

// TestDockerCacheNotPoisoned runs the hostile suite's cache attack in a container: the test
// binaries run in a container without the shared build cache volume (only the builder
// mounts it), so writing into it fails; and go flags that would run a program in the
// builder are refused before anything runs.
func TestDockerCacheNotPoisoned(t *testing.T) {
	r := needDocker(t, GoImage)
	root := copyDir(t, "../testdata/hostile")
	r.opts.Env = []string{"HOSTILE_GOCACHE=/gocache"}
	ctx := context.Background()
	id := "example.com/hostile/attack.TestPoisonCache"
	rep, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: []string{id}}, Limits: task.Limits{Timeout: 3 * time.Minute}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
	tr, ok := rep.Result(id)
	require.True(t, ok)
	assert.Equal(t, task.Fail, tr.Outcome)
	assert.Contains(t, tr.Message, "no such file or directory")
	// The volume itself: the builder sees no file the attack could have written.
	b := r.boxes[firstKey(r)]
	require.NotNil(t, b)
	var out bytes.Buffer
	code, err := r.exec(ctx, b.bid, []string{"/bin/sh", "-c", "test ! -e /gocache/00/pwned-d && test -d /gocache/00"}, nil, "/", &out, &out)
	require.NoError(t, err)
	assert.Equal(t, 0, code, out.String())

	for _, args := range [][]string{{"-toolexec=/work/tree/evil"}, {"-ldflags=-linkmode=external -extld=/work/tree/evil"}} {
		_, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: []string{id}}, Args: args})
		assert.ErrorIs(t, err, sandbox.ErrBadRequest, args)
	}
}

func firstKey(r *Runner) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, b := range r.boxes {
		if b.bid != "" {
			return k
		}
	}
	return ""
}

// TestDockerHostileAttacks runs sandbox's attack suites (testdata/hostile/attack for Go,
// testdata/hostile/pyattack for pytest when the Python image exists) in the Docker runner.
// Inside its container a test may be root and write the container's own /tmp or /dev; what
// must hold is the host's side: its /tmp, /dev, /dev/shm, hostname and core pattern and the
// checkout unchanged, no Docker socket, no host-wide setting changed, the shared build
// cache's entries for the standard library unchanged, the parent's secret in no report,
// and, once the runner is closed, no container or volume of this process left (`docker ps
// -a` as it was).
func TestDockerHostileAttacks(t *testing.T) {
	r := needDocker(t, GoImage)
	ctx := context.Background()
	ownedBefore := ownedByThisProcess(t)
	require.Empty(t, ownedBefore, "containers or volumes of this process before the suite")
	root := copyDir(t, "../testdata/hostile")
	mark := fmt.Sprintf("faultline-hostile-docker-%d-%d", os.Getpid(), time.Now().UnixNano())
	hostTmp := filepath.Join(os.TempDir(), mark)
	t.Cleanup(func() { os.Remove(hostTmp) })
	secret := "sk-" + mark
	t.Setenv("OPENAI_API_KEY", secret)
	devBefore, err := os.ReadDir("/dev")
	require.NoError(t, err)
	hostname, _ := os.Hostname()
	core, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
	before := treeDigest(t, root)
	r.opts.Env = []string{"HOSTILE_HOST_TMP=" + hostTmp, "HOSTILE_CHECKOUT=" + root, "HOSTILE_MARK=" + mark, "HOSTILE_GOCACHE=/gocache"}
	// A harmless run first: it starts the builder, which reads the shared cache.
	warm, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: []string{"example.com/hostile/attack.TestWriteDevShm"}}, Limits: task.Limits{Timeout: 3 * time.Minute}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, warm.State, warm.Detail+warm.Output)
	stdBefore := volumeStdlib(t, r)
	rep, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"attack"}}, Limits: task.Limits{Timeout: 3 * time.Minute}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
	reports := []*task.Report{rep}
	got := outcomes(rep)
	for _, n := range []string{"Sethostname", "CorePattern", "DockerSocket", "PoisonCache", "GoWorkDir"} {
		assert.Equal(t, task.Fail, got["example.com/hostile/attack.Test"+n], n)
	}

	cli, err := r.client(ctx)
	require.NoError(t, err)
	if HasImage(ctx, cli, PythonImage) == nil {
		pyRep, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"pyattack"}}, Limits: task.Limits{Timeout: 3 * time.Minute}})
		require.NoError(t, err)
		require.Equal(t, task.RunOK, pyRep.State, pyRep.Detail+pyRep.Output)
		reports = append(reports, pyRep)
		pg := outcomes(pyRep)
		for _, n := range []string{"sethostname", "core_pattern", "docker_socket"} {
			assert.Equal(t, task.Fail, pg["pyattack/test_attack.py::test_"+n], n)
		}
		assert.Equal(t, task.Pass, pg["pyattack/test_attack.py::test_secrets"])
	} else {
		t.Logf("pytest attacks skipped: no %s image", PythonImage)
	}
	// The builder's view of the shared cache is what it was before the attacks.
	assert.Equal(t, stdBefore, volumeStdlib(t, r), "the shared build cache's standard library entries changed")

	_, err = os.Stat(hostTmp)
	assert.True(t, os.IsNotExist(err), "the host's /tmp got %s", hostTmp)
	_, err = os.Stat(filepath.Join("/dev/shm", mark))
	assert.True(t, os.IsNotExist(err))
	_, err = os.Stat(filepath.Join("/dev", mark))
	assert.True(t, os.IsNotExist(err))
	devAfter, err := os.ReadDir("/dev")
	require.NoError(t, err)
	assert.Equal(t, len(devBefore), len(devAfter))
	h, _ := os.Hostname()
	assert.Equal(t, hostname, h)
	c, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
	assert.Equal(t, string(core), string(c))
	assert.Equal(t, before, treeDigest(t, root), "the checkout changed")
	for _, rep := range reports {
		b, err := json.Marshal(rep)
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret)
		assert.NotContains(t, string(b), "OPENAI_API_KEY")
	}
	require.NoError(t, r.Close())
	assert.Empty(t, ownedByThisProcess(t), "containers or volumes left after Close")
}

// ownedByThisProcess lists the containers (running or not, as `docker ps -a`) and volumes
// whose owner label names this process.
func ownedByThisProcess(t *testing.T) []string {
	ctx := context.Background()
	disableReaper()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	require.NoError(t, err)
	defer cli.Close()
	me := self()
	var found []string
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", LabelPID+"="+me.pid)})
	require.NoError(t, err)
	for _, c := range cs.Items {
		if c.Labels[LabelHost] == me.host && c.Labels[LabelStart] == me.start {
			found = append(found, "container "+c.ID)
		}
	}
	vs, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: client.Filters{}.Add("label", LabelPID+"="+me.pid)})
	require.NoError(t, err)
	for _, v := range vs.Items {
		if v.Labels[LabelHost] == me.host && v.Labels[LabelStart] == me.start {
			found = append(found, "volume "+v.Name)
		}
	}
	return found
}

// volumeStdlib hashes, in the builder of r's first Go box, the shared build cache's entries
// (export data) of a few standard packages.
func volumeStdlib(t *testing.T, r *Runner) string {
	b := r.boxes[firstKey(r)]
	require.NotNil(t, b)
	var out, errb bytes.Buffer
	code, err := r.exec(context.Background(), b.bid, []string{"/bin/sh", "-c",
		"go list -export -f '{{.Export}}' testing fmt runtime os | xargs sha256sum"}, []string{"GOCACHE=/gocache", "GOFLAGS=", "GOPROXY=off"}, "/", &out, &errb)
	require.NoError(t, err)
	require.Equal(t, 0, code, errb.String())
	require.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), 4, out.String())
	return out.String()
}

// treeDigest hashes the paths and contents of the files under root.
func treeDigest(t *testing.T, root string) string {
	h := sha256.New()
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		io.WriteString(h, p+"\x00")
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	}))
	return fmt.Sprintf("%x", h.Sum(nil))
}
