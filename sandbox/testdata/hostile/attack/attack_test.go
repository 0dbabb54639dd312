// Package attack holds the attacks of the hostile suite (sandbox/hostile_test.go): each test
// tries one thing a test must not be able to do and fails when the sandbox stops it. The
// suite checks both the outcome and the host's state afterwards. Targets come from HOSTILE_*
// variables set by the suite.
package attack

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func target(t *testing.T, name string) string {
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s not set", name)
	}
	return v
}

// TestRemount makes the root filesystem writable again and writes into the host's /tmp
// and the user's checkout through it.
func TestRemount(t *testing.T) {
	err := syscall.Mount("", "/", "", syscall.MS_REMOUNT|syscall.MS_BIND, "")
	if out, e := exec.Command("mount", "-o", "remount,rw,bind", "/").CombinedOutput(); e != nil {
		err = errors.Join(err, errors.New(strings.TrimSpace(string(out))))
	}
	var failed []string
	for _, p := range []string{target(t, "HOSTILE_HOST_TMP"), filepath.Join(target(t, "HOSTILE_CHECKOUT"), "pwned.txt")} {
		if e := os.WriteFile(p, []byte("pwned"), 0o644); e != nil {
			failed = append(failed, e.Error())
		}
	}
	if len(failed) > 0 {
		t.Fatalf("remount: %v; writes: %s", err, strings.Join(failed, "; "))
	}
}

// TestWriteDev creates a file in /dev.
func TestWriteDev(t *testing.T) {
	if err := os.WriteFile(filepath.Join("/dev", target(t, "HOSTILE_MARK")), []byte("pwned"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteDevShm creates a file in /dev/shm (allowed: the run's own /dev/shm); the suite
// checks that the host's /dev/shm did not get it.
func TestWriteDevShm(t *testing.T) {
	if err := os.WriteFile(filepath.Join("/dev/shm", target(t, "HOSTILE_MARK")), []byte("pwned"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSethostname renames the host.
func TestSethostname(t *testing.T) {
	if err := syscall.Sethostname([]byte("pwned")); err != nil {
		t.Fatal(err)
	}
}

// TestCorePattern opens the kernel's core pattern for writing (a program the kernel would
// run as root on the next crash).
func TestCorePattern(t *testing.T) {
	f, err := os.OpenFile("/proc/sys/kernel/core_pattern", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestDockerSocket connects to the Docker daemon (root on the host).
func TestDockerSocket(t *testing.T) {
	var errs []string
	for _, p := range []string{"/var/run/docker.sock", "/run/docker.sock"} {
		c, err := net.DialTimeout("unix", p, 2*time.Second)
		if err == nil {
			c.Close()
			return
		}
		errs = append(errs, err.Error())
	}
	t.Fatal(strings.Join(errs, "; "))
}

// TestReadShadow reads the password hashes.
func TestReadShadow(t *testing.T) {
	if _, err := os.ReadFile("/etc/shadow"); err != nil {
		t.Fatal(err)
	}
}

// TestPoisonCache writes into the go command's build cache: a new entry, and over an
// existing one (the go command checks only an entry's size and build id).
func TestPoisonCache(t *testing.T) {
	dir := target(t, "HOSTILE_GOCACHE")
	var errs []string
	if err := os.WriteFile(filepath.Join(dir, "00", "pwned-d"), []byte("pwned"), 0o644); err == nil {
		return
	} else {
		errs = append(errs, err.Error())
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "01"))
	for _, e := range ents {
		f, err := os.OpenFile(filepath.Join(dir, "01", e.Name()), os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			f.Close()
			return
		}
		errs = append(errs, err.Error())
		break
	}
	t.Fatal(strings.Join(errs, "; "))
}

// TestGoWorkDir takes over the go command's work directory (the parent of this binary's
// own directory), where the go command, still compiling other packages, writes what it then
// stores in the build cache: renaming it away lets the test put a directory of its own in
// its place.
func TestGoWorkDir(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Dir(filepath.Dir(exe))
	if err := os.Rename(work, work+"-pwned"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(work+"-pwned", work); err != nil {
		t.Logf("renaming back: %v", err)
	}
}

// TestRebuildTesting rebuilds the testing package into the go command's build cache (the
// issue's trojan went there this way). The go command ignores a cache it cannot write, so
// the build may pass: the suite checks that nothing in the cache belongs to the run's uid.
// Slow: only with HOSTILE_FULL set.
func TestRebuildTesting(t *testing.T) {
	if os.Getenv("HOSTILE_FULL") == "" {
		t.Skip("HOSTILE_FULL not set")
	}
	cmd := exec.Command("go", "build", "-a", "-o", os.DevNull, "testing")
	cmd.Env = append(os.Environ(), "GOCACHE="+target(t, "HOSTILE_GOCACHE"), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, lastLine(out))
	}
}

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}

// TestSecrets prints every environment it can read: its own and each process's in /proc.
// The suite checks that the parent's secret appears in no report.
func TestSecrets(t *testing.T) {
	t.Log("own: " + strings.Join(os.Environ(), " "))
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			t.Logf("%s: %v", e.Name(), err)
			continue
		}
		t.Logf("%s: %s", e.Name(), bytes.ReplaceAll(b, []byte{0}, []byte(" ")))
	}
}

// TestFillDisk writes HOSTILE_FILL_MB MiB into the tree; it fails when the quota stops it.
func TestFillDisk(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("HOSTILE_FILL_MB"))
	if mb == 0 {
		t.Skip("HOSTILE_FILL_MB not set")
	}
	f, err := os.Create("fill.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range mb {
		if _, err := f.Write(buf); err != nil {
			t.Fatalf("after %d MiB: %v", i, err)
		}
	}
}
