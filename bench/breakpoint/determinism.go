package breakpoint

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/task"
)

// Determinism runs the breakpoint program twice per mode (REMOVE and DISCOVERY, two
// tasks each, one seed) on the repository prepare makes (pointed at its Target when set),
// with twice.Twice — another TMPDIR, another copy at another path, another -jobs — and
// requires byte-identical task records and SWE instances (their base_commit names the
// task's commit in each run's own mirror, so the mirrors' commits are compared too). It runs
// when FAULTLINE_ACCEPTANCE is set.
func Determinism(t *testing.T, prepare func(*testing.T) Repo, name string) {
	DeterminismModes(t, prepare, name, "remove", "discovery")
}

// DeterminismModes is Determinism for the modes given ("remove", "discovery").
func DeterminismModes(t *testing.T, prepare func(*testing.T) Repo, name string, modes ...string) {
	twice.Skip(t)
	repo := prepare(t)
	bin := twice.Build(t, "github.com/faultline-dev/faultline/examples/breakpoint")
	var extra []string
	for _, e := range repo.Env {
		extra = append(extra, "-env", e)
	}
	for _, id := range repo.Flaky {
		extra = append(extra, "-flaky", id)
	}
	if repo.Kind == task.Pytest {
		extra = append(extra, "-python", "/usr/bin/python3", "-lang", "python")
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			out, stderr := twice.Twice(t, bin, repo.Root, "", repo.ProcEnv, func(r twice.Run) []string {
				dir := r.Repo
				if repo.Target != "" {
					dir = filepath.Join(r.Repo, filepath.FromSlash(repo.Target))
				}
				// The mirror goes beside the compared outputs: its commit ids are compared
				// through the instances' base_commit.
				return append([]string{"-repo", dir, "-out", filepath.Join(r.Out, "tasks.jsonl"), "-swe", filepath.Join(r.Out, "swe.jsonl"),
					"-mirror", filepath.Join(filepath.Dir(r.Out), "mirror.git"),
					"-mode", mode, "-n", "2", "-seed", "5", "-jobs", r.Jobs, "-name", name, "-top", "0", "-timeout", "2m"}, extra...)
			})
			if n := strings.Count(string(out["tasks.jsonl"]), "\n"); n == 0 {
				t.Errorf("no task written:\n%s", stderr)
			}
		})
	}
}

// Humanize copies github.com/dustin/go-humanize v1.0.1 from the module cache, or fetches it
// from the module proxy when it is not there (no dependencies).
func Humanize(t *testing.T) Repo { return moduleRepo(t, "github.com/dustin/go-humanize@v1.0.1") }

func moduleRepo(t *testing.T, modVersion string) Repo {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), modVersion)
	if _, err := os.Stat(src); err != nil {
		path, version, _ := strings.Cut(modVersion, "@")
		return ProxyModule(t, path, version) // not in the module cache: fresh from the proxy
	}
	root := filepath.Join(t.TempDir(), "m")
	if err := fstree.CopySubject(src, root); err != nil {
		t.Fatal(err)
	}
	return Repo{Root: root, Lang: golang.New(golang.Options{}), Kind: task.GoTest, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}}
}

// Colorama copies Debian's python3-colorama (with its tests) under ROOT/colorama; the
// program is pointed at the package directory itself.
func Colorama(t *testing.T) Repo { return PackageDir(t, "colorama", "python3-colorama") }

// Debtcollector is PackageDir of Debian's python3-debtcollector (held out in the audit of
// issue 12).
func Debtcollector(t *testing.T) Repo {
	return PackageDir(t, "debtcollector", "python3-debtcollector")
}

// Strcase fetches github.com/iancoleman/strcase v0.3.0 fresh from the module proxy (see
// ProxyModule; held out in the audit of issue 12).
func Strcase(t *testing.T) Repo { return ProxyModule(t, "github.com/iancoleman/strcase", "v0.3.0") }

// PackageDir copies Debian's installed package name (with its tests directory, from the
// Debian package deb) under ROOT/name; the program is pointed at the package directory
// itself.
func PackageDir(t *testing.T, name, deb string) Repo {
	repo := Simplejson(t) // for its checks of Debian's python3 and pytest
	src := filepath.Join("/usr/lib/python3/dist-packages", name)
	if _, err := os.Stat(filepath.Join(src, "tests")); err != nil {
		t.Skipf("%s with its tests is not installed (%v); apt-get install %[1]s", deb, err)
	}
	root := filepath.Join(t.TempDir(), "root")
	if err := fstree.CopySubject(src, filepath.Join(root, name)); err != nil {
		t.Fatal(err)
	}
	repo.Root, repo.Target = root, name
	return repo
}

// Cast fetches github.com/spf13/cast v1.7.1 fresh from the module proxy (see ProxyModule):
// its test dependency (frankban/quicktest and what it needs) is downloaded by the program.
func Cast(t *testing.T) Repo { return ProxyModule(t, "github.com/spf13/cast", "v1.7.1") }

// ProxyModule fetches path@version fresh from the module proxy into a private, empty module
// cache and copies it to a writable directory; the program runs with that cache (ProcEnv),
// so every dependency its tests need is downloaded by the program's own preparation.
func ProxyModule(t *testing.T, path, version string) Repo {
	cache := filepath.Join(t.TempDir(), "gomodcache")
	procEnv := []string{"GOMODCACHE=" + cache, "GOFLAGS=-modcacherw"}
	cmd := exec.Command("go", "mod", "download", "-json", path+"@"+version)
	cmd.Env = append(os.Environ(), procEnv...)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("the module proxy does not serve %s@%s here: %v", path, version, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download: %v %s", err, out)
	}
	root := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := fstree.CopySubject(m.Dir, root); err != nil {
		t.Fatal(err)
	}
	return Repo{Root: root, Lang: golang.New(golang.Options{}), Kind: task.GoTest, ProcEnv: procEnv}
}

// Pyflakes copies Debian's python3-pyflakes (with its tests) under ROOT/pyflakes, with the
// launcher its integration tests run at ROOT/bin/pyflakes.
func Pyflakes(t *testing.T) Repo {
	repo := Simplejson(t) // for its checks of Debian's python3 and pytest
	src := "/usr/lib/python3/dist-packages/pyflakes"
	if _, err := os.Stat(filepath.Join(src, "test")); err != nil {
		t.Skipf("python3-pyflakes with its tests is not installed (%v); apt-get install python3-pyflakes", err)
	}
	root := filepath.Join(t.TempDir(), "root")
	if err := fstree.CopySubject(src, filepath.Join(root, "pyflakes")); err != nil {
		t.Fatal(err)
	}
	// pyflakes' integration tests run the launcher a source checkout has beside the package
	// (bin/pyflakes); Debian installs none, so without one they fail on the clean tree.
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	launcher := "import sys\nfrom pyflakes.api import main\nsys.exit(main())\n"
	if err := os.WriteFile(filepath.Join(root, "bin", "pyflakes"), []byte(launcher), 0o755); err != nil {
		t.Fatal(err)
	}
	repo.Root = root
	return repo
}
