package sandbox

import (
	"archive/zip"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/task/repo"
)

// fileProxy writes a module proxy directory (GOPROXY=file://...) serving example.com/dep
// v1.0.0, and returns its URL.
func fileProxy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proxy")
	v := filepath.Join(dir, "example.com", "dep", "@v")
	require.NoError(t, os.MkdirAll(v, 0o755))
	mod := "module example.com/dep\n\ngo 1.22\n"
	for name, text := range map[string]string{
		"list":        "v1.0.0\n",
		"v1.0.0.info": `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`,
		"v1.0.0.mod":  mod,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(v, name), []byte(text), 0o644))
	}
	f, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for name, text := range map[string]string{"go.mod": mod, "dep.go": "package dep\n\nfunc F() int { return 1 }\n"} {
		w, err := zw.Create("example.com/dep@v1.0.0/" + name)
		require.NoError(t, err)
		_, err = w.Write([]byte(text))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return "file://" + filepath.ToSlash(dir)
}

// writeDepModule writes a module example.com/main into root whose code and test need
// example.com/dep v1.0.0 (fileProxy serves it).
func writeDepModule(t *testing.T, root string) {
	t.Helper()
	for name, text := range map[string]string{
		"go.mod":    "module example.com/main\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n",
		"m.go":      "package m\n\nimport \"example.com/dep\"\n\nfunc G() int { return dep.F() }\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestG(t *testing.T) {\n\tif G() != 1 {\n\t\tt.Fatal(\"G\")\n\t}\n}\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o644))
	}
}

// TestPrepareStaleMarker: the marker of a finished download does not stand in for the module
// cache. Once the cache is emptied (go clean -modcache), Prepare downloads again instead of
// leaving the runs offline with nothing to build from.
func TestPrepareStaleMarker(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cache := filepath.Join(t.TempDir(), "modcache")
	env := []string{"GOPROXY=" + fileProxy(t), "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE=" + cache, "GOWORK=off"}
	for _, kv := range env { // the user's configuration, as Prepare finds it
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	root := t.TempDir()
	writeDepModule(t, root)
	tidy := exec.Command("go", "mod", "tidy") // the fixture's go.sum
	tidy.Dir = root
	out, err := tidy.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.RemoveAll(cache)) // tidy filled it; Prepare starts from nothing

	p, err := repo.Discover(root, repo.Go)
	require.NoError(t, err)
	opts := PrepareOptions{CacheDir: t.TempDir()}
	inCache := func() bool {
		_, err := os.Stat(filepath.Join(cache, "example.com", "dep@v1.0.0", "dep.go"))
		return err == nil
	}
	steps := func() string {
		t.Helper()
		prep, err := Prepare(context.Background(), p, opts)
		require.NoError(t, err)
		require.NoError(t, prep.Close())
		assert.Contains(t, prep.Env, "GOPROXY=off")
		return strings.Join(prep.Steps, "\n")
	}

	first := steps()
	assert.Contains(t, first, "go mod download all into "+cache)
	assert.True(t, inCache())
	assert.Contains(t, steps(), "already done for this go.mod/go.sum", "the second Prepare uses the marker")

	// go clean -modcache: the marker stays, the modules are gone.
	require.NoError(t, filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return nil
	}))
	require.NoError(t, os.RemoveAll(cache))
	third := steps()
	assert.Contains(t, third, "the module cache no longer holds what the tests build: downloading again")
	assert.Contains(t, third, "go mod download all into "+cache)
	assert.True(t, inCache(), "the dependency is downloaded again")
}

// TestCheckGoDepsOffline: the offline check of what the tests build stays offline when the
// user's environment (-env) names a proxy: the missing module is a problem, and nothing is
// downloaded.
func TestCheckGoDepsOffline(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cache := filepath.Join(t.TempDir(), "modcache")
	t.Setenv("GOMODCACHE", cache)
	t.Setenv("GOFLAGS", "-modcacherw")
	t.Setenv("GOWORK", "off")
	root := t.TempDir()
	writeDepModule(t, root)
	p, err := repo.Discover(root, repo.Go)
	require.NoError(t, err)
	opts := PrepareOptions{Go: "go", Env: []string{"GOPROXY=" + fileProxy(t), "GOSUMDB=off", "GOFLAGS=-mod=mod -modcacherw"}}
	err = checkGoDeps(context.Background(), &Prepared{Project: p}, opts)
	require.Error(t, err, "the dependency is not in the module cache: the offline check must say so")
	assert.Contains(t, err.Error(), "GOPROXY=off")
	_, statErr := os.Stat(filepath.Join(cache, "example.com", "dep@v1.0.0"))
	assert.True(t, os.IsNotExist(statErr), "the offline check downloaded the dependency (%v)", statErr)
}

// TestPrepareUnverifiedModule: a module the module cache holds but go.sum does not list,
// with the checksum database out of reach (GOPROXY=off), is named as unverifiable with the
// way out — not as missing from the cache, which sent users to download what they had. With
// the fix it names (GONOSUMDB), Prepare succeeds, and the checkout stays as it was.
func TestPrepareUnverifiedModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cache := filepath.Join(t.TempDir(), "modcache")
	root := t.TempDir()
	writeDepModule(t, root)
	fill := exec.Command("go", "mod", "download", "example.com/dep@v1.0.0")
	fill.Dir = root
	fill.Env = append(os.Environ(), "GOPROXY="+fileProxy(t), "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+cache, "GOWORK=off")
	out, err := fill.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, inModCache(cache, "example.com/dep", "v1.0.0"))
	require.NoError(t, os.Remove(filepath.Join(root, "go.sum"))) // the download wrote it; the checkout has none
	for _, kv := range []string{"GOPROXY=off", "GOSUMDB=sum.golang.org", "GONOSUMDB=", "GOPRIVATE=", "GOFLAGS=-mod=mod -modcacherw", "GOMODCACHE=" + cache, "GOWORK=off"} {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	p, err := repo.Discover(root, repo.Go)
	require.NoError(t, err)
	before := treeDigest(t, root)

	_, err = Prepare(context.Background(), p, PrepareOptions{CacheDir: t.TempDir()})
	var nr *NotReadyError
	require.ErrorAs(t, err, &nr)
	require.Len(t, nr.Problems, 1, "%v", err)
	assert.Contains(t, nr.Problems[0].What, "1 module(s) the tests need are in the module cache ("+cache+") but cannot be verified")
	assert.Contains(t, nr.Problems[0].What, "example.com/dep@v1.0.0")
	assert.NotContains(t, err.Error(), "not in the module cache")
	assert.Contains(t, nr.Problems[0].Fix, "GONOSUMDB")

	prep, err := Prepare(context.Background(), p, PrepareOptions{CacheDir: t.TempDir(), Env: []string{"GONOSUMDB=example.com"}})
	require.NoError(t, err, "the fix the problem names")
	require.NoError(t, prep.Close())
	assert.Equal(t, before, treeDigest(t, root), "Prepare wrote into the checkout")
}

// treeDigest lists root's files with their contents (a checkout that must stay unwritten).
func treeDigest(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}

// TestPrepareVendored: a module with its dependencies vendored is prepared and checked with
// an empty module cache and downloads off — nothing is downloaded, the baseline builds from
// vendor/, and the checkout stays as it was.
func TestPrepareVendored(t *testing.T) {
	needGo(t)
	root := t.TempDir()
	writeDepModule(t, root)
	fillCache := filepath.Join(t.TempDir(), "fill")
	for _, args := range [][]string{{"mod", "tidy"}, {"mod", "vendor"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOPROXY="+fileProxy(t), "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+fillCache, "GOWORK=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %v: %s", args, out)
	}
	require.FileExists(t, filepath.Join(root, "vendor", "modules.txt"))
	empty := filepath.Join(t.TempDir(), "empty")
	for _, kv := range []string{"GOPROXY=off", "GOFLAGS=", "GOMODCACHE=" + empty, "GOWORK=off"} {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	p, err := repo.Discover(root, repo.Go)
	require.NoError(t, err)
	require.True(t, p.Vendor)
	before := treeDigest(t, root)

	prep, err := Prepare(context.Background(), p, PrepareOptions{CacheDir: t.TempDir()})
	require.NoError(t, err)
	defer prep.Close()
	assert.Contains(t, strings.Join(prep.Steps, "\n"), "dependencies vendored (vendor/modules.txt): nothing to download")
	l := NewLocal(Options{Env: prep.Env})
	defer l.Close()
	rd, err := Check(context.Background(), l, prep, CheckOptions{Runs: 1})
	require.NoError(t, err)
	assert.True(t, rd.Ready, "%+v", rd.Findings)
	assert.Equal(t, 1, rd.Tests, "TestG is collected")
	_, err = os.Stat(filepath.Join(empty, "cache", "download", "example.com"))
	assert.True(t, os.IsNotExist(err), "something was downloaded into the module cache (%v)", err)
	assert.Equal(t, before, treeDigest(t, root), "Prepare or Check wrote into the checkout")
}
