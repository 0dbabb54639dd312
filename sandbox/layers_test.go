package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLayerNames(t *testing.T) {
	assert.Equal(t, "none", Layer(0).String())
	assert.Equal(t, "network+pid+readonly+unprivileged+uts+devices+quota", LayersAll.String())
	for _, l := range []Layer{0, LayerQuota, LayerNetwork | LayerDevices, LayersAll} {
		got, err := ParseLayers(l.String())
		require.NoError(t, err)
		assert.Equal(t, l, got)
	}
	got, err := ParseLayers("all")
	require.NoError(t, err)
	assert.Equal(t, LayersAll, got)
	got, err = ParseLayers("pid, quota")
	require.NoError(t, err)
	assert.Equal(t, LayerPID|LayerQuota, got)
	_, err = ParseLayers("pid+seccomp")
	assert.ErrorContains(t, err, `unknown isolation layer "seccomp"`)
}

// TestNotesWithoutRoot probes as a runner that is not root: the namespaces then belong to a
// user namespace (when the kernel allows one), slots keep no namespaces, so the disk quota
// is missing, and the notes say so and how the tests run.
func TestNotesWithoutRoot(t *testing.T) {
	iso := probeIsolation(probeConfig{root: false, disk: DefaultDiskBytes})
	notes := strings.Join(iso.notes, "\n")
	assert.Zero(t, iso.layers&LayerQuota)
	assert.Contains(t, notes, "disk quota unavailable")
	assert.False(t, iso.dropUID)
	assert.Empty(t, iso.nsenter)
	if iso.layers&LayerUnprivileged != 0 {
		assert.Contains(t, notes, "not root: the tests run as the user inside a user namespace")
		assert.NotContains(t, iso.drop, "--reuid=65534")
	} else {
		assert.Contains(t, notes, "privilege drop unavailable")
	}
	// Every missing layer has its note.
	for _, m := range []struct {
		l    Layer
		note string
	}{{LayerNetwork, "network isolation unavailable"}, {LayerPID, "pid namespace unavailable"},
		{LayerReadOnly, "filesystem isolation unavailable"}, {LayerUTS, "hostname and IPC isolation unavailable"},
		{LayerDevices, "device isolation unavailable"}} {
		assert.Equal(t, iso.layers&m.l == 0, strings.Contains(notes, m.note), m.note)
	}
	// The private /tmp comes with the read-only layer, or a note says it could not.
	assert.Equal(t, iso.layers&LayerReadOnly != 0 && !iso.privateTmp, strings.Contains(notes, "private /tmp unavailable"))
	t.Logf("layers %s, private /tmp %v", iso.layers, iso.privateTmp)
	disabled := probeIsolation(probeConfig{disabled: true, root: true})
	assert.Equal(t, Layer(0), disabled.layers)
	assert.Contains(t, strings.Join(disabled.notes, "\n"), "isolation disabled by option")
	assert.Contains(t, strings.Join(disabled.notes, "\n"), "privilege drop unavailable")
}

// TestRequireRefuses checks that a runner missing a required layer refuses before running.
func TestRequireRefuses(t *testing.T) {
	root := fixture(t, "gofix")
	l := NewLocal(Options{NoIsolation: true, Require: LayerReadOnly | LayerNetwork})
	defer l.Close()
	req := task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/sh", "-c", "touch ran"}}
	_, err := l.Run(context.Background(), req)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrIsolation))
	assert.Contains(t, err.Error(), "missing network+readonly")
	_, err = l.List(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest})
	assert.True(t, errors.Is(err, ErrIsolation))
	assert.NoFileExists(t, root+"/ran")
}

func TestCheckGoArgs(t *testing.T) {
	for _, a := range [][]string{{"-exec=/bin/sh"}, {"-exec", "x"}, {"--toolexec=x"}, {"-toolexec", "x"}, {"-compiler=gccgo"},
		{"-ldflags=-linkmode=external -extld=./evil"}, {"-ldflags", "-extld=./evil"}} {
		assert.ErrorIs(t, CheckGoArgs(append([]string{"-v"}, a...)), ErrBadRequest, a)
	}
	assert.NoError(t, CheckGoArgs([]string{"-ldflags=-X main.version=1"}))
	assert.NoError(t, CheckGoArgs([]string{"-v", "-run=exec", "exec", "-tags=toolexec"}))
}

// TestUserNamespaceRuns takes the path of a runner that is not root (namespaces in a user
// namespace, no holders, the build cache read-only for test binaries through the -exec
// program's own mount namespace) and runs the attacks that apply there: remounting, writing
// outside, writing the build cache.
func TestUserNamespaceRuns(t *testing.T) {
	needGo(t)
	root, _ := hostileFixture(t)
	l := NewLocal(Options{Jobs: 1})
	l.asUser = true
	defer l.Close()
	layers, err := l.Layers()
	require.NoError(t, err)
	if layers&(LayerUnprivileged|LayerReadOnly) != LayerUnprivileged|LayerReadOnly {
		t.Skipf("no user namespaces here: %s", strings.Join(l.Notes(), "; "))
	}
	cache, _, err := l.goDirs()
	require.NoError(t, err)
	l.opts.Env = []string{"HOSTILE_GOCACHE=" + cache, "HOSTILE_HOST_TMP=" + t.TempDir() + "/x", "HOSTILE_CHECKOUT=" + root, "HOSTILE_MARK=faultline-userns-mark"}
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest,
		Select: task.Selection{IDs: []string{"example.com/hostile/attack.TestRemount", "example.com/hostile/attack.TestPoisonCache", "example.com/hostile/attack.TestSethostname", "example.com/hostile/attack.TestGoWorkDir"}}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/hostile/attack.TestRemount":     task.Fail,
		"example.com/hostile/attack.TestPoisonCache": task.Fail,
		"example.com/hostile/attack.TestSethostname": task.Fail,
		"example.com/hostile/attack.TestGoWorkDir":   task.Fail,
	}, outcomes(rep))
	// The cache is owned by the user the test runs as: only its read-only mount stops it.
	poison, _ := rep.Result("example.com/hostile/attack.TestPoisonCache")
	assert.Contains(t, poison.Message, "read-only file system")
	work, _ := rep.Result("example.com/hostile/attack.TestGoWorkDir")
	assert.Contains(t, work.Message, "read-only file system")
	remount, _ := rep.Result("example.com/hostile/attack.TestRemount")
	assert.Contains(t, remount.Message, "read-only file system")
	assert.True(t, hasNote(rep, "disk quota unavailable"))
}

// TestWorkDirNotReachable gives a work directory below a directory only root can search
// (as t.TempDir makes them): when runs drop to RunUID, the slots go elsewhere, with a note,
// and the tests can use their TMPDIR.
func TestWorkDirNotReachable(t *testing.T) {
	needPytest(t)
	work := t.TempDir() // mode 0700
	require.NoError(t, os.Chmod(filepath.Dir(work), 0o700))
	root := fixture(t, "pyfix")
	l := NewLocal(Options{WorkDir: work, Jobs: 1})
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Command,
		Args: []string{"/bin/sh", "-c", `echo x > "$TMPDIR/f" && cat "$TMPDIR/f" && echo y > made-here`}})
	require.NoError(t, err)
	if !l.iso.dropUID {
		t.Skip("runs do not drop to another uid here")
	}
	assert.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
	assert.True(t, hasNote(rep, "is not reachable by uid 65534"), rep.Notes)
	assert.False(t, strings.HasPrefix(l.dir, work))
}

// TestRunIdentity checks what a command sees of itself with every layer: RunUID, no
// capabilities, no_new_privs, address randomisation off, its own hostname, a minimal /dev,
// an empty /run, the pinned environment.
func TestRunIdentity(t *testing.T) {
	root := fixture(t, "pyfix")
	l := NewLocal(Options{Jobs: 1})
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/sh", "-c",
		`id -u; id -g; cat /proc/self/personality; hostname; grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status; ls /dev | tr '\n' ' '; echo; ls -A /run | wc -l; echo "TZ=$TZ LC_ALL=$LC_ALL PYTHONHASHSEED=$PYTHONHASHSEED"; echo to-stderr >/dev/stderr`}})
	require.NoError(t, err)
	if layers, _ := l.Layers(); layers != LayersAll || !l.iso.dropUID {
		t.Skipf("needs every layer as root; here %s", layers)
	}
	require.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
	out, errOut, _ := strings.Cut(rep.Output, "[stderr]")
	assert.Equal(t, "to-stderr", strings.TrimSpace(errOut), "/dev/stderr opens for the run's uid")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 10, rep.Output)
	assert.Equal(t, []string{"65534", "65534", "00040000", "faultline-sandbox"}, lines[:4])
	assert.Regexp(t, `CapEff:\s+0000000000000000`, lines[4])
	assert.Regexp(t, `CapBnd:\s+0000000000000000`, lines[5])
	assert.Regexp(t, `NoNewPrivs:\s+1`, lines[6])
	assert.Equal(t, "fd full null random shm stderr stdin stdout tty urandom zero", strings.TrimSpace(lines[7]))
	assert.Equal(t, "0", strings.TrimSpace(lines[8]))
	assert.Equal(t, "TZ=UTC LC_ALL=C.UTF-8 PYTHONHASHSEED=0", lines[9])
}

// TestPrivateTmp: a run can write under a fixed /tmp path (python3-oslo.utils' tests write
// /tmp/<uuid>/ and failed only in the sandbox), in a /tmp of its own: the host's /tmp gets
// nothing; of the host's entries there, one the run needs (named in its environment) is
// readable and read-only, another (here holding a Unix socket, as an ssh agent's or tmux's
// directory does) is not there at all; the next run in the same slot (kept namespaces) or
// in fresh namespaces does not see what the last one wrote; a request naming a hidden
// entry in its arguments gets it.
func TestPrivateTmp(t *testing.T) {
	root := fixture(t, "pyfix")
	shown, err := os.MkdirTemp("/tmp", "faultline-privtmp-shown-")
	require.NoError(t, err)
	defer os.RemoveAll(shown)
	require.NoError(t, os.Chmod(shown, 0o777)) // only the mount may keep the run out
	require.NoError(t, os.WriteFile(filepath.Join(shown, "data"), []byte("host data\n"), 0o644))
	hidden, err := os.MkdirTemp("/tmp", "faultline-privtmp-hidden-")
	require.NoError(t, err)
	defer os.RemoveAll(hidden)
	require.NoError(t, os.Chmod(hidden, 0o777))
	require.NoError(t, os.WriteFile(filepath.Join(hidden, "data"), []byte("hidden data\n"), 0o644))
	ln, err := net.Listen("unix", filepath.Join(hidden, "agent.sock"))
	require.NoError(t, err)
	defer ln.Close()
	mark := fmt.Sprintf("/tmp/faultline-privtmp-run-%d", os.Getpid())
	defer os.RemoveAll(mark)
	// The scripts name the hidden entry only by a pattern, never by its path.
	write := fmt.Sprintf(`mkdir %[1]s && echo written > %[1]s/f && cat %[1]s/f && cat "$SHOWN/data" && ls /tmp | grep -c privtmp-hidden; if : > "$SHOWN/w" 2>/dev/null; then echo host-writable; fi`, mark)
	check := fmt.Sprintf(`if [ -e %[1]s ]; then echo left-over; else echo clean; fi`, mark)
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("freshNS=%v", fresh), func(t *testing.T) {
			l := NewLocal(Options{Jobs: 1, Env: []string{"SHOWN=" + shown}})
			l.freshNS = fresh
			defer l.Close()
			layers, err := l.Layers()
			require.NoError(t, err)
			if layers&LayerReadOnly == 0 || !l.iso.privateTmp {
				t.Skipf("needs the read-only layer with a private /tmp; here %s: %s", layers, strings.Join(l.Notes(), "; "))
			}
			ctx := context.Background()
			rep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/sh", "-c", write}})
			require.NoError(t, err)
			assert.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
			out, errOut, _ := strings.Cut(rep.Output, "[stderr]")
			assert.Equal(t, "written\nhost data\n0", strings.TrimSpace(out), "the needed entry is there, the other is not")
			assert.Contains(t, errOut, "Read-only file system", "writing into the host's entry")
			_, err = os.Stat(mark)
			assert.True(t, os.IsNotExist(err), "the host's /tmp got %s", mark)
			_, err = os.Stat(filepath.Join(shown, "w"))
			assert.True(t, os.IsNotExist(err), "the run wrote into a host directory under /tmp")
			rep, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/sh", "-c", check}})
			require.NoError(t, err)
			assert.Equal(t, "clean", strings.TrimSpace(rep.Output))
			// Named in the request: shown (a slot's holder is started again for it).
			rep, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/cat", filepath.Join(hidden, "data")}})
			require.NoError(t, err)
			assert.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
			assert.Equal(t, "hidden data", strings.TrimSpace(rep.Output))
		})
	}
}

// TestPrivateHome: runs as the runner's own uid (without root: here a user namespace, as
// a user's runs are) do not see the runner's home, except the paths they need (named in
// their environment or arguments), read-only. The home is a directory outside /tmp (the
// private /tmp would hide one there anyway); the commands name what they read only through
// variables, so that nothing hidden is named in the request.
func TestPrivateHome(t *testing.T) {
	home, err := os.MkdirTemp("/var/tmp", "faultline-home-")
	if err != nil {
		t.Skipf("needs a directory outside /tmp to stand for a home: %v", err)
	}
	defer os.RemoveAll(home)
	require.NoError(t, os.Chmod(home, 0o755))
	for rel, data := range map[string]string{".ssh/id_rsa": "secret key\n", "notes.txt": "private\n", "tools/data": "tool data\n",
		".cache/faultline-x/data": "cache data\n", ".cache/other/token": "token\n"} {
		p := filepath.Join(home, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	l := NewLocal(Options{Jobs: 1, Env: []string{"TOOLS=" + filepath.Join(home, "tools"), "CACHEX=" + filepath.Join(home, ".cache/faultline-x")}})
	l.asUser, l.homeDir = true, home
	defer l.Close()
	layers, err := l.Layers()
	require.NoError(t, err)
	if layers&LayerReadOnly == 0 || l.iso.privateHome == "" {
		t.Skipf("needs a user namespace with the read-only layer and a private home; here %s: %s", layers, strings.Join(l.Notes(), "; "))
	}
	root := fixture(t, "pyfix")
	script := `cat "$TOOLS/data" "$CACHEX/data"; ls -A "$TOOLS/.."; ls -A "$TOOLS/../.cache"
for f in "$TOOLS/../.ssh/id_rsa" "$TOOLS/../notes.txt" "$TOOLS/../.cache/other/token"; do if cat "$f" 2>/dev/null; then echo "read $f"; fi; done
if : > "$TOOLS/w" 2>/dev/null; then echo tools-writable; fi; if : > "$TOOLS/../w" 2>/dev/null; then echo home-writable; fi`
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/sh", "-c", script}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail+rep.Output)
	out, _, _ := strings.Cut(rep.Output, "[stderr]")
	assert.Equal(t, "tool data\ncache data\n.cache\ntools\nfaultline-x", strings.TrimSpace(out))
	_, err = os.Stat(filepath.Join(home, "w"))
	assert.True(t, os.IsNotExist(err), "the run wrote into the home")

	// Named in the request: shown.
	rep, err = l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/cat", filepath.Join(home, "notes.txt")}})
	require.NoError(t, err)
	assert.Equal(t, "private", strings.TrimSpace(rep.Output))
}

func TestHomeEntries(t *testing.T) {
	home := t.TempDir()
	assert.Equal(t, map[string]bool{"go": true, "sdk": true, ".cache/faultline": true, ".local/lib": true, ".config": true},
		homeEntries(home, []string{home + "/go/pkg/mod", home + "/sdk", home + "/.cache/faultline/go-build", home + "/.local/lib/python3/site-packages",
			home + "/.config", home, home + "/../x", "/usr/bin", "relative/" + home}))
	assert.Empty(t, homeEntries(home, []string{home + "/", filepath.Dir(home)}))
	assert.Equal(t, "", hideableHome("/"))
	assert.Equal(t, "", hideableHome("/usr"))
	assert.Equal(t, "", hideableHome("relative"))
	assert.Equal(t, "", hideableHome(filepath.Join(home, "absent")))
	real, err := filepath.EvalSymlinks(home)
	require.NoError(t, err)
	assert.Equal(t, real, hideableHome(home+"/"))
}

func TestTmpEntries(t *testing.T) {
	assert.Equal(t, map[string]bool{"a": true, "b c": true}, tmpEntries([]string{"/tmp/a/x/y", "/tmp/a", "/tmp/b c/", "/var/tmp/z", "relative/tmp/q", "/tmpx/r"}))
	assert.Empty(t, tmpEntries([]string{"/tmp", "/tmp/", "/"}))
	assert.Equal(t, []string{"/usr/bin", "/tmp/go/bin", "/tmp/m/go.mod", "/tmp/r"},
		pathsIn("/usr/bin:/tmp/go/bin -modfile=/tmp/m/go.mod --rootdir=/tmp/r x,y"))
}
