package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
	"github.com/faultline-dev/faultline/task"
)

// Test binaries kept between attempts (the package doc's "Kept test binaries"): an attempt
// about one package runs its test binary directly, converted by test2json, instead of the
// go command, whose loading and linking cost far more than most binaries run.

// maxBinTrees bounds the trees (tree, overlay) whose test binaries a runner keeps.
const maxBinTrees = 8

// goBins holds a runner's kept test binaries.
type goBins struct {
	mu     sync.Mutex
	hasher *TreeHasher
	trees  map[string]*binTree // by tree key
	order  []string            // tree keys, least recently used first

	t2jOnce sync.Once
	t2j     string // the test2json program
	t2jErr  error
}

// binTree is the binaries of one tree.
type binTree struct {
	key   string
	dir   string
	mu    sync.Mutex
	units map[string]*goBin
	gone  bool // evicted: its directory is removed, nothing more is kept there
}

// goBin is one package's test binary, or why there is none.
type goBin struct {
	ready chan struct{} // closed once built (or failed)
	path  string        // the binary in the runner's work directory
	sum   [32]byte      // its SHA-256 when it was built
	rel   string        // the package's directory, slash path relative to the root ("" for the root)
	err   error
}

// binUnit returns the package an attempt is about when its test binary can run it directly:
// a re-run of a unit, or an attempt whose selection names only ids of one package; "" when
// the go command must run it (a listing, extra go test arguments, files or several
// packages).
func binUnit(req task.RunRequest, a testrun.Attempt) string {
	if req.Kind != task.GoTest || a.List || len(req.Args) > 0 {
		return ""
	}
	if a.Unit != "" {
		return a.Unit
	}
	if len(a.Select.Files) > 0 || len(a.Select.IDs) == 0 {
		return ""
	}
	unit := ""
	for _, id := range a.Select.IDs {
		pkg, _, ok := task.SplitGoTestID(id)
		if !ok || (unit != "" && pkg != unit) {
			return ""
		}
		unit = pkg
	}
	return unit
}

// test2json builds the toolchain's test2json once per runner (on the host, with faultline's
// build cache: it is the toolchain's own code).
func (l *Local) test2json(ctx context.Context) (string, error) {
	b := &l.bins
	b.t2jOnce.Do(func() {
		cache, _, err := l.goDirs()
		if err != nil {
			b.t2jErr = err
			return
		}
		out := filepath.Join(l.dir, "test2json")
		cmd := exec.CommandContext(ctx, l.opts.Go, "build", "-o", out, "cmd/test2json")
		cmd.Dir = l.dir
		cmd.Env = mergeEnv(scrubbedEnv(os.Environ(), nil), []string{"GOCACHE=" + cache, "GOFLAGS=", "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOWORK=off"})
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.t2jErr = fmt.Errorf("sandbox: building test2json: %v: %s", err, testrun.Truncate(string(msg), 400))
			return
		}
		b.t2j = out
	})
	return b.t2j, b.t2jErr
}

// binFor returns the test binary of unit for req's tree, building it when this runner has
// none: nil (with the go command to take over) when it does not build here.
func (l *Local) binFor(ctx context.Context, req task.RunRequest, unit string) (*goBin, error) {
	if _, err := l.test2json(ctx); err != nil {
		return nil, nil
	}
	b := &l.bins
	b.mu.Lock()
	if b.hasher == nil {
		b.hasher, b.trees = NewTreeHasher(), map[string]*binTree{}
	}
	hasher := b.hasher
	b.mu.Unlock()
	sum, err := hasher.Hash(req.Root, req.Overlay)
	if err != nil {
		return nil, nil
	}
	b.mu.Lock()
	t := b.trees[sum]
	if t == nil {
		h := sha256.Sum256([]byte(sum))
		t = &binTree{key: sum, dir: filepath.Join(l.dir, "bin", hex.EncodeToString(h[:8])), units: map[string]*goBin{}}
		b.trees[sum] = t
		if len(b.order) >= maxBinTrees {
			old := b.trees[b.order[0]]
			delete(b.trees, b.order[0])
			b.order = b.order[1:]
			// Attempts holding its binaries copied them into their slots already or
			// build anew: the directory can go.
			old.mu.Lock()
			old.gone = true
			_ = forceRemoveAll(old.dir)
			old.mu.Unlock()
		}
	} else {
		b.order = remove(b.order, sum)
	}
	b.order = append(b.order, sum)
	b.mu.Unlock()

	t.mu.Lock()
	g := t.units[unit]
	if g == nil {
		g = &goBin{ready: make(chan struct{})}
		t.units[unit] = g
		t.mu.Unlock()
		g.path, g.rel, g.sum, g.err = l.buildBin(ctx, req, unit, t)
		close(g.ready)
	} else {
		t.mu.Unlock()
		select {
		case <-g.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("sandbox: run cancelled: %w", ctx.Err())
		}
	}
	if g.err != nil {
		if ctx.Err() != nil {
			// A build cut short by a cancellation is not a verdict on the package.
			t.mu.Lock()
			if t.units[unit] == g {
				delete(t.units, unit)
			}
			t.mu.Unlock()
			return nil, fmt.Errorf("sandbox: run cancelled: %w", ctx.Err())
		}
		return nil, nil
	}
	return g, nil
}

func remove(s []string, x string) []string {
	out := s[:0]
	for _, v := range s {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// buildBin builds unit's test binary in a slot (the go command, as for a run) and moves it
// into t's directory.
func (l *Local) buildBin(ctx context.Context, req task.RunRequest, unit string, t *binTree) (path, rel string, sum [32]byte, err error) {
	cache, mod, err := l.goDirs()
	if err != nil {
		return "", "", sum, err
	}
	s, err := l.acquire(ctx, req)
	if err != nil {
		return "", "", sum, err
	}
	defer l.release(s)
	bin := filepath.Join(s.gotmp, "unit.test")
	// go list names the package's directory; go test -c compiles, runs nothing, and writes
	// no binary for a package without tests.
	script := `"$1" list -e -f '{{.Dir}}{{"\t"}}{{if .Error}}{{.Error}}{{end}}' "$3" || exit 1
"$1" test -c -vet=off -o "$2" "$3" || exit 1`
	cmd := command{argv: []string{"/bin/sh", "-c", script, "sh", l.opts.Go, bin, unit},
		env: l.env(s, "GOCACHE="+cache, "GOMODCACHE="+mod, "TMPDIR="+s.gotmp), cache: true}
	lim := l.limits(req.Limits)
	argv := l.isolate(s, cmd, lim, int64(lim.Timeout/time.Second)+1)
	var stdout bytes.Buffer
	stderr := testrun.NewCapture(64<<10, nil)
	pr := runProc(ctx, argv, l.runDir(s), cmd.env, &capped{w: &stdout, n: 1 << 20}, stderr, lim.Timeout, l.opts.KillGrace)
	// The binary is taken out of the slot before a holder with leftovers is retired (its
	// tmpfs goes with it).
	defer l.afterRun(s)
	switch {
	case pr.Cancelled:
		return "", "", sum, fmt.Errorf("sandbox: run cancelled: %w", ctx.Err())
	case pr.StartErr != nil || pr.TimedOut || pr.ExitCode != 0:
		return "", "", sum, fmt.Errorf("sandbox: building the test binary of %s failed: %s", unit, testrun.FirstLine(stderr.String()))
	}
	dir, listErr, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\t")
	if listErr != "" {
		return "", "", sum, fmt.Errorf("sandbox: %s: %s", unit, listErr)
	}
	r, err := filepath.Rel(s.tree, dir)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") || filepath.IsAbs(r) {
		return "", "", sum, fmt.Errorf("sandbox: the package %s lies outside the tree (%s)", unit, dir)
	}
	if _, err := os.Stat(s.hp(bin)); err != nil {
		return "", "", sum, fmt.Errorf("sandbox: %s has no test binary", unit)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone {
		return "", "", sum, fmt.Errorf("sandbox: the test binaries of this tree are no longer kept")
	}
	if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return "", "", sum, fmt.Errorf("sandbox: %w", err)
	}
	h := sha256.Sum256([]byte(unit))
	path = filepath.Join(t.dir, hex.EncodeToString(h[:12])+".test")
	if sum, err = copyHashing(s.hp(bin), path); err != nil {
		return "", "", sum, fmt.Errorf("sandbox: keeping the test binary of %s: %w", unit, err)
	}
	return path, filepath.ToSlash(r), sum, nil
}

// copyHashing copies the regular file src to dst (which must not exist) with mode 0755 and
// returns the SHA-256 of what it copied.
func copyHashing(src, dst string) ([32]byte, error) {
	var sum [32]byte
	in, err := os.Open(src)
	if err != nil {
		return sum, err
	}
	defer in.Close()
	h := sha256.New()
	err = withoutForks(func() error {
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.MultiWriter(out, h), in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		return sum, err
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// capped writes at most n bytes to w and drops the rest.
type capped struct {
	w io.Writer
	n int64
}

func (c *capped) Write(p []byte) (int, error) {
	if c.n > 0 {
		k := min(int64(len(p)), c.n)
		_, _ = c.w.Write(p[:k])
		c.n -= k
	}
	return len(p), nil
}

// binAttempt runs one attempt about unit with its test binary g in a fresh copy.
func (l *Local) binAttempt(ctx context.Context, req task.RunRequest, a testrun.Attempt, unit string, g *goBin) (testrun.CommandResult, error) {
	lim := a.Limits
	_, runPat, skipPat, err := testrun.GoAttemptPlan(testrun.Attempt{Unit: unit, Select: a.Select, Skip: a.Skip, Limits: lim})
	if err != nil {
		return testrun.CommandResult{}, err
	}
	t2j, err := l.test2json(ctx)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	s, err := l.acquire(ctx, req)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	defer l.release(s)
	// The binary's copy for this attempt: root's, in the go command's directory of the slot,
	// which the run's uid can search but not write.
	bin := filepath.Join(s.gotmp, "unit.test")
	if sum, err := copyHashing(g.path, s.hp(bin)); err != nil || sum != g.sum {
		if errors.Is(err, fs.ErrNotExist) {
			return testrun.CommandResult{}, errBinGone // evicted meanwhile: the go command runs it
		}
		if err == nil {
			err = errors.New("it changed since it was built")
		}
		return testrun.CommandResult{StartErr: fmt.Errorf("sandbox: the kept test binary of %s: %w", unit, err), Notes: l.Notes()}, nil
	}
	if l.binsNoExec {
		if err := os.Chmod(s.hp(bin), 0o644); err != nil {
			return testrun.CommandResult{}, err
		}
	}
	dir := s.tree
	if g.rel != "" {
		dir = filepath.Join(s.tree, filepath.FromSlash(g.rel))
	}
	argv := append([]string{bin}, testrun.GoBinaryFlags(lim.Timeout*9/10, runPat, skipPat)...)
	// The environment go test gives its binary through the -exec program: the module cache,
	// and a build cache of the run's own for a test that runs the go command.
	_, mod, err := l.goDirs()
	if err != nil {
		return testrun.CommandResult{}, err
	}
	env := []string{"GOCACHE=" + filepath.Join(s.tmp, "gocache"), "GOMODCACHE=" + mod}
	if goBin := l.goBinDir(); goBin != "" {
		// go test puts the toolchain's bin directory first on the binary's PATH.
		env = append(env, "PATH="+goBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	cmd := command{argv: argv, env: l.env(s, env...), drop: true, dir: dir}

	out := testrun.NewAttemptOutput(req.Kind, a)
	conv := exec.Command(t2j, "-t", "-p", unit)
	pipeR, pw := io.Pipe()
	conv.Stdin = pipeR
	conv.Stdout = out.Stdout
	conv.Stderr = out.Stderr
	if err := conv.Start(); err != nil {
		return testrun.CommandResult{StartErr: fmt.Errorf("sandbox: test2json: %w", err), Notes: l.Notes()}, nil
	}
	// One writer for both streams, as go test merges them; a plain writer, so the child's
	// descriptors are pipes of os/exec's and a process the run leaves behind cannot hold
	// test2json's input open.
	merged := &lockedWriter{w: pw}
	cpu := int64(lim.Timeout/time.Second) + 1 + int64(l.opts.KillGrace/time.Second)
	start := dir
	if s.h != nil {
		start = l.runDir(s)
	}
	proc := runProc(ctx, l.isolate(s, cmd, lim, cpu), start, cmd.env, merged, merged, lim.Timeout, l.opts.KillGrace)
	if !proc.Cancelled && !proc.TimedOut && proc.StartErr == nil {
		if why, ok := notStarted(proc.ExitCode, merged, bin); ok {
			// Nothing of the test ran: the go command runs this attempt instead (the
			// caller), and nothing of this one is reported or cached.
			_ = pw.Close()
			_ = conv.Wait()
			l.afterRun(s)
			return testrun.CommandResult{}, &binStartError{unit: unit, why: why}
		}
		n, last := merged.state()
		_, _ = merged.Write([]byte(testrun.GoSummary(unit, proc.ExitCode, proc.Signal, n > 0, last == '\n')))
	}
	_ = pw.Close()
	convErr := conv.Wait()
	if proc.Cancelled {
		l.afterRun(s)
		return testrun.CommandResult{}, fmt.Errorf("sandbox: run cancelled: %w", ctx.Err())
	}
	exit := 0
	if proc.ExitCode != 0 {
		exit = 1
	}
	if proc.TimedOut {
		exit = -1
	} else if proc.StartErr == nil && convErr == nil {
		out.Exited(unit, proc.ExitCode)
	}
	res := out.Result(exit, proc.TimedOut, proc.Wall, proc.StartErr, nil, nil)
	l.afterRun(s)
	if !proc.TimedOut && proc.StartErr == nil {
		res.PackageStatus = map[string]int{unit: proc.ExitCode}
	}
	if convErr != nil && res.StartErr == nil {
		res.StartErr = fmt.Errorf("sandbox: test2json: %w", convErr)
	}
	res.Notes = l.Notes()
	return res, nil
}

// errBinGone: the kept binary was evicted before an attempt copied it.
var errBinGone = errors.New("sandbox: the kept test binary is gone")

// A binStartError says that an attempt's copy of the kept test binary never started: the
// program that was to execute it (setpriv, setarch, prlimit or the prelude's shell) could
// not. The go command then runs the attempt, which builds and starts the binary its own way.
type binStartError struct {
	unit, why string
}

func (e *binStartError) Error() string {
	return fmt.Sprintf("sandbox: the kept test binary of %s did not start (%s)", e.unit, e.why)
}

// note is the report's note for an attempt the go command ran instead.
func (e *binStartError) note() string {
	return fmt.Sprintf("the kept test binary of %s did not start (%s): the go command ran the attempt", e.unit, e.why)
}

// notStarted reports whether a process that exited with exit, having written what w holds,
// is a failed execution of bin rather than a run of it: the exec failed (126, or 127 for a
// file not found, the status setpriv, setarch, prlimit and sh give) and the whole output
// is the one line that says so, naming bin. A test binary that ran writes its own output
// first (test2json's events come from it), so no run of a test is taken for one.
func notStarted(exit int, w *lockedWriter, bin string) (string, bool) {
	if exit != 126 && exit != 127 {
		return "", false
	}
	w.mu.Lock()
	n, head := w.n, string(w.head)
	w.mu.Unlock()
	line := strings.TrimSpace(head)
	if n > int64(len(head)) || strings.Contains(line, "\n") || !strings.Contains(line, bin) || !strings.Contains(line, "exec") {
		return "", false
	}
	return line, true
}

// headBytes is how much of an attempt's output lockedWriter keeps (see notStarted).
const headBytes = 1024

// lockedWriter serialises writes, counts them, remembers the last byte and keeps the first
// headBytes bytes.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	n    int64
	last byte
	head []byte
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(p) > 0 {
		w.n += int64(len(p))
		w.last = p[len(p)-1]
		if k := min(len(p), headBytes-len(w.head)); k > 0 {
			w.head = append(w.head, p[:k]...)
		}
	}
	return w.w.Write(p)
}

// state returns how many bytes were written and the last of them.
func (w *lockedWriter) state() (int64, byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.last
}

// goBinDir returns the toolchain's bin directory ("" when the go command cannot say).
func (l *Local) goBinDir() string {
	l.goRootOnce.Do(func() {
		if m, err := goEnv(l.opts.Go, "GOROOT"); err == nil && m["GOROOT"] != "" {
			l.goRootBin = filepath.Join(m["GOROOT"], "bin")
		}
	})
	return l.goRootBin
}

// withoutForks runs write, which opens, writes and closes a file that is to be executed,
// holding syscall.ForkLock for reading: the go runtime takes it for writing to fork, so no
// process this one starts meanwhile inherits the descriptor. A child forked while it is
// open holds it until the child execs, and executing the file in that window fails with
// ETXTBSY (the Go issue golang/go#22315); with -jobs above 1 another attempt starts its
// processes while one copies its test binary.
func withoutForks(write func() error) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return write()
}

// writeExecutable writes data to path (mode 0755) without a fork of this process seeing the
// descriptor open, so that path can be executed as soon as it returns (see withoutForks).
func writeExecutable(path string, data []byte) error {
	return withoutForks(func() error { return os.WriteFile(path, data, 0o755) })
}
