package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
	"github.com/faultline-dev/faultline/task"
)

// Defaults for the zero fields of task.Limits and Options.
const (
	DefaultTimeout     = 10 * time.Minute
	DefaultOutputBytes = 1 << 20                   // per stream
	DefaultMessageLen  = testrun.DefaultMessageLen // 4 KiB
	DefaultMemoryBytes = 8 << 30                   // address space (RLIMIT_AS)
	DefaultKillGrace   = 2 * time.Second
	DefaultDiskBytes   = 1 << 30 // a slot's tmpfs (LayerQuota)
)

// Reruns bounds the re-runs a runner makes to give every selected test a verdict of its own
// (the package doc's rule). The zero value takes the defaults.
type Reruns struct {
	// Attempts is the most re-runs of one run (negative: none). The default 0 allows twice
	// the run's known tests, at least DefaultRerunAttempts: a suite whose tests take their
	// binary down one after another needs a re-run per test to give each its verdict.
	Attempts int
	// Time, when positive, is the most wall time the re-runs of one run take together. The
	// default 0 gives the re-runs that end at a time limit (a test that hangs costs the whole
	// limit each time) the run's time limit in all, and the others (a panic, an exit, a
	// crash) no wall-time budget: their number (Attempts) bounds them, so which tests keep no
	// verdict does not depend on the machine's load and the same seed gives the same records.
	Time time.Duration
}

// DefaultRerunAttempts is the least default bound on the re-runs of one run (Reruns.Attempts).
const DefaultRerunAttempts = testrun.DefaultRerunAttempts // 100

// Options configure a Local runner. The zero value works.
type Options struct {
	// WorkDir is where private copies are made (default os.TempDir()). NewLocal creates its
	// own subdirectory there, removed by Close.
	WorkDir string
	// Jobs bounds the runs in flight (default runtime.GOMAXPROCS(0)). Each slot keeps a
	// fixed directory, so Go's build cache (which keys compiled packages by directory) stays
	// warm across runs.
	Jobs int
	// Python is the interpreter for pytest. Default: the first of /usr/bin/python3, python3,
	// python that can import pytest.
	Python string
	// Go is the go command (default "go" on PATH).
	Go string
	// GoCache is the go command's build cache, shared by every run so builds stay warm.
	// Only the go command writes it (it compiles, it runs no repository code); the test
	// binaries run without write access to it (see the package doc). Default: faultline's
	// own, $XDG_CACHE_HOME/faultline/gocache (os.UserCacheDir), never the user's: what a
	// hostile tree makes the compiler write must not reach the user's own builds.
	GoCache string
	// GoModCache is the module cache, read-only in isolated runs (default: the host's `go env
	// GOMODCACHE`).
	GoModCache string
	// Env holds extra KEY=VALUE pairs for the test command, set after the scrubbed host
	// environment (e.g. GOFLAGS=-mod=mod, GOPROXY=off).
	Env []string
	// Limits fill the zero fields of each request's limits; zero fields here take the
	// package defaults (DefaultTimeout, DefaultOutputBytes, DefaultMessageLen,
	// DefaultMemoryBytes; no process limit).
	Limits task.Limits
	// KillGrace is the time between SIGTERM and SIGKILL (default DefaultKillGrace).
	KillGrace time.Duration
	// AllowNetwork keeps the host network (no network namespace).
	AllowNetwork bool
	// NoIsolation runs without namespaces or privilege drop (still in a private copy,
	// process group, limits).
	NoIsolation bool
	// Require lists the isolation layers a run must get: when the host does not allow one of
	// them, Run and List return an error wrapping ErrIsolation before running anything (an
	// unattended pipeline running untrusted code sets LayersAll). Zero requires nothing; the
	// missing layers are then only noted in Report.Notes.
	Require Layer
	// DiskBytes bounds what one run writes (its tree, HOME and TMPDIR share a tmpfs of this
	// size; default DefaultDiskBytes). The tree's copy counts. Without LayerQuota it is not
	// enforced.
	DiskBytes int64
	// Reruns bounds the re-runs that give tests cut off by an early end of their test binary
	// or interpreter a verdict of their own (the package doc's rule). The zero value takes
	// its defaults.
	Reruns Reruns
}

// Local runs tests as local processes in private copies of the repository. It implements
// task.Runner and task.Lister and is safe for concurrent use.
type Local struct {
	opts  Options
	dir   string
	slots chan int

	initOnce sync.Once
	initErr  error
	iso      *isolation
	goOnce   sync.Once
	goCache  string
	goMod    string
	goErr    error

	holders []*holder // per slot; touched only by the slot's owner
	freshNS bool      // tests: new namespaces per run even when holders work
	asUser  bool      // tests: probe as if the runner were not root
	homeDir string    // tests: the home a run as the runner hides (default $HOME)
	goExec  string    // the go test -exec program (see writeGoExec)

	pyOnce sync.Once
	python string
	pyErr  error

	bins       goBins // test binaries kept between attempts (see gobin.go)
	noBins     bool   // tests: the go command runs every attempt
	binsNoExec bool   // tests: the kept binaries' copies are not executable (they cannot start)
	goRootOnce sync.Once
	goRootBin  string
	// envPaths are the absolute paths named in the runs' environment (see keepPaths)
	envPathsOnce sync.Once
	envPaths     []string
}

// NewLocal returns a local runner. Its work directory is created on first use; call Close
// to remove it and stop the slots' namespace holders (the holders also die with the process).
func NewLocal(opts Options) *Local {
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	if opts.Go == "" {
		opts.Go = "go"
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	if opts.DiskBytes <= 0 {
		opts.DiskBytes = DefaultDiskBytes
	}
	l := &Local{opts: opts, slots: make(chan int, opts.Jobs), holders: make([]*holder, opts.Jobs)}
	for i := range opts.Jobs {
		l.slots <- i
	}
	return l
}

func (l *Local) init() error {
	l.initOnce.Do(func() {
		root := os.Geteuid() == 0 && !l.asUser
		home := l.homeDir
		if home == "" && !root {
			home, _ = os.UserHomeDir()
		}
		l.iso = probeIsolation(probeConfig{disabled: l.opts.NoIsolation, allowNet: l.opts.AllowNetwork,
			root: root, disk: l.opts.DiskBytes, home: home})
		base := l.opts.WorkDir
		if base == "" {
			base = os.TempDir()
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			l.initErr = fmt.Errorf("sandbox: work dir: %w", err)
			return
		}
		if l.iso.dropUID && !searchable(base) {
			// The run's uid must reach its slot (TMPDIR, HOME, the test binaries).
			alt := ""
			for _, c := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
				if searchable(c) {
					alt = c
					break
				}
			}
			if alt == "" {
				l.initErr = fmt.Errorf("sandbox: work dir %s: not reachable by uid %d, and neither is %s, /tmp or /var/tmp", base, RunUID, os.TempDir())
				return
			}
			l.iso.notes = append(l.iso.notes, fmt.Sprintf("work dir %s is not reachable by uid %d: slots are in %s", base, RunUID, alt))
			base = alt
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			l.initErr = fmt.Errorf("sandbox: work dir: %w", err)
			return
		}
		d, err := os.MkdirTemp(base, "faultline-sandbox-")
		if err != nil {
			l.initErr = fmt.Errorf("sandbox: work dir: %w", err)
			return
		}
		// The slots' parents must be searchable by the run's uid.
		if err := os.Chmod(d, 0o755); err != nil {
			l.initErr = fmt.Errorf("sandbox: work dir: %w", err)
			return
		}
		l.dir = d
	})
	return l.initErr
}

// goDirs resolves the Go caches once (lazily: a pytest-only user needs no Go), creates the
// build cache (bind-mounted writable for the go command) and writes the -exec program.
func (l *Local) goDirs() (cache, mod string, err error) {
	l.goOnce.Do(func() {
		l.goCache, l.goMod = l.opts.GoCache, l.opts.GoModCache
		if l.goCache == "" {
			l.goCache, l.goErr = FaultlineGoCache()
			if l.goErr != nil {
				return
			}
		}
		if l.goMod == "" {
			m, err := goEnv(l.opts.Go, "GOMODCACHE")
			if err != nil {
				l.goErr = err
				return
			}
			l.goMod = m["GOMODCACHE"]
		}
		if l.goCache == "off" || !filepath.IsAbs(l.goCache) {
			l.goErr = fmt.Errorf("sandbox: GOCACHE %q is not an absolute directory", l.goCache)
			return
		}
		if err := os.MkdirAll(l.goCache, 0o755); err != nil {
			l.goErr = fmt.Errorf("sandbox: GOCACHE: %w", err)
			return
		}
		l.goExec, l.goErr = l.writeGoExec()
	})
	return l.goCache, l.goMod, l.goErr
}

func (l *Local) pythonPath() (string, error) {
	l.pyOnce.Do(func() {
		if l.opts.Python != "" {
			l.python = l.opts.Python
			return
		}
		l.python, l.pyErr = findPython([]string{"/usr/bin/python3", "python3", "python"})
	})
	return l.python, l.pyErr
}

// Notes returns what isolation the host allows, as the notes attached to every report.
func (l *Local) Notes() []string {
	if err := l.init(); err != nil {
		return []string{err.Error()}
	}
	return append([]string(nil), l.iso.notes...)
}

// Close stops the namespace holders and removes the runner's work directory. Runs must have
// finished.
func (l *Local) Close() error {
	for i, h := range l.holders {
		h.stop()
		l.holders[i] = nil
	}
	if l.dir == "" {
		return nil
	}
	return forceRemoveAll(l.dir)
}

// limits fills zero fields.
func (l *Local) limits(in task.Limits) task.Limits { return fillLimits(in, l.opts.Limits) }

// FillLimits returns in with its zero fields taken from defaults, then from the package
// defaults (DefaultTimeout, DefaultOutputBytes, DefaultMemoryBytes, DefaultMessageLen; no
// process limit).
func FillLimits(in, defaults task.Limits) task.Limits { return fillLimits(in, defaults) }

func fillLimits(in, dl task.Limits) task.Limits {
	fill := func(v, o, d int64) int64 {
		if v > 0 {
			return v
		}
		if o > 0 {
			return o
		}
		return d
	}
	out := in
	out.Timeout = time.Duration(fill(int64(in.Timeout), int64(dl.Timeout), int64(DefaultTimeout)))
	out.OutputBytes = fill(in.OutputBytes, dl.OutputBytes, DefaultOutputBytes)
	out.MemoryBytes = fill(in.MemoryBytes, dl.MemoryBytes, DefaultMemoryBytes)
	out.Processes = int(fill(int64(in.Processes), int64(dl.Processes), 0))
	out.MessageLen = int(fill(int64(in.MessageLen), int64(dl.MessageLen), DefaultMessageLen))
	return out
}

// ErrBadRequest is wrapped by errors about a request the runner cannot use.
var ErrBadRequest = testrun.ErrBadRequest

// ErrBadTestID is wrapped by errors about a test id that has no recognisable shape (a Go id
// task.SplitGoTestID cannot split).
var ErrBadTestID = testrun.ErrBadTestID

// checkRequest validates req and returns it with Root resolved through symbolic links (a
// root that is a link would otherwise be copied as a link to the checkout).
func checkRequest(req task.RunRequest) (task.RunRequest, error) {
	if req.Root == "" || !filepath.IsAbs(req.Root) {
		return req, fmt.Errorf("sandbox: root %q must be an absolute path: %w", req.Root, ErrBadRequest)
	}
	root, err := filepath.EvalSymlinks(req.Root)
	if err != nil {
		return req, fmt.Errorf("sandbox: root: %w", err)
	}
	st, err := os.Stat(root)
	if err != nil {
		return req, fmt.Errorf("sandbox: root: %w", err)
	}
	if !st.IsDir() {
		return req, fmt.Errorf("sandbox: root %s: %w: %w", req.Root, errNotDir, ErrBadRequest)
	}
	req.Root = root
	if err := testrun.CheckKind(req); err != nil {
		return req, err
	}
	if req.Kind == task.GoTest {
		if err := CheckGoArgs(req.Args); err != nil {
			return req, err
		}
	}
	if err := req.Overlay.Validate(); err != nil {
		return req, fmt.Errorf("sandbox: overlay: %w", err)
	}
	for _, f := range req.Select.Files {
		if _, err := task.CleanRelPath(f); err != nil {
			return req, fmt.Errorf("sandbox: selection: %w", err)
		}
	}
	return req, nil
}

// slot is one prepared run directory. Its paths are those the run sees; host (empty, or
// the holder's /proc/<init>/root) reaches them from the runner.
type slot struct {
	idx                       int
	dir, tree, home, tmp, out string
	// gotmp is the go command's TMPDIR (its work directory and the C compiler's temporary
	// files): the runner's, only searchable by the run's uid, so a test binary running while
	// the go command still compiles other packages cannot replace what the go command then
	// stores in the build cache. The -exec program gives the test binary tmp again.
	gotmp string
	host  string
	h     *holder
	// tmpNeed are the entries of the host's /tmp the request's runs need (tmpEntries of
	// keepPaths)
	tmpNeed map[string]bool
	// homeNeed are the paths of the runner's home the request's runs need when it is hidden
	// (homeEntries of keepPaths; nil otherwise)
	homeNeed map[string]bool
}

// hp returns the host's path of p, a path of the run.
func (s *slot) hp(p string) string { return s.host + p }

// acquire takes a slot and prepares a fresh private copy of the tree with the overlay: in
// the slot's tmpfs when the slot keeps its namespaces (starting the holder when needed),
// else in the slot directory.
func (l *Local) acquire(ctx context.Context, req task.RunRequest) (*slot, error) {
	var idx int
	select {
	case idx = <-l.slots:
	case <-ctx.Done():
		return nil, fmt.Errorf("sandbox: waiting for a slot: %w", ctx.Err())
	}
	keep := l.keepPaths(req)
	s := &slot{idx: idx, dir: filepath.Join(l.dir, "slot-"+strconv.Itoa(idx)), tmpNeed: tmpEntries(keep)}
	if l.iso.privateHome != "" {
		s.homeNeed = homeEntries(l.iso.privateHome, keep)
	}
	s.tree, s.home, s.tmp, s.out = filepath.Join(s.dir, "tree"), filepath.Join(s.dir, "home"), filepath.Join(s.dir, "tmp"), filepath.Join(s.dir, "out")
	s.gotmp = filepath.Join(s.dir, goTmpName)
	fail := func(err error) (*slot, error) {
		l.slots <- idx
		return nil, err
	}
	// The slot directory itself stays (a holder's mount covers it); its contents go.
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	if s.h = l.holder(s); s.h != nil {
		s.host = s.h.root()
		// The holder's /dev/shm outlives runs: empty it — only when it is not the host's
		// (a holder that lost its namespace would resolve to the host's /dev/shm).
		if ents, err := os.ReadDir(s.hp("/dev/shm")); err == nil && !sameFile(s.hp("/dev/shm"), "/dev/shm") {
			for _, e := range ents {
				if err := forceRemoveAll(filepath.Join(s.hp("/dev/shm"), e.Name())); err != nil {
					return fail(fmt.Errorf("sandbox: cleaning /dev/shm: %w", err))
				}
			}
		}
		// So is what runs wrote in its private /tmp (the host's entries there are mounts).
		if s.h.tmpNames != nil && !sameFile(s.hp("/tmp"), "/tmp") {
			ents, err := os.ReadDir(s.hp("/tmp"))
			if err != nil {
				return fail(fmt.Errorf("sandbox: cleaning /tmp: %w", err))
			}
			for _, e := range ents {
				if !s.h.tmpNames[e.Name()] {
					if err := forceRemoveAll(filepath.Join(s.hp("/tmp"), e.Name())); err != nil {
						return fail(fmt.Errorf("sandbox: cleaning /tmp: %w", err))
					}
				}
			}
		}
	}
	for _, p := range []string{s.tree, s.home, s.tmp, s.out, s.gotmp, filepath.Join(s.dir, "junit.xml")} {
		if err := forceRemoveAll(s.hp(p)); err != nil {
			return fail(fmt.Errorf("sandbox: cleaning %s: %w", p, err))
		}
	}
	for _, d := range []string{s.home, s.tmp, s.out} {
		if err := os.Mkdir(s.hp(d), 0o700); err != nil {
			return fail(fmt.Errorf("sandbox: %w", err))
		}
	}
	if err := os.Mkdir(s.hp(s.gotmp), 0o711); err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	if err := os.Chmod(s.hp(s.gotmp), 0o711); err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	if err := copyTree(req.Root, s.hp(s.tree)); err != nil {
		if s.h != nil && errors.Is(err, syscall.ENOSPC) {
			return fail(fmt.Errorf("sandbox: copying %s: the tree does not fit in the slot's %d bytes (Options.DiskBytes): %w", req.Root, l.opts.DiskBytes, err))
		}
		return fail(fmt.Errorf("sandbox: copying %s: %w", req.Root, err))
	}
	if err := req.Overlay.WriteTo(s.hp(s.tree)); err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	if err := l.own(s, req.Kind); err != nil {
		return fail(err)
	}
	return s, nil
}

func (l *Local) release(s *slot) { l.slots <- s.idx }

// keepPaths lists the host paths runs of req may need, so that the entries of the host's
// /tmp holding them stay visible in the runs' private /tmp (see privateTmp), and those of
// the runner's home in the private home (see privateHome): the runner's
// work directory, the Go toolchain, build cache and module cache for Go, the interpreter
// for pytest, the go.mod's replacements by absolute path, and every absolute path named in
// the run's environment (PATH, GOROOT, GOFLAGS, Options.Env …) or in RunRequest.Args.
func (l *Local) keepPaths(req task.RunRequest) []string {
	l.envPathsOnce.Do(func() {
		for _, kv := range append(scrubbedEnv(os.Environ(), nil), l.opts.Env...) {
			if _, v, ok := strings.Cut(kv, "="); ok {
				l.envPaths = append(l.envPaths, pathsIn(v)...)
			}
		}
	})
	keep := append([]string{l.dir}, l.envPaths...)
	switch req.Kind {
	case task.GoTest:
		if cache, mod, err := l.goDirs(); err == nil {
			keep = append(keep, cache, mod)
		}
		if b := l.goBinDir(); b != "" {
			keep = append(keep, b)
		}
		if p, err := exec.LookPath(l.opts.Go); err == nil {
			keep = append(keep, p)
		}
		if mod, err := os.ReadFile(filepath.Join(req.Root, "go.mod")); err == nil {
			for _, line := range strings.Split(string(mod), "\n") {
				if _, target, ok := strings.Cut(line, "=>"); ok {
					keep = append(keep, pathsIn(target)...)
				}
			}
		}
	case task.Pytest:
		if py, err := l.pythonPath(); err == nil {
			if p, err := exec.LookPath(py); err == nil {
				keep = append(keep, p)
			}
		}
	}
	for _, a := range req.Args {
		keep = append(keep, pathsIn(a)...)
	}
	return keep
}

// holder returns the slot's namespace holder, starting one when the slot has none (or its
// namespace is gone); nil when slots do not keep namespaces here.
func (l *Local) holder(s *slot) *holder {
	if l.iso.nsenter == "" || l.freshNS {
		return nil
	}
	h := l.holders[s.idx]
	show := s.tmpNeed
	if h != nil && (!h.alive() || !h.shows(s.tmpNeed)) {
		// Gone, or its private /tmp lacks an entry this request needs: a new one, which
		// shows what the old one showed too (requests of two kinds do not take turns
		// restarting it).
		show = maps.Clone(s.tmpNeed)
		maps.Copy(show, h.tmpAsked)
		h.stop()
		h = nil
	}
	if h == nil {
		spec := preludeSpec{slot: s.dir, tmpfs: true, tmpShow: show}
		if cache, _, err := l.goDirs(); err == nil {
			spec.cache = cache
		}
		if nh, err := l.iso.startHolder(spec); err == nil {
			h = nh
		}
		l.holders[s.idx] = h
	}
	return h
}

// isolate returns the argv that runs cmd in the slot's kept namespaces, or in fresh ones
// when the slot has no holder.
func (l *Local) isolate(s *slot, cmd command, lim task.Limits, cpu int64) []string {
	argv := cmd.argv
	if cmd.drop {
		argv = l.iso.dropped(argv)
	}
	dir := s.tree
	if cmd.dir != "" {
		dir = cmd.dir
	}
	as := lim.MemoryBytes
	if cmd.cache {
		// The go command compiles (the limit of its test binaries is the -exec program's).
		as = buildMemory(as)
	}
	if s.h != nil {
		return l.iso.enter(s.h, argv, dir, cmd.drop, as, cpu, lim.Processes)
	}
	spec := preludeSpec{slot: s.dir, output: cmd.drop, tmpShow: s.tmpNeed, homeShow: s.homeNeed}
	if cmd.cache {
		spec.cache, _, _ = l.goDirs()
	}
	return l.iso.wrap(argv, dir, spec, as, cpu, lim.Processes)
}

// buildMemory is the address-space limit of the go command and the compilers it starts, for
// a run whose tests get as (Limits.MemoryBytes): as, but at least DefaultMemoryBytes. The
// tests' own limit would make the build of a package as large as runtime fail when it is
// compiled afresh (the compiler reserved more than 1 GiB, a limit that the test binary
// itself meets), a build failure the repository is not to blame for; the floor still bounds
// a source file written to exhaust the compiler.
func buildMemory(as int64) int64 {
	if as <= 0 {
		return as
	}
	return max(as, DefaultMemoryBytes)
}

// testMemoryEnv names, in the go command's environment, the address-space limit the -exec
// program sets on each test binary (and removes before starting it).
const testMemoryEnv = "FAULTLINE_TEST_AS"

// afterRun retires a holder whose namespace still has processes of the run in it.
func (l *Local) afterRun(s *slot) {
	if s.h != nil && s.h.leftovers() {
		s.h.stop()
		l.holders[s.idx] = nil
	}
}

// command is one prepared test command.
type command struct {
	argv  []string
	env   []string
	drop  bool   // the command is the tested code: run it without privilege
	cache bool   // the go command: the build cache is writable
	dir   string // where it starts, a directory of the run (default: the tree)
}

// env returns the environment of a run: the scrubbed host environment, a private HOME and
// TMPDIR, fixed time zone, locale and hash seed, then extra and Options.Env.
func (l *Local) env(s *slot, extra ...string) []string {
	pin := []string{
		"HOME=" + s.home, "TMPDIR=" + s.tmp, "TMP=" + s.tmp, "TEMP=" + s.tmp,
		"TZ=UTC", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0", "NO_COLOR=1",
	}
	if !l.opts.AllowNetwork {
		pin = append(pin, "GOPROXY=off")
	}
	base := scrubbedEnv(os.Environ(), pin)
	return mergeEnv(mergeEnv(base, extra), l.opts.Env)
}

// goCommand runs the go command itself with the build cache writable (it compiles; no
// repository code runs in it) and each test binary through the -exec program, which takes
// every privilege away first.
func (l *Local) goCommand(s *slot, req task.RunRequest, lim task.Limits, list bool) (command, error) {
	cache, mod, err := l.goDirs()
	if err != nil {
		return command{}, err
	}
	args, err := testrun.GoTestArgs(req.Select, lim, req.Args, list)
	if err != nil {
		return command{}, err
	}
	env := l.env(s, "GOCACHE="+cache, "GOMODCACHE="+mod, "TMPDIR="+s.gotmp)
	if lim.MemoryBytes > 0 {
		env = append(env, testMemoryEnv+"="+strconv.FormatInt(lim.MemoryBytes, 10))
	}
	return command{argv: l.goArgv(args), env: env, cache: true}, nil
}

// goArgv returns the go command line for args (`test ...`) with the -exec program.
func (l *Local) goArgv(args []string) []string {
	argv := []string{l.opts.Go}
	if len(args) > 0 && args[0] == "test" && l.goExec != "" {
		argv = append(argv, "test", "-exec", l.goExec)
		return append(argv, args[1:]...)
	}
	return append(argv, args...)
}

func (l *Local) pytestCommand(s *slot, req task.RunRequest, list bool) (command, error) {
	py, err := l.pythonPath()
	if err != nil {
		return command{}, err
	}
	argv := append([]string{py, "-m", "pytest"}, testrun.PytestArgs(req.Select, s.tree, filepath.Join(s.out, "junit.xml"), req.Args, list)...)
	return command{argv: argv, env: l.env(s), drop: true}, nil
}

// Run runs the selected tests of req.Root with req.Overlay applied, in a private copy, and
// re-runs the tests an early end of their test binary or interpreter left without a verdict
// (the package doc's rule; each attempt in a fresh copy).
func (l *Local) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	req, err := checkRequest(req)
	if err != nil {
		return nil, err
	}
	if err := l.init(); err != nil {
		return nil, err
	}
	if err := l.checkRequired(); err != nil {
		return nil, err
	}
	lim := l.limits(req.Limits)
	return testrun.Resolve(ctx, req, lim, l.opts.Reruns.Attempts, l.opts.Reruns.Time, func(ctx context.Context, a testrun.Attempt) (testrun.CommandResult, error) {
		return l.attempt(ctx, req, a)
	})
}

// attempt runs one attempt of a run in a fresh private copy.
func (l *Local) attempt(ctx context.Context, req task.RunRequest, a testrun.Attempt) (testrun.CommandResult, error) {
	if unit := binUnit(req, a); unit != "" && !l.noBins {
		g, err := l.binFor(ctx, req, unit)
		if err != nil {
			return testrun.CommandResult{}, err
		}
		if g != nil {
			res, err := l.binAttempt(ctx, req, a, unit, g)
			var se *binStartError
			switch {
			case errors.As(err, &se):
				res, err := l.commandAttempt(ctx, req, a)
				res.Notes = append(res.Notes, se.note())
				return res, err
			case !errors.Is(err, errBinGone):
				return res, err
			}
		}
	}
	return l.commandAttempt(ctx, req, a)
}

// commandAttempt runs one attempt with the test command itself (the go command, pytest or
// the request's command) in a fresh private copy.
func (l *Local) commandAttempt(ctx context.Context, req task.RunRequest, a testrun.Attempt) (testrun.CommandResult, error) {
	lim := a.Limits
	s, err := l.acquire(ctx, req)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	defer l.release(s)
	junitPath := s.hp(filepath.Join(s.out, testrun.PytestJUnitFile))
	eventsPath := s.hp(filepath.Join(s.out, testrun.PytestEventsFile))
	configPath := s.hp(filepath.Join(s.out, testrun.PytestConfigFile))
	var cmd command
	switch req.Kind {
	case task.GoTest:
		cmd, err = l.goCommand(s, req, lim, a.List)
		if err == nil {
			var args []string
			if args, err = testrun.GoAttemptArgs(a, req.Args); err == nil {
				cmd.argv = l.goArgv(args)
			}
		}
	case task.Pytest:
		cmd, err = l.pytestCommand(s, req, false)
		if err == nil {
			argv, cfg := testrun.PytestAttemptArgs(a, s.tree, s.out, req.Args)
			cmd.argv = append([]string{cmd.argv[0]}, argv...)
			err = os.WriteFile(configPath, cfg, 0o644)
		}
	default:
		cmd = command{argv: append([]string(nil), req.Args...), env: l.env(s), drop: true}
	}
	if err != nil {
		if errors.Is(err, testrun.ErrBadTestID) {
			return testrun.CommandResult{}, err
		}
		return testrun.CommandResult{StartErr: err, Notes: l.Notes()}, nil
	}
	out := testrun.NewAttemptOutput(req.Kind, a)
	cpu := int64(lim.Timeout/time.Second) + 1 + int64(l.opts.KillGrace/time.Second)
	argv := l.isolate(s, cmd, lim, cpu)
	pr := runProc(ctx, argv, l.runDir(s), cmd.env, out.Stdout, out.Stderr, lim.Timeout, l.opts.KillGrace)
	if pr.Cancelled {
		l.afterRun(s)
		return testrun.CommandResult{}, fmt.Errorf("sandbox: run cancelled: %w", ctx.Err())
	}
	// The run's files are read before a holder with leftovers is retired (its tmpfs goes
	// with it).
	var junit, events io.Reader
	if req.Kind == task.Pytest {
		if f, err := openRunFile(junitPath); err == nil {
			defer f.Close()
			junit = f
		}
		if f, err := openRunFile(eventsPath); err == nil {
			defer f.Close()
			events = f
		}
	}
	res := out.Result(pr.ExitCode, pr.TimedOut, pr.Wall, pr.StartErr, junit, events)
	l.afterRun(s)
	res.Notes = l.Notes()
	if s.h == nil && l.iso.layers&LayerQuota != 0 && !l.freshNS {
		res.Notes = append(res.Notes, "disk quota unavailable for this run: the slot's namespace holder did not start")
	}
	return res, nil
}

// ErrListFailed is wrapped by List errors when discovery itself failed (build or collection
// errors).
var ErrListFailed = testrun.ErrListFailed

// List discovers test ids without running them: `go test -list .` per package (top-level
// tests, examples and fuzz targets; benchmarks are left out because a plain test run does not
// run them) or `pytest --collect-only -q`. Ids are sorted.
func (l *Local) List(ctx context.Context, req task.RunRequest) ([]string, error) {
	req, err := checkRequest(req)
	if err != nil {
		return nil, err
	}
	if req.Kind == task.Command {
		return []string{task.CommandTestID}, nil
	}
	if err := l.init(); err != nil {
		return nil, err
	}
	if err := l.checkRequired(); err != nil {
		return nil, err
	}
	lim := l.limits(req.Limits)
	s, err := l.acquire(ctx, req)
	if err != nil {
		return nil, err
	}
	defer l.release(s)
	var cmd command
	if req.Kind == task.GoTest {
		cmd, err = l.goCommand(s, req, lim, true)
	} else {
		cmd, err = l.pytestCommand(s, req, true)
	}
	if err != nil {
		return nil, err
	}
	lp := testrun.NewListWriter(req.Kind)
	stdout := testrun.NewCapture(lim.OutputBytes, func(p []byte) { lp.Write(p) })
	stderr := testrun.NewCapture(lim.OutputBytes, nil)
	argv := l.isolate(s, cmd, lim, int64(lim.Timeout/time.Second)+1)
	pr := runProc(ctx, argv, l.runDir(s), cmd.env, stdout, stderr, lim.Timeout, l.opts.KillGrace)
	l.afterRun(s)
	switch {
	case pr.Cancelled:
		return nil, fmt.Errorf("sandbox: list cancelled: %w", ctx.Err())
	case pr.StartErr != nil:
		return nil, fmt.Errorf("sandbox: list: %w", pr.StartErr)
	case pr.TimedOut:
		return nil, fmt.Errorf("sandbox: list timed out after %s: %w", lim.Timeout, ErrListFailed)
	}
	ids, err := lp.Result(stderr.String(), pr.ExitCode, lim.MessageLen)
	if err != nil {
		// The collector's report names files by where the run saw them, the slot's
		// private copy, which is gone when the caller reads it: name them in req.Root.
		err = rootedError(err, req.Root, s.hp(s.tree), s.tree)
	}
	return ids, err
}

// rootedError returns err with every path under one of the directories from written as
// the same path under root (err stays what errors.Is and errors.As see).
func rootedError(err error, root string, from ...string) error {
	msg := err.Error()
	for _, f := range from {
		if f != "" && f != root {
			msg = strings.ReplaceAll(msg, f+string(filepath.Separator), root+string(filepath.Separator))
		}
	}
	if msg == err.Error() {
		return err
	}
	return &messageError{msg: msg, err: err}
}

// messageError is err with its message rewritten.
type messageError struct {
	msg string
	err error
}

func (e *messageError) Error() string { return e.msg }
func (e *messageError) Unwrap() error { return e.err }

// RunKey identifies everything about this runner and a request that can change a report,
// except the tree's contents (see Cache): the test kind, the command configuration
// (interpreter, go command, extra environment, isolation), the selection, the extra args and
// the effective limits.
func (l *Local) RunKey(req task.RunRequest) string {
	lim := l.limits(req.Limits)
	py := ""
	if req.Kind == task.Pytest {
		py, _ = l.pythonPath()
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode([]any{"local/v3", req.Kind, py, l.opts.Go, l.opts.Env, l.opts.AllowNetwork, l.opts.NoIsolation, l.opts.DiskBytes,
		req.Select.Files, req.Select.IDs, req.Args, lim, l.opts.Reruns})
	return hex.EncodeToString(h.Sum(nil))
}
