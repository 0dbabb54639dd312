package container

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDockerRerunsMatchLocal runs the re-run rule's fixtures through the Docker runner and
// the local runner (whose verdicts the sandbox tests compare with each test run alone): the
// reports' verdicts are the same.
func TestDockerRerunsMatchLocal(t *testing.T) {
	r := needDocker(t, GoImage)
	l := sandbox.NewLocal(sandbox.Options{Jobs: 1})
	defer l.Close()
	goRoot := copyDir(t, "../testdata/verdict/go")
	pyRoot := copyDir(t, "../testdata/verdict/py")
	corrupt := task.Overlay{}
	corrupt.Set("first/parse.go", []byte("package first\n\nfunc MustParse(s string) int { panic(\"corrupted MustParse(\" + s + \")\") }\n"))
	cases := []struct {
		name string
		req  task.RunRequest
	}{
		{"go-first", task.RunRequest{Root: goRoot, Kind: task.GoTest, Overlay: corrupt, Select: task.Selection{Files: []string{"first"}}}},
		{"go-exit", task.RunRequest{Root: goRoot, Kind: task.GoTest, Select: task.Selection{Files: []string{"exit", "exitzero"}}}},
		{"go-parallel", task.RunRequest{Root: goRoot, Kind: task.GoTest, Select: task.Selection{Files: []string{"parallel"}}}},
		{"go-ids", task.RunRequest{Root: goRoot, Kind: task.GoTest, Overlay: corrupt, Select: task.Selection{IDs: []string{
			"example.com/verdict/first.TestParsesFirst", "example.com/verdict/first.TestZLast", "example.com/verdict/exit.TestB"}}}},
		{"py-crash", task.RunRequest{Root: pyRoot, Kind: task.Pytest, Select: task.Selection{Files: []string{"crash"}}}},
		{"py-coll", task.RunRequest{Root: pyRoot, Kind: task.Pytest, Select: task.Selection{Files: []string{"coll", "collcrash"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.req.Kind == task.Pytest {
				needImage(t, r, PythonImage)
			}
			want, err := l.Run(context.Background(), c.req)
			require.NoError(t, err)
			got, err := r.Run(context.Background(), c.req)
			require.NoError(t, err)
			assert.Equal(t, want.State, got.State, got.Detail)
			assert.Equal(t, outcomes(want), outcomes(got))
			assert.NotEmpty(t, got.Tests)
			assert.True(t, hasNote(got, "re-runs: "), "%v", got.Notes)
		})
	}
}

func needImage(t *testing.T, r *Runner, image string) {
	cli, err := r.client(context.Background())
	require.NoError(t, err)
	if err := HasImage(context.Background(), cli, image); err != nil {
		t.Skipf("%v", err)
	}
}

func hasNote(rep *task.Report, sub string) bool {
	for _, n := range rep.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

// TestDockerForgedVerdicts: the forging fixtures never turn a failure into a pass in a
// container either (untrusted, or the failure stands).
func TestDockerForgedVerdicts(t *testing.T) {
	r := needDocker(t, GoImage)
	goRoot := copyDir(t, "../testdata/forge/go")
	pyRoot := copyDir(t, "../testdata/forge/py")
	cases := []struct {
		kind      task.TestKind
		root, dir string
		fail      string
		untrusted bool
	}{
		{task.GoTest, goRoot, "fakepass", "example.com/forge/fakepass.TestFail", true},
		{task.GoTest, goRoot, "frames", "example.com/forge/frames.TestFail", false},
		{task.GoTest, goRoot, "plainpass", "example.com/forge/plainpass.TestFail", false},
		{task.GoTest, goRoot, "exitzero", "example.com/forge/exitzero.TestFail", false},
		{task.Pytest, pyRoot, "junit", "junit/test_x.py::test_fail", true},
		{task.Pytest, pyRoot, "all", "all/test_x.py::test_fail", true},
		{task.Pytest, pyRoot, "exit0", "exit0/test_x.py::test_fail", true},
		{task.Pytest, pyRoot, "lines", "lines/test_x.py::test_fail", true},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			rep, err := r.Run(context.Background(), task.RunRequest{Root: c.root, Kind: c.kind, Select: task.Selection{Files: []string{c.dir}}})
			require.NoError(t, err)
			if c.untrusted {
				assert.Equal(t, task.RunUntrusted, rep.State, rep.Detail)
			} else {
				assert.Equal(t, task.RunOK, rep.State, rep.Detail)
				tr, _ := rep.Result(c.fail)
				assert.Equal(t, task.Fail, tr.Outcome, tr.Message)
			}
			assert.False(t, rep.AllPassed([]string{c.fail}))
		})
	}
}

// TestDockerNoWritableCache: a test cannot write the shared build cache (not mounted in the
// test container) or the test binaries (read-only).
func TestDockerNoWritableCache(t *testing.T) {
	r := needDocker(t, GoImage)
	root := copyDir(t, "../testdata/forge/go")
	rep, err := r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"poison"}}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	tr, _ := rep.Result("example.com/forge/poison.TestPoison")
	assert.Equal(t, task.Pass, tr.Outcome, tr.Message)
}

func TestDockerCommand(t *testing.T) {
	r := needDocker(t, PythonImage)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "prog.py"), []byte("import sys\nprint('hi')\nsys.exit(int(sys.argv[1]))\n"), 0o644))
	for code, want := range map[string]task.Outcome{"0": task.Pass, "3": task.Fail} {
		rep, err := r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Command, Args: []string{"python3", "prog.py", code}})
		require.NoError(t, err)
		assert.Equal(t, task.RunOK, rep.State, rep.Detail)
		assert.Equal(t, map[string]task.Outcome{task.CommandTestID: want}, outcomes(rep))
		assert.Contains(t, rep.Output, "hi")
	}
	rep, err := r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Command, Args: []string{"sleep", "60"}, Limits: task.Limits{Timeout: 2 * time.Second}})
	require.NoError(t, err)
	assert.Equal(t, task.RunTimeout, rep.State)
	_, err = r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Command})
	assert.ErrorIs(t, err, sandbox.ErrBadRequest)
}

const reapHelperEnv = "FAULTLINE_REAP_HELPER"

// TestReapHelper is the owning process TestReapAfterKill kills: it starts a Go run whose
// test sleeps, so its containers and volume exist, and waits to be killed.
func TestReapHelper(t *testing.T) {
	root := os.Getenv(reapHelperEnv)
	if root == "" {
		t.Skip("run by TestReapAfterKill in a child process")
	}
	r := New(Options{})
	go func() {
		r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"sleep"}}, Limits: task.Limits{Timeout: 10 * time.Minute}})
	}()
	// Report the run id once a test container of this runner is up.
	for {
		time.Sleep(200 * time.Millisecond)
		r.mu.Lock()
		n := r.stats.Containers
		r.mu.Unlock()
		if n >= 2 {
			os.Stdout.WriteString("RUNNING " + r.runID + "\n")
			break
		}
	}
	time.Sleep(10 * time.Minute)
}

// TestReapAfterKill kills the process that owns a runner in the middle of a run (no Close)
// and checks that the next New removes its containers and volume.
func TestReapAfterKill(t *testing.T) {
	r := needDocker(t, GoImage)
	root := copyDir(t, "../testdata/hostile")
	// The sandbox package runs the same fixture at the same time (go test runs packages in
	// parallel), so this copy sleeps for a duration no other run uses: its processes are
	// told apart by that number.
	marker := strconv.Itoa(900000000 + os.Getpid())
	sleepTest := filepath.Join(root, "sleep", "sleep_test.go")
	src, err := os.ReadFile(sleepTest)
	require.NoError(t, err)
	require.Contains(t, string(src), `"987654"`)
	require.NoError(t, os.WriteFile(sleepTest, []byte(strings.ReplaceAll(string(src), `"987654"`, strconv.Quote(marker))), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestReapHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), reapHelperEnv+"="+root)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	runID := ""
	sc := bufio.NewScanner(out)
	deadline := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "RUNNING "); ok {
			runID = id
			break
		}
	}
	deadline.Stop()
	require.NotEmpty(t, runID, "the helper did not start its run")
	ctx := context.Background()
	cli, err := r.client(ctx)
	require.NoError(t, err)
	owned := func() (int, int) {
		cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", LabelRun+"="+runID)})
		require.NoError(t, err)
		vs, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: client.Filters{}.Add("label", LabelRun+"="+runID)})
		require.NoError(t, err)
		return len(cs.Items), len(vs.Items)
	}
	c, v := owned()
	require.Equal(t, 2, c, "builder and test container")
	require.Equal(t, 1, v, "the binaries' volume")
	// While the owner lives, a new runner leaves its containers alone.
	_, err = New(Options{}).Reaped()
	require.NoError(t, err)
	c, v = owned()
	require.Equal(t, 2, c)
	require.Equal(t, 1, v)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	reaped, err := New(Options{}).Reaped()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, reaped.Containers, 2)
	assert.GreaterOrEqual(t, reaped.Volumes, 1)
	c, v = owned()
	assert.Zero(t, c)
	assert.Zero(t, v)
	assert.Eventually(t, func() bool { return len(hostProcessesWith(marker)) == 0 }, 10*time.Second, 50*time.Millisecond,
		"the killed run's test processes are gone: %v", hostProcessesWith(marker))
}
