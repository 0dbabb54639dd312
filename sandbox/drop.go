package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/faultline-dev/faultline/task"
)

// FaultlineGoCache returns faultline's own Go build cache, $XDG_CACHE_HOME/faultline/gocache
// (os.UserCacheDir): the default Options.GoCache. Only the go command writes it, never a test.
func FaultlineGoCache() (string, error) {
	d, err := faultlineCacheDir("gocache")
	if err != nil {
		return "", fmt.Errorf("sandbox: no cache directory for faultline's GOCACHE (set Options.GoCache): %w", err)
	}
	return d, nil
}

// faultlineCacheDir is the one rule for where faultline keeps what it caches:
// $XDG_CACHE_HOME/faultline/name (os.UserCacheDir).
func faultlineCacheDir(name string) (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "faultline", name), nil
}

// writeGoExec writes the program given to `go test -exec` and returns its path. It runs each
// test binary with the run's TMPDIR (the go command's is the slot's gotmp) and GOCACHE
// pointing into it (a test that runs the go command gets a cache no other run reads), under
// the run's address-space limit (Limits.MemoryBytes, passed in testMemoryEnv: the go command
// itself gets buildMemory) and without privilege:
//
//   - as root: it makes the go command's work directory searchable and gives the run's
//     uid the binary's directory there (where go asks it to write coverage data) and the
//     binary's output pipes, and runs the binary through
//     the privilege drop (setpriv to RunUID, no_new_privs, no capabilities), which cannot
//     write the build cache (owned by root);
//   - in a user namespace (the binary would run as the cache's owner): in a mount namespace
//     of its own where the cache and the go command's TMPDIR (but for the binary's own
//     directory) are read-only, then through the drop (no capabilities, so the mounts
//     cannot be made writable again);
//   - without isolation: as it is.
func (l *Local) writeGoExec() (string, error) {
	var sc strings.Builder
	sc.WriteString("#!/bin/sh\n# faultline sandbox: go test -exec program (see the sandbox package doc).\n")
	// The go command's TMPDIR is the slot's gotmp (see slot.gotmp); the binary gets the run's.
	sc.WriteString("case $TMPDIR in */" + goTmpName + ") TMPDIR=${TMPDIR%/" + goTmpName + "}/tmp; export TMPDIR;; esac\n")
	sc.WriteString("GOCACHE=$TMPDIR/gocache; export GOCACHE\n")
	// The run's address-space limit is the test binary's, set here on this shell (and so on
	// what it executes) rather than on the go command, whose compilers need more.
	if l.iso.prlimit != "" {
		fmt.Fprintf(&sc, "if [ -n \"${%[1]s:-}\" ]; then %[2]s --pid $$ --as=\"$%[1]s\" || exit 97; fi\n", testMemoryEnv, shellQuote(l.iso.prlimit))
	}
	sc.WriteString("unset " + testMemoryEnv + "\n")
	drop := strings.Join(quoteAll(l.iso.drop), " ")
	switch {
	case l.iso.dropUID:
		// The binary's directory (go's $WORK/bNNN) becomes the run's: the binary writes its
		// coverage there (-test.gocoverdir, -test.coverprofile).
		u := strconv.Itoa(RunUID)
		sc.WriteString("d=${1%/*}\nchmod 0711 \"${d%/*}\" && chown " + u + ":" + u + " \"$d\" || exit 97\n")
		sc.WriteString("if [ -d \"$d/gocoverdir\" ]; then chown " + u + ":" + u + " \"$d/gocoverdir\" || exit 97; fi\n")
		sc.WriteString(l.iso.chownOutput())
		sc.WriteString("exec " + drop + " \"$@\"\n")
	case len(l.iso.drop) > 0 && l.iso.unshare != nil:
		// The binary runs as the go command's uid: its mount namespace also makes the go
		// command's TMPDIR (gotmp, the parent of the work directory) read-only, all but the
		// binary's own directory.
		inner := `mount -o remount,bind,ro "$0" || exit 97
d=${1%/*}; g=${d%/*}; g=${g%/*}
case $g in */` + goTmpName + `) { mount --bind "$g" "$g" && mount -o remount,bind,ro "$g" && mount --bind "$d" "$d" && mount -o remount,bind,rw "$d"; } || exit 97;; esac
exec ` + drop + ` "$@"`
		fmt.Fprintf(&sc, "exec %s --mount -- /bin/sh -c %s %s \"$@\"\n", shellQuote(l.iso.unshare[0]), shellQuote(inner), shellQuote(l.goCache))
	default:
		sc.WriteString("exec \"$@\"\n")
	}
	p := filepath.Join(l.dir, "go-exec")
	if err := writeExecutable(p, []byte(sc.String())); err != nil {
		return "", fmt.Errorf("sandbox: writing the -exec program: %w", err)
	}
	return p, nil
}

// goTmpName is the name of a slot's gotmp directory.
const goTmpName = "gotmp"

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}

// searchable reports whether every directory from / down to dir lets others search it (so
// RunUID can reach what lies below).
func searchable(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	for d := real; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}

// sameFile reports whether a and b are the same file (true when either cannot be read, so
// that a caller about to delete refrains).
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return true
	}
	fb, err := os.Stat(b)
	if err != nil {
		return true
	}
	return os.SameFile(fa, fb)
}

// runDir is the runner-side working directory of a run's command: the tree, or the slot
// directory when the tree lives in a holder's tmpfs (the command changes into it inside).
func (l *Local) runDir(s *slot) string {
	if s.h != nil {
		return s.dir
	}
	return s.tree
}

// own gives the run's uid what it may write, when runs drop to RunUID: HOME, TMPDIR and the
// output directory are its own. For pytest and commands the whole tree is; for Go runs the
// tree's directories are sticky and world-writable (1777) and its files stay root's,
// without group or other write permission: a test can create files but not change the
// sources the go command may still be compiling (a test binary running while the go command
// hashes and compiles another package must not be able to swap its files, which would put
// code under another content's key in the build cache).
func (l *Local) own(s *slot, kind task.TestKind) error {
	if !l.iso.dropUID {
		return nil
	}
	for _, d := range []string{s.home, s.tmp, s.out} {
		if err := os.Lchown(s.hp(d), RunUID, RunUID); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	err := filepath.WalkDir(s.hp(s.tree), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if kind != task.GoTest {
			return os.Lchown(p, RunUID, RunUID)
		}
		switch {
		case d.IsDir():
			return os.Chmod(p, 0o1777)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if m := info.Mode().Perm(); m&0o022 != 0 {
				return os.Chmod(p, m&^0o022)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sandbox: preparing the tree for uid %d: %w", RunUID, err)
	}
	return nil
}

// openRunFile opens a file the run wrote (JUnit, events) without following a symbolic link
// and without blocking on a FIFO; anything but a regular file with one link is refused (the
// run could otherwise make the runner read a file of the host's).
func openRunFile(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !st.Mode().IsRegular() || (ok && sys.Nlink != 1) {
		f.Close()
		return nil, fmt.Errorf("sandbox: %s is not a regular file with one link", p)
	}
	return f, nil
}

// CheckGoArgs refuses go flags in a request's args that make the go command run a program
// of the request's choosing while it builds, where the build cache is writable and (in the
// local runner) before any privilege drop: -exec, -toolexec, -compiler and -gccgoflags, and
// -ldflags naming an external linker (-extld, -linkmode). Errors wrap ErrBadRequest.
func CheckGoArgs(args []string) error {
	for i, a := range args {
		name := strings.TrimLeft(a, "-")
		if name == a {
			continue
		}
		name, val, hasVal := strings.Cut(name, "=")
		if !hasVal && i+1 < len(args) {
			val = args[i+1]
		}
		bad := false
		switch name {
		case "exec", "toolexec", "compiler", "gccgoflags":
			bad = true
		case "ldflags":
			bad = strings.Contains(val, "extld") || strings.Contains(val, "linkmode")
		}
		if bad {
			return fmt.Errorf("sandbox: go flag %s is not allowed in a request's args (it would run a program while building): %w", a, ErrBadRequest)
		}
	}
	return nil
}
