package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// isolation is what the host lets us do, probed once per Local.
type isolation struct {
	unshare  []string // the unshare command prefix, nil when unavailable
	readOnly bool     // the prelude remounts the filesystem read-only
	pidNS    bool
	netNS    bool
	ip       string // path of ip(8), "" when absent
	prlimit  string // path of prlimit(1), "" when absent
	nsenter  string // path of nsenter(1) when slots keep their namespaces (root only)
	notes    []string
}

// probeIsolation finds the strongest isolation that works here: network, mount and PID
// namespaces with unshare(1) (as root, or in a user namespace otherwise) and a read-only view
// of the filesystem, then network only, then nothing; each degradation is a note.
func probeIsolation(disabled bool, allowNet bool) *isolation {
	iso := &isolation{}
	iso.prlimit, _ = exec.LookPath("prlimit")
	if iso.prlimit == "" {
		iso.notes = append(iso.notes, "resource limits unavailable: prlimit(1) not found")
	}
	iso.ip, _ = exec.LookPath("ip")
	if disabled {
		iso.notes = append(iso.notes, "isolation disabled by option: the tests see the host's network and filesystem")
		return iso
	}
	un, err := exec.LookPath("unshare")
	if err != nil {
		iso.notes = append(iso.notes, "network and filesystem isolation unavailable: unshare(1) not found")
		return iso
	}
	var user []string
	if os.Geteuid() != 0 {
		user = []string{"--user", "--map-root-user"}
	}
	net := []string{"--net"}
	if allowNet {
		net = nil
	}
	try := func(args []string, ro bool) bool {
		cand := &isolation{unshare: append([]string{un}, args...), readOnly: ro, ip: iso.ip}
		tmp, err := os.MkdirTemp("", "faultline-probe-")
		if err != nil {
			return false
		}
		defer os.RemoveAll(tmp)
		cmd := exec.Command(cand.unshare[0], cand.wrap([]string{"/bin/sh", "-c", "exit 0"}, tmp, []string{tmp}, 0, 0, 0)[1:]...)
		return cmd.Run() == nil
	}
	full := append(append(append([]string{}, user...), net...), "--mount", "--pid", "--fork", "--kill-child", "--mount-proc")
	switch {
	case try(full, true):
		iso.unshare, iso.readOnly, iso.pidNS, iso.netNS = append([]string{un}, full...), true, true, !allowNet
	case !allowNet && try(append(append([]string{}, user...), net...), false):
		iso.unshare, iso.netNS = append([]string{un}, append(append([]string{}, user...), net...)...), true
		iso.notes = append(iso.notes, "filesystem isolation unavailable: the tests can write outside their tree")
	default:
		iso.notes = append(iso.notes, "network and filesystem isolation unavailable: unshare failed (not root and no user namespaces?)")
	}
	if allowNet {
		iso.notes = append(iso.notes, "network allowed by option")
	}
	if iso.pidNS && os.Geteuid() == 0 {
		iso.nsenter, _ = exec.LookPath("nsenter")
	}
	if !iso.pidNS {
		iso.notes = append(iso.notes, "pid namespace unavailable: processes that leave the process group may outlive the run")
	}
	return iso
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// limit prefixes argv with prlimit and the limits that are set.
func (iso *isolation) limit(argv []string, as int64, cpu int64, nproc int) []string {
	var limits []string
	if iso.prlimit != "" {
		if as > 0 {
			limits = append(limits, "--as="+strconv.FormatInt(as, 10))
		}
		if cpu > 0 {
			limits = append(limits, "--cpu="+strconv.FormatInt(cpu, 10))
		}
		if nproc > 0 {
			limits = append(limits, "--nproc="+strconv.Itoa(nproc))
		}
	}
	if len(limits) == 0 {
		return argv
	}
	return append(append(append([]string{iso.prlimit}, limits...), "--"), argv...)
}

// prelude is the /bin/sh script run first inside new namespaces: it brings loopback up,
// bind-mounts the writable directories onto themselves and remounts every other mount
// read-only (except /proc, /sys and /dev).
func (iso *isolation) prelude(writable []string) string {
	var sc strings.Builder
	if iso.netNS && iso.ip != "" {
		sc.WriteString(shellQuote(iso.ip) + " link set lo up 2>/dev/null\n")
	}
	if iso.readOnly {
		ws := map[string]bool{}
		for _, w := range writable {
			ws[w] = true
			fmt.Fprintf(&sc, "mount --bind %s %s || exit 97\n", shellQuote(w), shellQuote(w))
		}
		sc.WriteString("mount -o remount,bind,ro / || exit 97\n")
		for _, m := range mountPoints() {
			if ws[m] || m == "/" || under(m, "/proc") || under(m, "/sys") || under(m, "/dev") {
				continue
			}
			fmt.Fprintf(&sc, "mount -o remount,bind,ro %s 2>/dev/null\n", shellQuote(m))
		}
	}
	return sc.String()
}

// wrap returns the argv that runs argv in fresh namespaces (unshare, then the prelude), under
// prlimit.
//
// The prelude ends by changing to dir again: the working directory inherited through unshare
// refers to the mount that was just made read-only, not to the writable bind mount.
func (iso *isolation) wrap(argv []string, dir string, writable []string, as int64, cpu int64, nproc int) []string {
	argv = iso.limit(argv, as, cpu, nproc)
	if iso.unshare == nil {
		return argv
	}
	out := append([]string{}, iso.unshare...)
	out = append(out, "--", "/bin/sh", "-c", iso.prelude(writable)+"cd "+shellQuote(dir)+" || exit 97\n"+`exec "$@"`, "sandbox")
	return append(out, argv...)
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

var (
	mountOnce sync.Once
	mounts    []string
)

// mountPoints lists the host's mount points from /proc/self/mountinfo, sorted.
func mountPoints() []string {
	mountOnce.Do(func() {
		f, err := os.Open("/proc/self/mountinfo")
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		seen := map[string]bool{}
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 5 {
				continue
			}
			m := unescapeMount(fields[4])
			if !seen[m] {
				seen[m] = true
				mounts = append(mounts, m)
			}
		}
		sort.Strings(mounts)
	})
	return mounts
}

// unescapeMount decodes the octal escapes (\040 for space) of mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// procResult is how a command ended.
type procResult struct {
	exitCode  int // -1 when killed by a signal
	timedOut  bool
	cancelled bool
	wall      time.Duration
	startErr  error
}

// runProc starts argv in dir with env in its own process group, feeding stdout and stderr to
// the writers; at the timeout (or when ctx is done) it sends SIGTERM to the whole group and
// SIGKILL after grace. Whatever is left of the group when the command ends is killed too.
func runProc(ctx context.Context, argv []string, dir string, env []string, stdout, stderr io.Writer, timeout, grace time.Duration) procResult {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = grace
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return procResult{exitCode: -1, startErr: err}
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var res procResult
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	kill := func() {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case err = <-done:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			err = <-done
		}
	}
	select {
	case err = <-done:
	case <-timer.C:
		res.timedOut = true
		kill()
	case <-ctx.Done():
		res.cancelled = true
		kill()
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // children left in the group
	res.wall = time.Since(start)
	res.exitCode = cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		res.startErr = err
	}
	return res
}

// scrubbedEnv returns the environment a test run sees: a fixed allow-list of harmless
// variables from the host (never tokens or credentials), then extra.
func scrubbedEnv(host []string, extra []string) []string {
	keep := map[string]bool{
		"PATH": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true, "TZ": true, "TERM": true,
		"GOROOT": true, "GOPATH": true, "GOFLAGS": true, "GOTOOLCHAIN": true, "GOPROXY": true,
		"GONOSUMDB": true, "GONOSUMCHECK": true, "GOSUMDB": true, "GOPRIVATE": true, "GONOPROXY": true,
		"GOEXPERIMENT": true, "CGO_ENABLED": true, "CC": true, "CXX": true, "GOARCH": true, "GOOS": true,
		"GOAMD64": true,
	}
	var env []string
	for _, kv := range host {
		k, _, _ := strings.Cut(kv, "=")
		if keep[k] {
			env = append(env, kv)
		}
	}
	return mergeEnv(env, extra)
}

// mergeEnv sets each KEY=VALUE of extra in env, replacing earlier values.
func mergeEnv(env, extra []string) []string {
	out := append([]string{}, env...)
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		replaced := false
		for i, old := range out {
			if ok, _, _ := strings.Cut(old, "="); ok == k {
				out[i], replaced = kv, true
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}

// goEnv reads `go env` values with the host environment.
func goEnv(goBin string, keys ...string) (map[string]string, error) {
	out, err := exec.Command(goBin, append([]string{"env"}, keys...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("sandbox: go env: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	m := map[string]string{}
	for i, k := range keys {
		if i < len(lines) {
			m[k] = lines[i]
		}
	}
	return m, nil
}

// findPython returns the first candidate interpreter that can import pytest.
func findPython(cands []string) (string, error) {
	var tried []string
	for _, c := range cands {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		tried = append(tried, p)
		var stderr bytes.Buffer
		cmd := exec.Command(p, "-c", "import pytest")
		cmd.Stderr = &stderr
		if cmd.Run() == nil {
			abs, _ := filepath.Abs(p)
			return abs, nil
		}
	}
	return "", fmt.Errorf("sandbox: no python interpreter with pytest among %v (tried %v): %w", cands, tried, ErrNoPython)
}

// ErrNoPython is returned when no interpreter with pytest is found.
var ErrNoPython = errors.New("python with pytest not found")
