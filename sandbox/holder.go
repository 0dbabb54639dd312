package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A holder keeps one slot's namespaces alive between runs: creating namespaces (and
// remounting the filesystem read-only, building /dev) costs tens of milliseconds per run,
// entering existing namespaces with nsenter(1) costs about one exec. The holder is `unshare
// --net --mount --pid --uts --ipc --fork --kill-child --mount-proc` running the prelude (see
// isolation.prelude: the slot directory becomes a tmpfs of Options.DiskBytes, the build cache
// is bind-mounted writable, everything else read-only, /dev minimal, /run empty) and then
// sleeping as the namespace's init, with an environment of nothing but PATH. Each slot has
// its own holder, so concurrent runs never share a loopback interface, a PID namespace or a
// run directory. The runner reaches the slot's tmpfs from the host through
// /proc/<init>/root. After a run, any process left in the namespace (a daemon that left the
// process group, or the zombie of one) makes the runner kill the holder — which takes the
// whole namespace and the tmpfs with it — and start a fresh one for the next run.
type holder struct {
	cmd   *exec.Cmd
	init  int    // host pid of the namespace's init
	pidNS string // readlink of /proc/init/ns/pid
	// tmpNames are the host's entries in the namespace's private /tmp (nil: /tmp is the
	// host's): anything else there was written by a run
	tmpNames map[string]bool
	// tmpAsked are the entries of /tmp it was started to show (preludeSpec.tmpShow)
	tmpAsked map[string]bool
}

// shows reports whether the holder's /tmp was made to show every entry of the host's /tmp
// named in need (always, when it has no private /tmp).
func (h *holder) shows(need map[string]bool) bool {
	if h.tmpNames == nil {
		return true
	}
	for n := range need {
		if !h.tmpAsked[n] {
			return false
		}
	}
	return true
}

var errHolder = errors.New("namespace holder did not start")

// startHolder starts a holder with the prelude of p.
func (iso *isolation) startHolder(p preludeSpec) (*holder, error) {
	script, tmpNames := iso.prelude(p)
	script += "exec sleep 2147483647\n"
	argv := append(append([]string{}, iso.unshare...), "--", "/bin/sh", "-c", script)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = holderEnv
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: %w: %w", errHolder, err)
	}
	h := &holder{cmd: cmd, tmpNames: tmpNames, tmpAsked: p.tmpShow}
	// Wait until the child runs sleep: the prelude is done.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if pid := childOf(cmd.Process.Pid); pid > 0 {
			if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); err == nil && strings.TrimSpace(string(b)) == "sleep" {
				ns, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "ns", "pid"))
				if err == nil {
					h.init, h.pidNS = pid, ns
					return h, nil
				}
			}
		}
		if cmd.ProcessState != nil || syscall.Kill(cmd.Process.Pid, 0) != nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.stop()
	return nil, fmt.Errorf("sandbox: %w: %s", errHolder, strings.TrimSpace(stderr.String()))
}

// childOf returns a child pid of pid, or 0.
func childOf(pid int) int {
	p := strconv.Itoa(pid)
	if b, err := os.ReadFile(filepath.Join("/proc", p, "task", p, "children")); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			c, _ := strconv.Atoi(f[0])
			return c
		}
		return 0
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if ppid(e.Name()) == pid {
			c, _ := strconv.Atoi(e.Name())
			return c
		}
	}
	return 0
}

func ppid(pid string) int {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return -1
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// alive reports whether the holder's namespace still exists.
func (h *holder) alive() bool {
	ns, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(h.init), "ns", "pid"))
	return err == nil && ns == h.pidNS
}

// leftovers reports whether a process other than init lives in the holder's PID namespace
// (after stop: whether any process does).
func (h *holder) leftovers() bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == h.init {
			continue
		}
		if ns, err := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "pid")); err == nil && ns == h.pidNS {
			return true
		}
	}
	return false
}

// stop kills the holder and, with it, everything in its namespaces.
func (h *holder) stop() {
	if h == nil || h.cmd == nil || h.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	if h.init > 0 {
		_ = syscall.Kill(h.init, syscall.SIGKILL)
	}
	_ = h.cmd.Wait()
	h.cmd = nil
	// The kernel kills the rest of the namespace asynchronously once init is gone; wait for it
	// so the caller sees a clean process table.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline) && h.leftovers(); {
		time.Sleep(5 * time.Millisecond)
	}
}

// root is the path of the holder's root directory as the host sees it: the prefix that
// reaches the slot's tmpfs.
func (h *holder) root() string { return "/proc/" + strconv.Itoa(h.init) + "/root" }

// enter returns the argv that runs argv inside the holder's namespaces, under prlimit.
// Entering a mount namespace moves the working directory to its root, so a shell changes to
// dir inside the namespace (nsenter --wd would open dir in the host's namespace, and relative
// paths would then resolve through the host's writable mounts).
// output is preludeSpec.output.
func (iso *isolation) enter(h *holder, argv []string, dir string, output bool, as, cpu int64, nproc int) []string {
	argv = iso.limit(argv, as, cpu, nproc)
	p := strconv.Itoa(h.init)
	ns := []string{iso.nsenter}
	for _, n := range [][2]string{{"net", "net"}, {"mount", "mnt"}, {"pid", "pid"}, {"uts", "uts"}, {"ipc", "ipc"}} {
		ns = append(ns, "--"+n[0]+"=/proc/"+p+"/ns/"+n[1])
	}
	return append(append(ns, "--", "/bin/sh", "-c", `cd "$0" || exit 97`+"\n"+iso.chownIf(output)+`exec "$@"`, dir), argv...)
}
