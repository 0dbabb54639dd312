// Package cli is the command-line convention the example programs share (breakpoint,
// featurebench, solve, callgraph):
//
//   - Streams: stdout carries only machine output (JSONL or JSON, when -out is "-"; DOT or
//     JSON for callgraph); everything for people — progress, notes, summaries, errors — goes
//     to stderr.
//   - Exit status: 0 success; 1 a failure during the work (including "produced nothing");
//     2 a usage error — a bad flag value, a missing or malformed input found before any
//     work starts; 128+n when signal n stopped the program (130 SIGINT, 143 SIGTERM, 141
//     SIGPIPE, a closed stdout). -h and -help print the usage and exit 0.
//   - Validation first: every flag is checked (ranges, an output path that can be
//     created and written) before any work, and an error names the flag; nothing is
//     written then.
//   - Outputs are written whole or not at all: a file output is written to a temporary
//     file beside it and renamed into place when the program succeeds (File), so an
//     interrupted or failed run leaves no partial file.
//   - Signals: SIGINT, SIGTERM and SIGPIPE cancel the program's context (WithSignals, or
//     Main for a Program); the program stops its runs, removes its private copies (its
//     deferred Close calls run) and exits with 128+signal (ExitInterrupted, ExitTerminated,
//     ExitBrokenPipe). A second SIGINT or SIGTERM kills it at once.
//   - Progress: every phase longer than a few seconds reports on stderr what it is doing,
//     done/total, the time elapsed and an estimate of the time left (Progress).
//   - Flag names: the same thing has the same name everywhere — -repo (the repository),
//     -out (the output), -seed, -jobs (work done concurrently), -timeout (one test run),
//     -env (KEY=VALUE for the test runs, repeatable), -python (the interpreter with pytest).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Exit statuses of every program.
const (
	ExitOK          = 0   // the program produced what was asked
	ExitFailure     = 1   // it ran and failed, or produced less than asked and said so
	ExitUsage       = 2   // a flag or argument is wrong (nothing was done)
	ExitInterrupted = 130 // SIGINT (128 + 2)
	ExitBrokenPipe  = 141 // SIGPIPE (128 + 13): the reader of stdout went away
	ExitTerminated  = 143 // SIGTERM (128 + 15)
)

// Signals cancels a context when the program receives SIGINT, SIGTERM or SIGPIPE.
type Signals struct {
	mu   sync.Mutex
	sig  os.Signal
	ch   chan os.Signal
	stop chan struct{}
}

// WithSignals returns a context cancelled by the first SIGINT, SIGTERM or SIGPIPE and the
// Signals that recorded it. Call Stop when the program ends. A second signal is not caught
// again until Stop: it gets the default action, so a second Ctrl-C still ends a stuck
// program.
func WithSignals(parent context.Context) (context.Context, *Signals) {
	ctx, cancel := context.WithCancel(parent)
	s := &Signals{ch: make(chan os.Signal, 1), stop: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		select {
		case sig := <-s.ch:
			s.mu.Lock()
			s.sig = sig
			s.mu.Unlock()
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			cancel()
		case <-s.stop:
			cancel()
		}
	}()
	return ctx, s
}

// Stop stops catching signals.
func (s *Signals) Stop() {
	signal.Stop(s.ch)
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
}

// Received returns the signal that cancelled the context, or nil.
func (s *Signals) Received() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sig
}

// Code returns the exit status for the signal received (ExitInterrupted, ExitTerminated,
// ExitBrokenPipe), or code when none was.
func (s *Signals) Code(code int) int {
	switch s.Received() {
	case os.Interrupt:
		return ExitInterrupted
	case syscall.SIGTERM:
		return ExitTerminated
	case syscall.SIGPIPE:
		return ExitBrokenPipe
	}
	return code
}

// Program is a command: it runs with its arguments and streams, and returns its exit
// status. ctx is cancelled when the program is asked to stop.
type Program func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Main runs p with os.Args[1:] and the process's streams under a context cancelled by
// SIGINT, SIGTERM or SIGPIPE, and returns the exit status: p's own, or 128+signal when a
// signal arrived — reported only after p returned, so p's deferred cleanups have run.
func Main(p Program) int {
	return Run(context.Background(), p, os.Args[1:], os.Stdout, os.Stderr)
}

// Run is Main with the arguments and streams given.
func Run(ctx context.Context, p Program, args []string, stdout, stderr io.Writer) int {
	ctx, sig := WithSignals(ctx)
	code := p(ctx, args, stdout, stderr)
	sig.Stop()
	return sig.Code(code)
}

// Interrupted reports whether err comes from a cancelled context (the program was asked to
// stop).
func Interrupted(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, ctx.Err()))
}

// Parse parses args into fs (which must use flag.ContinueOnError and write to stderr). It
// returns -1 when the program should go on, else the exit status: 0 for -h/-help (the
// usage was printed), 2 for a bad flag. Positional arguments are refused unless
// positional is true.
func Parse(fs *flag.FlagSet, args []string, positional bool) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if !positional && fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q (every input is a flag)\n", fs.Name(), fs.Arg(0))
		return ExitUsage
	}
	return -1
}

// Usage prints "prog: message" to w and returns ExitUsage.
func Usage(w io.Writer, prog, format string, a ...any) int {
	fmt.Fprintf(w, prog+": "+format+"\n", a...)
	return ExitUsage
}

// EnvFlag is a repeatable -env KEY=VALUE flag.
type EnvFlag []string

// String returns the values joined by spaces.
func (e *EnvFlag) String() string { return strings.Join(*e, " ") }

// Set adds one KEY=VALUE.
func (e *EnvFlag) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" || strings.ContainsAny(k, " \t\n") {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

// ListFlag is a repeatable flag of non-empty values (e.g. -flaky ID).
type ListFlag []string

// String returns the values joined by spaces.
func (l *ListFlag) String() string { return strings.Join(*l, " ") }

// Set adds one value.
func (l *ListFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("want a value, got %q", v)
	}
	*l = append(*l, v)
	return nil
}

// CheckOutputFile checks, without creating or changing anything that stays, that the file
// output of flag can be written at path: "-" (stdout) is fine; "" is refused; an existing
// directory is refused; the directory that will hold the file must exist and accept a new
// file (a probe file is created there and removed); an existing file must be writable
// (opened for writing, not truncated).
func CheckOutputFile(flagName, path string) error {
	switch path {
	case "-":
		return nil
	case "":
		return fmt.Errorf("-%s: empty path (use - for stdout)", flagName)
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("-%s %s: is a directory", flagName, path)
		}
		if st.Mode()&fs.ModeNamedPipe != 0 {
			return nil // opening a pipe waits for its reader: the output opens it (see InPlace)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("-%s %s: not writable: %w", flagName, path, err)
		}
		f.Close()
		if !st.Mode().IsRegular() {
			return nil // a device, written in place (see InPlace)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("-%s %s: %w", flagName, path, err)
	}
	return probeDir(flagName, path, filepath.Dir(path))
}

// CheckOutputDir checks that the directory output of flag can be made or written at path:
// "" is refused; an existing path must be a directory that accepts a new file; a missing
// one is made later, so its nearest existing ancestor must be a directory that accepts a
// new entry. Nothing stays written.
func CheckOutputDir(flagName, path string) error {
	if path == "" {
		return fmt.Errorf("-%s: empty path", flagName)
	}
	dir := filepath.Clean(path)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("-%s %s: %s is not a directory", flagName, path, dir)
			}
			return probeDir(flagName, path, dir)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("-%s %s: %w", flagName, path, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("-%s %s: no existing ancestor", flagName, path)
		}
		dir = parent
	}
}

// probeDir creates and removes a file in dir.
func probeDir(flagName, path, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-%s %s: %w", flagName, path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("-%s %s: %s is not a directory", flagName, path, dir)
	}
	f, err := os.CreateTemp(dir, ".faultline-probe-*")
	if err != nil {
		return fmt.Errorf("-%s %s: cannot write in %s: %w", flagName, path, dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// File is an output written whole or not at all: a temporary file beside the target,
// renamed into place by Commit; Abort (or Commit's failure) removes it. The output "-"
// is stdout, written directly.
type File struct {
	io.Writer
	path   string
	f      *os.File // the temporary file
	direct *os.File // a device or a pipe written in place
}

// SetExcept lists the flags set on fs's command line, as "-name" in the order flag.Visit
// gives (sorted by name), leaving out those named in allowed. A mode that takes only a few
// flags (-merge) refuses the others with it.
func SetExcept(fs *flag.FlagSet, allowed ...string) []string {
	var other []string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(allowed, f.Name) {
			other = append(other, "-"+f.Name)
		}
	})
	return other
}

// InPlace reports whether path names an existing file that is neither a regular file nor a
// directory: a device such as /dev/null or /dev/stdout, or a named pipe. Outputs are written
// to such a file directly: a temporary file renamed over it would replace the device itself
// (run as root, /dev/null would become a regular file holding the output).
func InPlace(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.Mode().IsRegular() && !st.IsDir()
}

// Create starts the output at path ("-": stdout; a device or a pipe, see InPlace: written
// directly, without a temporary file).
func Create(path string, stdout io.Writer) (*File, error) {
	if path == "-" {
		return &File{Writer: stdout, path: path}, nil
	}
	if InPlace(path) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{Writer: f, path: path, direct: f}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{Writer: f, path: path, f: f}, nil
}

// Commit closes the temporary file and renames it to its path (stdout: nothing to do).
func (o *File) Commit() error {
	if d := o.direct; d != nil {
		o.direct = nil
		return d.Close()
	}
	if o.f == nil {
		return nil
	}
	f := o.f
	o.f = nil
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), o.path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// Abort removes the temporary file; after Commit it does nothing. Safe to defer.
func (o *File) Abort() {
	if d := o.direct; d != nil {
		o.direct = nil
		d.Close()
	}
	if o.f == nil {
		return
	}
	o.f.Close()
	os.Remove(o.f.Name())
	o.f = nil
}

// Language reads a -lang flag of a repository program: "go" and "python" are taken as
// given; "auto" picks Go when root has a go.mod and Python when it has a .py file (hidden
// directories are not searched). Any other value, or a repository with neither, is an
// error naming the flag.
func Language(root, flagValue string) (string, error) {
	switch flagValue {
	case "go", "python":
		return flagValue, nil
	case "auto":
	default:
		return "", fmt.Errorf("-lang %q: want auto, go or python", flagValue)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
		return "go", nil
	}
	found := errors.New("found")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			return found
		}
		return nil
	})
	if errors.Is(err, found) {
		return "python", nil
	}
	return "", fmt.Errorf("-lang auto: %s has neither a go.mod nor Python files; pass -lang", root)
}

// Repo reads a -repo flag: the directory must exist. It returns its absolute path.
func Repo(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("-repo DIR is required")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("-repo %s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("-repo %s: %w", path, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("-repo %s: not a directory", path)
	}
	return abs, nil
}

// Outside refuses an output path of flag that lies inside the repository root (the
// repository is never written).
func Outside(flagName, path, root string) error {
	if path == "-" || path == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("-%s %s: %w", flagName, path, err)
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	if r, err := filepath.Abs(root); err == nil {
		root = r
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if abs == root || strings.HasPrefix(abs, root+string(filepath.Separator)) {
		return fmt.Errorf("-%s %s lies inside the repository %s, which is never written", flagName, path, root)
	}
	return nil
}

// Python reads a -python flag: "" (detect later) or an executable found as a path or on
// PATH.
func Python(v string) error {
	if v == "" {
		return nil
	}
	if _, err := exec.LookPath(v); err != nil {
		return fmt.Errorf("-python %s: %w", v, err)
	}
	return nil
}

// GitHead returns the commit checked out in root when root is the top of a git work tree,
// "" otherwise (no .git there, no git command, or git fails).
func GitHead(root string) string {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return ""
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Output names one file output of a program: its flag and path; an Optional output with an
// empty path is not asked for.
type Output struct {
	Flag, Path string
	Optional   bool
}

// CheckOutputs checks a program's file outputs before any work: each must be writable
// (CheckOutputFile) and outside the repository root (Outside; "" skips that), at most
// one may be stdout ("-"), and no two may name the same file.
func CheckOutputs(root string, outs ...Output) error {
	var stdout string
	seen := map[string]string{}
	for _, o := range outs {
		if o.Optional && o.Path == "" {
			continue
		}
		if err := CheckOutputFile(o.Flag, o.Path); err != nil {
			return err
		}
		if o.Path == "-" {
			if stdout != "" {
				return fmt.Errorf("-%s and -%s cannot both be stdout", stdout, o.Flag)
			}
			stdout = o.Flag
			continue
		}
		clean := filepath.Clean(o.Path)
		if other, ok := seen[clean]; ok {
			return fmt.Errorf("-%s and -%s name the same file %s", other, o.Flag, o.Path)
		}
		seen[clean] = o.Flag
		if root != "" {
			if err := Outside(o.Flag, o.Path, root); err != nil {
				return err
			}
		}
	}
	return nil
}

// Fail reports how a program's work ended and returns the exit status: ExitOK for a nil
// err; otherwise "prog: interrupted; nothing written" when the context was cancelled
// (Run turns the status into 128+signal) or "prog: " and the error (without a repeated
// "prog: " prefix), and ExitFailure.
func Fail(ctx context.Context, stderr io.Writer, prog string, err error) int {
	switch {
	case err == nil:
		return ExitOK
	case Interrupted(ctx, err):
		fmt.Fprintf(stderr, "%s: interrupted; nothing written\n", prog)
	default:
		fmt.Fprintf(stderr, "%s: %s\n", prog, strings.TrimPrefix(err.Error(), prog+": "))
	}
	return ExitFailure
}
