package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
)

// RunUID is the user and group id the tested code runs as when the runner is root (nobody
// on Debian and most distributions: it owns nothing, and user.Current works).
const RunUID = 65534

// isolation is what the host lets us do, probed once per Local.
type isolation struct {
	unshare []string // the unshare command prefix, nil when unavailable
	layers  Layer
	userNS  bool     // the namespaces belong to a user namespace (the runner is not root)
	dropUID bool     // the tested code runs as RunUID (the runner is root)
	drop    []string // the prefix that takes away every privilege ("" when unavailable)
	ip      string   // path of ip(8), "" when absent
	prlimit string   // path of prlimit(1), "" when absent
	nsenter string   // path of nsenter(1) when slots keep their namespaces (root only)
	disk    int64    // size of a slot's tmpfs (LayerQuota)
	// privateTmp: with LayerReadOnly, /tmp is a tmpfs of the run's own where the host's
	// entries the run needs are bound read-only (see privateTmp)
	privateTmp bool
	// privateHome, when set, is the runner's home directory, hidden from runs that run as
	// the runner's own uid (without root): a tmpfs covers it where the entries the run needs
	// are bound read-only (see privateHome)
	privateHome string
	notes       []string
}

// probeConfig is what probeIsolation starts from; tests set root to take the other path.
type probeConfig struct {
	disabled, allowNet bool
	root               bool  // the runner is root (else: a user namespace is needed)
	disk               int64 // Options.DiskBytes, filled
	// home is the directory to hide as the runner's home when the tests run as the runner
	// (not root); "" hides none
	home string
}

// A preludeSpec names what a prelude makes writable.
type preludeSpec struct {
	slot  string // the slot directory
	tmpfs bool   // mount a tmpfs of iso.disk at slot (slots keeping namespaces); else bind it
	cache string // the go command's build cache, bind-mounted writable ("" for none)
	// output gives the run's uid the command's output pipes: the command is the tested code
	// (not the go command, whose test binaries get theirs from the -exec program).
	output bool
	// tmpShow names the entries of the host's /tmp the run needs (tmpEntries of the paths
	// it needs): they stay visible in its private /tmp, the others are hidden (see
	// privateTmp)
	tmpShow map[string]bool
	// homeShow names the paths, relative to iso.privateHome, the run needs there
	// (homeEntries of the paths it needs); the rest of the home is hidden
	homeShow map[string]bool
}

// probeIsolation finds the strongest isolation that works here and notes every missing
// layer. It tries, in order: every layer (network, mount, PID, UTS and IPC namespaces with
// a read-only filesystem, a minimal /dev, an empty /run and the privilege drop; as root, or
// in a user namespace otherwise); the same without the privilege drop; a network namespace
// only; nothing.
func probeIsolation(cfg probeConfig) *isolation {
	iso := &isolation{disk: cfg.disk, userNS: !cfg.root}
	iso.prlimit, _ = exec.LookPath("prlimit")
	if iso.prlimit == "" {
		iso.notes = append(iso.notes, "resource limits unavailable: prlimit(1) not found")
	}
	iso.ip, _ = exec.LookPath("ip")
	missing := func() {
		for _, m := range []struct {
			l    Layer
			note string
		}{
			{LayerNetwork, "network isolation unavailable: the tests see the host's network"},
			{LayerPID, "pid namespace unavailable: processes that leave the process group may outlive the run, and /proc shows the host's processes"},
			{LayerReadOnly, "filesystem isolation unavailable: the tests can write outside their tree"},
			{LayerUnprivileged, "privilege drop unavailable: the tests run with the runner's privileges"},
			{LayerUTS, "hostname and IPC isolation unavailable: the tests share the host's UTS and IPC namespaces"},
			{LayerDevices, "device isolation unavailable: the tests see the host's /dev and /run"},
			{LayerQuota, "disk quota unavailable: what a run writes is not limited"},
		} {
			if iso.layers&m.l == 0 && !(m.l == LayerNetwork && cfg.allowNet) {
				iso.notes = append(iso.notes, m.note)
			}
		}
		if cfg.allowNet {
			iso.notes = append(iso.notes, "network allowed by option")
		}
	}
	if cfg.disabled {
		iso.notes = append(iso.notes, "isolation disabled by option: the tests see the host's network and filesystem")
		missing()
		return iso
	}
	un, err := exec.LookPath("unshare")
	if err != nil {
		iso.notes = append(iso.notes, "namespaces unavailable: unshare(1) not found")
		missing()
		return iso
	}
	var user []string
	if !cfg.root {
		user = []string{"--user", "--map-root-user"}
	}
	var netArgs []string
	if !cfg.allowNet {
		netArgs = []string{"--net"}
	}
	setpriv, _ := exec.LookPath("setpriv")
	setarch, _ := exec.LookPath("setarch")
	try := func(args []string, layers Layer, drop []string, tmpfs, privateTmp bool, home string) bool {
		cand := &isolation{unshare: append([]string{un}, args...), layers: layers, ip: iso.ip, disk: iso.disk, drop: drop, privateTmp: privateTmp, privateHome: home}
		tmp, err := os.MkdirTemp("", "faultline-probe-")
		if err != nil {
			return false
		}
		defer os.RemoveAll(tmp)
		check := "exit 0"
		if privateTmp {
			// The run can make a name in /tmp, and a host entry there is not writable.
			check = `d=$(mktemp -d /tmp/faultline-probe-XXXXXX) && rmdir "$d" || exit 1
for e in /tmp/*; do if [ "$e" != "$PWD" ] && [ -d "$e" ] && mkdir "$e/.faultline-probe-$$" 2>/dev/null; then rmdir "$e/.faultline-probe-$$"; exit 1; fi; done; exit 0`
		}
		spec := preludeSpec{slot: tmp, tmpfs: tmpfs, tmpShow: tmpEntries([]string{tmp})}
		if home != "" {
			// The home holds no entry but those shown (the probe's directory, when it lies
			// there).
			spec.homeShow = homeEntries(home, []string{tmp})
			check = fmt.Sprintf(`for e in %s/* %s/.[!.]*; do [ -e "$e" ] || continue; case "$PWD/" in "$e"/*) ;; *) exit 1;; esac; done; exit 0`, shellQuote(home), shellQuote(home))
		}
		argv := cand.wrap(append(append([]string{}, drop...), "/bin/sh", "-c", check), tmp, spec, 0, 0, 0)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = holderEnv
		return cmd.Run() == nil
	}
	full := append(append(append([]string{}, user...), netArgs...), "--mount", "--pid", "--uts", "--ipc", "--fork", "--kill-child", "--mount-proc")
	all := LayerPID | LayerReadOnly | LayerUTS | LayerDevices
	if !cfg.allowNet {
		all |= LayerNetwork
	}
	var drops [][]string
	if setpriv != "" {
		d := []string{setpriv}
		if cfg.root {
			u := strconv.Itoa(RunUID)
			d = append(d, "--reuid="+u, "--regid="+u, "--clear-groups")
		}
		d = append(d, "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--")
		if setarch != "" {
			drops = append(drops, append([]string{setarch, "-R"}, d...))
		}
		drops = append(drops, d)
	} else {
		iso.notes = append(iso.notes, "setpriv(1) not found")
	}
	nsenter, _ := exec.LookPath("nsenter")
	holders := cfg.root && nsenter != ""
	ok := false
	for _, d := range drops {
		if try(full, all|LayerUnprivileged, d, holders, false, "") {
			iso.unshare, iso.layers, iso.drop, ok = append([]string{un}, full...), all|LayerUnprivileged, d, true
			iso.dropUID = cfg.root
			break
		}
	}
	switch {
	case ok:
	case try(full, all, nil, holders, false, ""):
		iso.unshare, iso.layers = append([]string{un}, full...), all
	case !cfg.allowNet && try(append(append([]string{}, user...), netArgs...), LayerNetwork, nil, false, false, ""):
		iso.unshare, iso.layers = append([]string{un}, append(append([]string{}, user...), netArgs...)...), LayerNetwork
	default:
		iso.notes = append(iso.notes, "namespaces unavailable: unshare failed (not root and no user namespaces?)")
	}
	if iso.layers&LayerReadOnly != 0 {
		if try(iso.unshare[1:], iso.layers, iso.drop, holders, true, "") {
			iso.privateTmp = true
		} else {
			iso.notes = append(iso.notes, "private /tmp unavailable: the tests see the host's /tmp, read-only")
		}
		if h := hideableHome(cfg.home); h != "" && !cfg.root {
			if try(iso.unshare[1:], iso.layers, iso.drop, holders, iso.privateTmp, h) {
				iso.privateHome = h
			} else {
				iso.notes = append(iso.notes, "private home unavailable: the tests can read the runner's home directory "+h)
			}
		}
	}
	if iso.layers&LayerPID != 0 && holders {
		iso.nsenter = nsenter
		iso.layers |= LayerQuota
	}
	if iso.layers&LayerUnprivileged != 0 && len(iso.drop) > 0 && iso.drop[0] != setarch {
		iso.notes = append(iso.notes, "address randomisation stays on: setarch -R unavailable")
	}
	if !cfg.root && iso.layers&LayerUnprivileged != 0 {
		iso.notes = append(iso.notes, "not root: the tests run as the user inside a user namespace, without capabilities (not as a separate uid)")
	}
	missing()
	return iso
}

// holderEnv is the whole environment of namespace holders and probes: nothing of the
// parent's (a test can read the environment of its namespace's init).
var holderEnv = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}

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

// dropped prefixes argv with the privilege drop (setarch -R, setpriv), when there is one.
func (iso *isolation) dropped(argv []string) []string {
	if len(iso.drop) == 0 {
		return argv
	}
	return append(append([]string{}, iso.drop...), argv...)
}

// chownOutput is the shell line, run as root just before the drop, that gives the run's
// uid the shell's standard output and error when they are pipes (the runner's: without
// it /dev/stdout cannot be opened by the tests). The shell's own descriptors are named
// (/proc/$$/fd), never chown's, and anything but a pipe is left alone: a redirected
// descriptor may be a host file (chowning /dev/null would change the host's). No
// redirection on that line: dash applies a command's redirection in the shell itself, so
// `chown … /proc/$$/fd/2 2>/dev/null` would chown /dev/null.
func (iso *isolation) chownOutput() string {
	if !iso.dropUID {
		return ""
	}
	u := strconv.Itoa(RunUID)
	return `for f in /proc/$$/fd/1 /proc/$$/fd/2; do if [ -p "$f" ]; then chown ` + u + ":" + u + ` "$f"; fi; done` + "\n"
}

func (iso *isolation) chownIf(output bool) string {
	if !output {
		return ""
	}
	return iso.chownOutput()
}

// prelude is the /bin/sh script run first, as root, inside new namespaces. It brings
// loopback up, names the host, makes the slot (a size-limited tmpfs, or a bind mount) and
// the build cache writable, gives the run a /tmp of its own (privateTmp), makes every other
// mount read-only, and replaces /dev with a minimal one and /run (and /var/run when it is
// a directory) with an empty read-only tmpfs. A failure exits 97 (a setup failure, not a
// test's). It also returns the names of the host's entries of /tmp it shows (nil without
// a private /tmp).
func (iso *isolation) prelude(p preludeSpec) (string, map[string]bool) {
	var sc strings.Builder
	var tmpNames map[string]bool
	if iso.layers&LayerNetwork != 0 && iso.ip != "" {
		sc.WriteString(shellQuote(iso.ip) + " link set lo up 2>/dev/null\n")
	}
	if iso.layers&LayerUTS != 0 {
		sc.WriteString("hostname faultline-sandbox || exit 97\n")
	}
	if iso.layers&LayerReadOnly != 0 {
		ws := map[string]bool{p.slot: true}
		if p.tmpfs {
			fmt.Fprintf(&sc, "mount -t tmpfs -o size=%d,mode=0755,nosuid,nodev faultline-run %s || exit 97\n", iso.disk, shellQuote(p.slot))
		} else {
			fmt.Fprintf(&sc, "mount --bind %s %s || exit 97\n", shellQuote(p.slot), shellQuote(p.slot))
		}
		if p.cache != "" {
			ws[p.cache] = true
			fmt.Fprintf(&sc, "mount --bind %s %s || exit 97\n", shellQuote(p.cache), shellQuote(p.cache))
		}
		if iso.privateTmp {
			var script string
			if script, tmpNames = privateTmp(iso.disk, ws, p.tmpShow); tmpNames != nil {
				sc.WriteString(script)
				ws["/tmp"] = true
			}
		}
		if iso.privateHome != "" {
			sc.WriteString(privateHome(iso.privateHome, ws, p.homeShow))
		}
		sc.WriteString("mount -o remount,bind,ro / || exit 97\n")
		for _, m := range mountPoints() {
			if ws[m] || m == "/" || under(m, "/proc") || under(m, "/dev") || under(m, p.slot) {
				continue
			}
			fmt.Fprintf(&sc, "mount -o remount,bind,ro %s 2>/dev/null\n", shellQuote(m))
		}
	}
	if iso.layers&LayerDevices != 0 {
		sc.WriteString(devicesScript)
		if fi, err := os.Lstat("/var/run"); err == nil && fi.IsDir() {
			sc.WriteString("mount -n -t tmpfs -o ro,size=4k,mode=0755 faultline-run /var/run || exit 97\n")
		}
	}
	return sc.String(), tmpNames
}

// privateTmp is the prelude's part that gives the run a /tmp of its own: a tmpfs of size
// bytes (mode 1777) mounted on /tmp, in which the entries of the host's /tmp named in show
// (those holding the runner's work directory, the toolchains and caches, the paths named
// in the run's environment: see Local.keepPaths) appear again, read-only: a directory or
// file bound from the host (recursively, so the slot and the build cache, when they lie
// under /tmp, stay what the prelude made them), a symbolic link made again. The host's
// other entries are not there: other users' and programs' temporary files, and the Unix
// sockets of an ssh agent, a tmux server or X11, which a read-only mount would not keep a
// test from connecting to. Tests that write under a fixed /tmp path (oslo.utils writes
// /tmp/<uuid>/) can, as they could outside the sandbox, and nothing they write there
// reaches the host or outlives the run (a slot's holder empties it before each run: see
// acquire). The script works from the host's /tmp as its working directory, which the
// tmpfs covers but the relative paths still reach (mount -c keeps them relative). An entry
// gone meanwhile is skipped; an entry that is itself one of the writable paths (the slot,
// the build cache) is bound as the prelude made it, writable. It returns the names of the
// entries it shows; "" and nil when /tmp cannot be read.
func privateTmp(size int64, writable, show map[string]bool) (string, map[string]bool) {
	if fi, err := os.Lstat("/tmp"); err != nil || !fi.IsDir() {
		return "", nil
	}
	ents, err := os.ReadDir("/tmp")
	if err != nil {
		return "", nil
	}
	var sc strings.Builder
	// A subshell: its cd leaves the prelude's working directory (and environment) alone.
	sc.WriteString("(\ncd /tmp || exit 97\n")
	fmt.Fprintf(&sc, "mount -t tmpfs -o size=%d,mode=1777,nosuid,nodev faultline-tmp /tmp || exit 97\n", size)
	names := map[string]bool{}
	for _, e := range ents {
		if !show[e.Name()] {
			continue
		}
		names[e.Name()] = true
		rel, dst := shellQuote("./"+e.Name()), shellQuote("/tmp/"+e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join("/tmp", e.Name()))
			if err != nil {
				continue
			}
			fmt.Fprintf(&sc, "ln -s %s %s || exit 97\n", shellQuote(target), dst)
		case e.IsDir():
			ro := "-o ro "
			if writable["/tmp/"+e.Name()] {
				ro = ""
			}
			fmt.Fprintf(&sc, "if [ -d %[1]s ]; then mkdir %[2]s && mount --rbind %[3]s-c %[1]s %[2]s || exit 97; fi\n", rel, dst, ro)
		default:
			fmt.Fprintf(&sc, "if [ -e %[1]s ]; then : >%[2]s && mount --bind -o ro -c %[1]s %[2]s || exit 97; fi\n", rel, dst)
		}
	}
	sc.WriteString(") || exit 97\n")
	return sc.String(), names
}

// tmpEntries returns the names of the entries of /tmp that paths lie in, each path as
// given and with its symbolic links resolved. /tmp itself names none: the run has one.
func tmpEntries(paths []string) map[string]bool {
	out := map[string]bool{}
	add := func(p string) {
		if p = filepath.Clean(p); strings.HasPrefix(p, "/tmp/") {
			name, _, _ := strings.Cut(p[len("/tmp/"):], "/")
			out[name] = true
		}
	}
	eachPathAndTarget(paths, add)
	return out
}

// eachPathAndTarget calls add with each absolute path of paths, as given and, when it
// resolves, with its symbolic links resolved (tmpEntries and homeEntries show both).
func eachPathAndTarget(paths []string, add func(string)) {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		add(p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			add(r)
		}
	}
}

// privateHome is the prelude's part that hides the runner's home directory home from runs
// that run as the runner's own uid (without root; as root they run as RunUID, which cannot
// read a home of mode 0700, and the host's homes stay as they are): a tmpfs, read-only once
// set up, covers home, and the paths of show (relative to home, homeEntries of what the run
// needs: the toolchains, caches and interpreters installed there, the work directory when
// it lies there) appear again as privateTmp makes its entries appear. The rest — ~/.ssh,
// ~/.aws, ~/.netrc, ~/.config/gh, the user's files — is not there. A home the run cannot
// reach (under a private /tmp that does not show it) needs nothing.
func privateHome(home string, writable, show map[string]bool) string {
	var sc strings.Builder
	q := shellQuote(home)
	fmt.Fprintf(&sc, "(\ncd %s 2>/dev/null || exit 0\n", q)
	fmt.Fprintf(&sc, "mount -t tmpfs -o size=1m,mode=0755,nosuid,nodev faultline-home %s || exit 97\n", q)
	rels := slices.Sorted(maps.Keys(show))
	for _, rel := range rels {
		fi, err := os.Lstat(filepath.Join(home, rel))
		if err != nil {
			continue
		}
		src, dst := shellQuote("./"+rel), shellQuote(filepath.Join(home, rel))
		if dir := filepath.Dir(rel); dir != "." {
			fmt.Fprintf(&sc, "mkdir -p %s || exit 97\n", shellQuote(filepath.Join(home, dir)))
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(home, rel))
			if err != nil {
				continue
			}
			fmt.Fprintf(&sc, "ln -s %s %s || exit 97\n", shellQuote(target), dst)
		case fi.IsDir():
			ro := "-o ro "
			if writable[filepath.Join(home, rel)] {
				ro = ""
			}
			fmt.Fprintf(&sc, "if [ -d %[1]s ]; then mkdir %[2]s && mount --rbind %[3]s-c %[1]s %[2]s || exit 97; fi\n", src, dst, ro)
		default:
			fmt.Fprintf(&sc, "if [ -e %[1]s ]; then : >%[2]s && mount --bind -o ro -c %[1]s %[2]s || exit 97; fi\n", src, dst)
		}
	}
	fmt.Fprintf(&sc, "mount -o remount,bind,ro %s || exit 97\n", q)
	sc.WriteString(") || exit 97\n")
	return sc.String()
}

// homeShared are the entries of a home directory that many programs share: a path needed
// below one of them shows only its entry one level further down (~/.cache/faultline, not
// all of ~/.cache; ~/.local/lib, not ~/.local/share's keyrings).
var homeShared = map[string]bool{".cache": true, ".config": true, ".local": true}

// homeEntries returns the paths, relative to home, that show the paths a run needs: of
// each path below home, as given and with its symbolic links resolved, its first component
// (its first two below a homeShared entry). home itself names none.
func homeEntries(home string, paths []string) map[string]bool {
	out := map[string]bool{}
	add := func(p string) {
		rel, err := filepath.Rel(home, filepath.Clean(p))
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			return
		}
		parts := strings.SplitN(rel, "/", 3)
		n := 1
		if homeShared[parts[0]] && len(parts) > 1 {
			n = 2
		}
		out[strings.Join(parts[:n], "/")] = true
	}
	eachPathAndTarget(paths, add)
	return out
}

// hideableHome returns home, cleaned, when a private home can stand in for it: an absolute
// directory that is not the root, a system directory or /tmp (which privateTmp covers);
// "" otherwise.
func hideableHome(home string) string {
	if !filepath.IsAbs(home) {
		return ""
	}
	home = filepath.Clean(home)
	if r, err := filepath.EvalSymlinks(home); err == nil {
		home = r
	}
	switch home {
	case "/", "/tmp", "/usr", "/etc", "/var", "/opt", "/bin", "/sbin", "/lib", "/lib64", "/proc", "/sys", "/dev", "/run", "/boot", "/srv", "/mnt", "/media", "/home":
		return ""
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return ""
	}
	return home
}

// pathsIn returns the absolute paths named in s, a value of an environment variable or an
// argument: the fields between spaces, colons, equals signs, commas and semicolons that
// start with a slash (PATH=/a:/b, GOFLAGS=-modfile=/x/go.mod, --rootdir=/y).
func pathsIn(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ':' || r == '=' || r == ',' || r == ';' || r == '\n'
	}) {
		if strings.HasPrefix(f, "/") {
			out = append(out, f)
		}
	}
	return out
}

// devicesScript builds the minimal /dev in a tmpfs mounted on /run, moves it onto /dev and
// leaves /run empty and read-only (mount(8) keeps its own notes in /run/mount: removed, and
// the last remount writes none). /dev/shm is a private tmpfs (64 MiB).
const devicesScript = `mount -t tmpfs -o mode=0755,size=64k,nosuid,nodev,noexec faultline-run /run || exit 97
mkdir /run/dev && mount -t tmpfs -o mode=0755,size=64k,nosuid,noexec faultline-dev /run/dev || exit 97
for n in null zero full random urandom tty; do : >/run/dev/$n && mount --bind /dev/$n /run/dev/$n || exit 97; done
mkdir /run/dev/shm && mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev faultline-shm /run/dev/shm || exit 97
ln -s /proc/self/fd /run/dev/fd && ln -s /proc/self/fd/0 /run/dev/stdin && ln -s /proc/self/fd/1 /run/dev/stdout && ln -s /proc/self/fd/2 /run/dev/stderr || exit 97
mount --move /run/dev /dev || exit 97
rmdir /run/dev
mount -o remount,ro,bind /dev || exit 97
rm -rf /run/mount && mount -n -o remount,ro,bind /run || exit 97
`

// wrap returns the argv that runs argv in fresh namespaces (unshare, then the prelude), under
// prlimit. argv is run as given: the caller adds the privilege drop (dropped) where the
// tested code starts.
//
// The prelude ends by changing to dir again: the working directory inherited through unshare
// refers to the mount that was just made read-only, not to the writable bind mount.
func (iso *isolation) wrap(argv []string, dir string, p preludeSpec, as int64, cpu int64, nproc int) []string {
	argv = iso.limit(argv, as, cpu, nproc)
	if iso.unshare == nil {
		return argv
	}
	out := append([]string{}, iso.unshare...)
	prelude, _ := iso.prelude(p)
	out = append(out, "--", "/bin/sh", "-c", prelude+"cd "+shellQuote(dir)+" || exit 97\n"+iso.chownIf(p.output)+`exec "$@"`, "sandbox")
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

// runProc starts argv in dir with env in its own process group, feeding stdout and stderr to
// the writers; at the timeout (or when ctx is done) it sends SIGTERM to the whole group and
// SIGKILL after grace. Whatever is left of the group when the command ends is killed too.
func runProc(ctx context.Context, argv []string, dir string, env []string, stdout, stderr io.Writer, timeout, grace time.Duration) testrun.ProcResult {
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
		return testrun.ProcResult{ExitCode: -1, StartErr: err}
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var res testrun.ProcResult
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
		res.TimedOut = true
		kill()
	case <-ctx.Done():
		res.Cancelled = true
		kill()
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // children left in the group
	res.Wall = time.Since(start)
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal().String()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		res.StartErr = err
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
