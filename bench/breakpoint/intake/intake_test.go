// Package intake runs the breakpoint program the way a user points it at what they have,
// on repositories no test here was tuned on:
//
//   - a Debian package directory as -repo (python3-colorama; python3-lazr.uri, a package
//     inside the namespace package lazr: both installed under /usr/lib/python3/dist-packages,
//     so an installed copy shadows any copy that does not keep the package's name and
//     namespace): the tasks' FAIL_TO_PASS tests fail on the corrupted state, checked out of
//     the -swe mirror, and pass with the gold patch;
//   - fresh Go modules from the module proxy (github.com/spf13/cast v1.7.1, whose tests need
//     frankban/quicktest; github.com/tidwall/gjson v1.18.0, which needs tidwall/match and
//     tidwall/pretty) with a private, empty module cache: REMOVE makes tasks (the test
//     dependencies are downloaded before any run), and with GOPROXY=off the program stops
//     before any test run, naming the missing modules.
//
// They run when FAULTLINE_ACCEPTANCE is set (they need the module proxy and the Debian
// packages; each package and module takes one to three minutes); colorama and cast only when
// it is "full" (the extended set):
//
//	FAULTLINE_ACCEPTANCE=1 go test -v ./bench/breakpoint/intake
package intake

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/task"
)

// pythonPackages are the held-out Debian packages: package directory → Debian package;
// full marks those in the extended acceptance set only (twice.SkipUnlessFull: CI runs the
// namespace-package case, the harder one).
var pythonPackages = []struct {
	dir, deb string
	full     bool
}{
	{"/usr/lib/python3/dist-packages/colorama", "python3-colorama", true},
	{"/usr/lib/python3/dist-packages/lazr/uri", "python3-lazr.uri", false},
}

// TestPythonPackageDirectory points breakpoint at each package directory itself.
func TestPythonPackageDirectory(t *testing.T) {
	twice.Skip(t)
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	bin := twice.Build(t, "github.com/faultline-dev/faultline/examples/breakpoint")
	for _, p := range pythonPackages {
		name := strings.TrimPrefix(p.dir, "/usr/lib/python3/dist-packages/")
		t.Run(filepath.Base(name), func(t *testing.T) {
			if p.full {
				twice.SkipUnlessFull(t)
			}
			if _, err := os.Stat(filepath.Join(p.dir, "__init__.py")); err != nil {
				t.Skipf("%s is not installed (apt-get install %s)", p.deb, p.deb)
			}
			out := t.TempDir()
			stderr := runOK(t, bin, nil, "-repo", p.dir, "-python", "/usr/bin/python3", "-n", "2", "-min-failures", "2", "-jobs", "1", "-top", "0",
				"-out", filepath.Join(out, "tasks.jsonl"), "-swe", filepath.Join(out, "swe.jsonl"))
			for _, want := range []string{"target " + name + "; python", "staged " + name + " under a private root"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q", want)
				}
			}
			insts := readInstances(t, filepath.Join(out, "swe.jsonl"))
			if len(insts) == 0 {
				t.Fatalf("no task:\n%s", stderr)
			}
			clone := filepath.Join(t.TempDir(), "clone")
			git(t, "", "clone", "-q", filepath.Join(out, "swe.mirror.git"), clone)
			for _, s := range insts {
				// On the corrupted state the copy's tests fail (run from the clone's root, so
				// `import NAME` finds the clone's package before the installed one) ...
				git(t, clone, "checkout", "-q", "-f", s.BaseCommit)
				for _, id := range s.FailToPass {
					if !strings.HasPrefix(id, name+"/") {
						t.Errorf("%s: FAIL_TO_PASS %s is not a test of the package", s.InstanceID, id)
					}
				}
				if out, err := pytest(clone, s.FailToPass); err == nil {
					t.Errorf("%s: the FAIL_TO_PASS tests pass on the corrupted state:\n%s", s.InstanceID, out)
				}
				// ... and pass once the gold patch is applied.
				patch := filepath.Join(t.TempDir(), "gold.diff")
				if err := os.WriteFile(patch, []byte(s.Patch), 0o644); err != nil {
					t.Fatal(err)
				}
				git(t, clone, "apply", "--check", patch)
				git(t, clone, "apply", patch)
				if out, err := pytest(clone, s.FailToPass); err != nil {
					t.Errorf("%s: the FAIL_TO_PASS tests fail with the gold patch: %v\n%s", s.InstanceID, err, out)
				}
				git(t, clone, "checkout", "-q", "-f", ".")
			}
			t.Logf("%s: %d task(s); %s", name, len(insts), lastLine(stderr))
		})
	}
}

// goModules are the held-out modules from the module proxy; full as in pythonPackages (CI
// runs gjson; cast is also a determinism subject of the extended set).
var goModules = []struct {
	path, version, missing string
	full                   bool
}{
	{"github.com/spf13/cast", "v1.7.1", "github.com/frankban/quicktest@v1.14.6", true},
	{"github.com/tidwall/gjson", "v1.18.0", "github.com/tidwall/match@v1.1.1", false},
}

// TestFreshGoModule copies each module fresh from the proxy and runs breakpoint REMOVE on it
// with a private, empty module cache; then again with GOPROXY=off and another empty cache.
func TestFreshGoModule(t *testing.T) {
	twice.Skip(t)
	bin := twice.Build(t, "github.com/faultline-dev/faultline/examples/breakpoint")
	for _, m := range goModules {
		t.Run(filepath.Base(m.path), func(t *testing.T) {
			if m.full {
				twice.SkipUnlessFull(t)
			}
			root := fetchModule(t, m.path, m.version)
			out := t.TempDir()
			cache := privateCache(t)
			stderr := runOK(t, bin, []string{"GOMODCACHE=" + cache, "GOFLAGS=-modcacherw"}, "-repo", root, "-mode", "remove", "-n", "2", "-jobs", "1", "-top", "0",
				"-out", filepath.Join(out, "tasks.jsonl"))
			if !strings.Contains(stderr, "prepared: go mod download all into "+cache) {
				t.Errorf("the test dependencies were not downloaded into the private cache:\n%s", stderr)
			}
			var n int
			data, _ := os.ReadFile(filepath.Join(out, "tasks.jsonl"))
			if err := task.ReadJSONL(bytes.NewReader(data), func(_ int, p task.BreakpointProblem) error { n++; return p.Validate() }); err != nil || n == 0 {
				t.Fatalf("%d tasks, %v:\n%s", n, err, stderr)
			}
			t.Logf("%s: %d task(s); %s", m.path, n, lastLine(stderr))

			// Offline with an empty cache: refused before any test run, naming the module.
			var buf bytes.Buffer
			cmd := exec.Command(bin, "-repo", root, "-n", "1", "-top", "0", "-out", filepath.Join(t.TempDir(), "t.jsonl"))
			cmd.Env = append(os.Environ(), "GOMODCACHE="+privateCache(t), "GOPROXY=off", "GOFLAGS=-modcacherw")
			cmd.Stderr = &buf
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("GOPROXY=off: %v, want exit status 1\n%s", err, buf.String())
			}
			for _, want := range []string{"is not ready", m.missing, "GOPROXY=off"} {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("GOPROXY=off: stderr lacks %q:\n%s", want, buf.String())
				}
			}
			if strings.Contains(buf.String(), "checking readiness") || strings.Contains(buf.String(), "baseline") {
				t.Errorf("GOPROXY=off: a test run started:\n%s", buf.String())
			}
		})
	}
}

// fetchModule downloads path@version into a scratch module cache and copies its files into a
// fresh directory (writable, outside any cache): a checkout whose dependencies are nowhere.
func fetchModule(t *testing.T, path, version string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", path+"@"+version)
	cmd.Env = append(os.Environ(), "GOMODCACHE="+privateCache(t), "GOFLAGS=-modcacherw")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("the module proxy does not serve %s@%s here: %v", path, version, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download: %v %s", err, out)
	}
	root := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := fstree.CopySubject(m.Dir, root); err != nil {
		t.Fatal(err)
	}
	return root
}

// privateCache is an empty module cache that the test's cleanup can remove (downloads made
// with -modcacherw stay writable).
func privateCache(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "gomodcache")
}

func runOK(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("breakpoint %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stderr.String()
}

func readInstances(t *testing.T, path string) []task.SWEInstance {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []task.SWEInstance
	if err := task.ReadJSONL(bytes.NewReader(data), func(_ int, s task.SWEInstance) error { out = append(out, s); return s.Validate() }); err != nil {
		t.Fatal(err)
	}
	return out
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// pytest runs the tests ids in dir with Debian's interpreter (no cache, no bytecode).
func pytest(dir string, ids []string) (string, error) {
	cmd := exec.Command("/usr/bin/python3", append([]string{"-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", dir}, ids...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
