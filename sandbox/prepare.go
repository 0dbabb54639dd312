package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// A project is prepared before any sandboxed run: runs are offline and see a read-only module
// cache, so what the tests need must already be on the machine, and a project narrowed to one
// package (repo.Project.Include) must be copied where its imports resolve. Prepare does that
// outside the sandbox, with the user's own configuration (GOFLAGS, GOPROXY, GOMODCACHE,
// GONOSUMDB and the like are honoured), and never writes the user's checkout.

// Problem is one reason a project is not ready, with what to do about it.
type Problem struct {
	// What is wrong, in one sentence.
	What string `json:"what"`
	// Fix says what the user can do.
	Fix string `json:"fix"`
}

func (p Problem) String() string { return p.What + " — " + p.Fix }

// ErrNotReady is wrapped by errors of Prepare and Check when a project cannot be used; the
// error's text lists the problems and their fixes (see NotReadyError).
var ErrNotReady = errors.New("project not ready")

// NotReadyError lists the problems that make a project unusable.
type NotReadyError struct {
	Root     string
	Problems []Problem
}

func (e *NotReadyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox: %s is not ready:", e.Root)
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p.String())
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrNotReady) true.
func (e *NotReadyError) Unwrap() error { return ErrNotReady }

// PrepareOptions configure Prepare. The zero value works.
type PrepareOptions struct {
	// Go is the go command (default "go" on PATH).
	Go string
	// Python is the interpreter for pytest (default: the first of /usr/bin/python3,
	// python3, python that can import pytest).
	Python string
	// Env holds extra KEY=VALUE pairs for the prepare commands (and, through
	// Prepared.Env, for the runs), e.g. GOPROXY=off to forbid downloads.
	Env []string
	// CacheDir keeps a marker per prepared Go dependency state so that a second Prepare of
	// the same go.mod/go.sum and configuration does nothing (default
	// $XDG_CACHE_HOME/faultline/prepare, or ~/.cache/faultline/prepare; "-" disables).
	CacheDir string
}

// Prepared is a project made ready for sandboxed runs.
type Prepared struct {
	Project *repo.Project
	// Kind is the test runner the project uses.
	Kind task.TestKind
	// Root is what runs copy: Project.Root, or a private staging copy of the project's
	// Include paths at the same relative places (removed by Close).
	Root string
	// Args are test-command arguments the layout needs (pytest's pythonpath for a src
	// layout); put them in task.RunRequest.Args.
	Args []string
	// Env are KEY=VALUE pairs the runs need (Options.Env of the runner): GOPROXY=off once
	// dependencies are downloaded, so a missing module fails at once and by name.
	Env []string
	// Python is the interpreter chosen for pytest ("" for Go).
	Python string
	// Steps says what Prepare did, one line each ("go mod download all: cached").
	Steps []string
	stage string
}

// Request returns the base request for the project's runs: Root, Kind and Args.
func (p *Prepared) Request() task.RunRequest {
	return task.RunRequest{Root: p.Root, Kind: p.Kind, Args: append([]string(nil), p.Args...)}
}

// Close removes the staging copy, if any.
func (p *Prepared) Close() error {
	if p == nil || p.stage == "" {
		return nil
	}
	err := forceRemoveAll(p.stage)
	p.stage = ""
	return err
}

// Prepare makes the project ready for sandboxed runs (see the comment above PrepareOptions):
//
//   - Go: unless the module vendors its dependencies, `go mod download all` runs on copies of
//     go.mod and go.sum (the checkout is never written), then `go list -deps -test ./...`
//     with downloads off checks that every package the tests build resolves. Missing modules,
//     missing go.sum entries and unreachable proxies come back as a NotReadyError naming
//     them. A successful state is remembered in CacheDir.
//   - Python: the interpreter with pytest is chosen; a project narrowed to a package is
//     staged (copied under a private root at the same relative place, so `import pkg` finds
//     the copy and not an installed one); a src layout's directories go on pytest's
//     pythonpath.
//   - JavaScript projects have no runner: Prepare returns an error.
func Prepare(ctx context.Context, p *repo.Project, opts PrepareOptions) (*Prepared, error) {
	if opts.Go == "" {
		opts.Go = "go"
	}
	prep := &Prepared{Project: p, Root: p.Root}
	switch p.Lang {
	case repo.Go:
		prep.Kind = task.GoTest
		if err := prepareGo(ctx, prep, opts); err != nil {
			return nil, err
		}
	case repo.Python:
		prep.Kind = task.Pytest
		if err := preparePython(prep, opts); err != nil {
			prep.Close()
			return nil, err
		}
	default:
		return nil, fmt.Errorf("sandbox: no test runner for %s projects (Go and Python are supported): %w", p.Lang, ErrNotReady)
	}
	return prep, nil
}

func preparePython(prep *Prepared, opts PrepareOptions) error {
	p := prep.Project
	cands := []string{"/usr/bin/python3", "python3", "python"}
	if opts.Python != "" {
		cands = []string{opts.Python}
	}
	py, err := findPython(cands)
	if err != nil {
		return &NotReadyError{Root: p.Root, Problems: []Problem{{
			What: fmt.Sprintf("no Python interpreter with pytest (tried %s)", strings.Join(cands, ", ")),
			Fix:  "install pytest for the interpreter the project uses (Debian: apt-get install python3-pytest), or name it with -python",
		}}}
	}
	prep.Python = py
	prep.Steps = append(prep.Steps, "python with pytest: "+py)
	if cfg := repo.ReadPytestConfig(p.Root); cfg.File != "" {
		prep.Steps = append(prep.Steps, "pytest configuration: "+cfg.File)
	}
	if len(p.PythonPath) > 0 {
		// pytest inserts its pythonpath entries first on sys.path: the copy shadows any
		// installed (or editable-installed) version of the package.
		prep.Args = append(prep.Args, "-o", "pythonpath="+strings.Join(p.PythonPath, " "))
	}
	if len(p.Include) > 0 {
		stage, err := os.MkdirTemp("", "faultline-stage-")
		if err != nil {
			return fmt.Errorf("sandbox: staging: %w", err)
		}
		prep.stage = stage
		for _, inc := range p.Include {
			src, dst := filepath.Join(p.Root, filepath.FromSlash(inc)), filepath.Join(stage, filepath.FromSlash(inc))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return fmt.Errorf("sandbox: staging: %w", err)
			}
			st, err := os.Stat(src)
			if err != nil {
				return fmt.Errorf("sandbox: staging: %w", err)
			}
			if st.IsDir() {
				err = copyTree(src, dst)
			} else {
				err = fstree.CopyFile(src, dst, st.Mode().Perm())
			}
			if err != nil {
				return fmt.Errorf("sandbox: staging %s: %w", inc, err)
			}
		}
		prep.Root = stage
		prep.Steps = append(prep.Steps, fmt.Sprintf("staged %s under a private root (the rest of %s is not part of the project)", strings.Join(p.Include, ", "), p.Root))
	}
	return nil
}

// goCmd runs the go command in dir with the user's environment plus extra; it returns stdout
// and stderr.
func goCmd(ctx context.Context, goBin, dir string, extra []string, args ...string) ([]byte, string, error) {
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = mergeEnv(os.Environ(), extra)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return out, stderr.String(), err
}

func prepareGo(ctx context.Context, prep *Prepared, opts PrepareOptions) error {
	p := prep.Project
	if _, err := exec.LookPath(opts.Go); err != nil {
		return &NotReadyError{Root: p.Root, Problems: []Problem{{What: "the go command is not on PATH", Fix: "install Go 1.26 (https://go.dev/dl) and put its bin directory on PATH"}}}
	}
	goenv, _, err := goCmd(ctx, opts.Go, p.Root, opts.Env, "env", "-json", "GOMODCACHE", "GOPROXY", "GOFLAGS", "GONOSUMDB", "GOPRIVATE", "GOINSECURE", "GOSUMDB", "GOWORK", "GOVERSION")
	if err != nil {
		return fmt.Errorf("sandbox: go env in %s: %w", p.Root, err)
	}
	var env map[string]string
	if err := json.Unmarshal(goenv, &env); err != nil {
		return fmt.Errorf("sandbox: go env: %w", err)
	}
	if p.Vendor && !strings.Contains(env["GOFLAGS"], "-mod=mod") {
		prep.Steps = append(prep.Steps, "dependencies vendored (vendor/modules.txt): nothing to download")
		return checkGoDeps(ctx, prep, opts)
	}
	key := goPrepareKey(p.Root, env, opts.Env)
	marker := ""
	if dir := prepareCacheDir(opts.CacheDir); dir != "" && key != "" {
		marker = filepath.Join(dir, key)
		// The marker says the download was done, not that the cache still holds it (go clean
		// -modcache empties it): what the tests build must still resolve offline.
		if _, err := os.Stat(marker); err == nil {
			check := &Prepared{Project: p}
			if checkGoDeps(ctx, check, opts) == nil {
				prep.Steps = append(prep.Steps, "go mod download all: already done for this go.mod/go.sum ("+marker+")")
				prep.Env = append(prep.Env, "GOPROXY=off")
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			prep.Steps = append(prep.Steps, "go mod download all was done for this go.mod/go.sum ("+marker+"), but the module cache no longer holds what the tests build: downloading again")
		}
	}
	start := time.Now()
	if err := goDownload(ctx, prep, opts, env); err != nil {
		// The build list may name modules no package of the tests imports (a dependency's
		// own test requirements, which a pruned module graph never loads): a failure to
		// download them matters only when what the tests build does not resolve offline.
		var nr *NotReadyError
		if !errors.As(err, &nr) || checkGoDeps(ctx, prep, opts) != nil {
			return err
		}
		prep.Steps = append(prep.Steps, fmt.Sprintf("go mod download all into %s: some modules of the build list could not be downloaded, none that the tests build (%s)",
			env["GOMODCACHE"], strings.Join(problemWhats(nr.Problems), "; ")))
		prep.Env = append(prep.Env, "GOPROXY=off")
		return nil
	}
	prep.Steps = append(prep.Steps, fmt.Sprintf("go mod download all into %s (%s)", env["GOMODCACHE"], time.Since(start).Round(time.Millisecond)))
	if err := checkGoDeps(ctx, prep, opts); err != nil {
		return err
	}
	prep.Env = append(prep.Env, "GOPROXY=off")
	if marker != "" {
		if err := os.MkdirAll(filepath.Dir(marker), 0o755); err == nil {
			_ = os.WriteFile(marker, []byte(p.Root+"\n"), 0o644)
		}
	}
	return nil
}

// goDownload runs `go mod download all` in the checkout with -modfile pointing at copies of
// go.mod and go.sum in a scratch directory: relative replacements still resolve from the
// module root, and any go.sum update lands in the copy, never in the checkout.
func goDownload(ctx context.Context, prep *Prepared, opts PrepareOptions, env map[string]string) error {
	p := prep.Project
	modfile, done, err := scratchModfile(p.Root)
	if err != nil {
		return err
	}
	defer done()
	flags := strings.Fields(env["GOFLAGS"])
	kept := flags[:0]
	for _, f := range flags {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "-modfile=") {
			kept = append(kept, f)
		}
	}
	extra := append([]string{"GOWORK=off", "GOFLAGS=" + strings.Join(kept, " ")}, opts.Env...)
	out, stderr, err := goCmd(ctx, opts.Go, p.Root, extra, "mod", "download", "-json", "-modfile="+modfile, "all")
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// One JSON object per module; those that could not be downloaded carry Error.
	var failed []string
	reasons := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Version, Error string }
		if dec.Decode(&m) != nil {
			break
		}
		if m.Error != "" {
			failed = append(failed, m.Path+"@"+m.Version)
			reasons[m.Error]++
		}
	}
	if len(failed) == 0 {
		return &NotReadyError{Root: p.Root, Problems: goProblems(stderr, env["GOPROXY"], env["GOMODCACHE"])}
	}
	sort.Strings(failed)
	why := make([]string, 0, len(reasons))
	for r := range reasons {
		why = append(why, r)
	}
	sort.Strings(why)
	absent, unverified := splitCached(env["GOMODCACHE"], failed)
	var problems []Problem
	if len(absent) > 0 {
		fix := "run `go mod download` with the module proxy reachable, or copy the modules into GOMODCACHE"
		if env["GOPROXY"] == "off" {
			fix = "downloads are off (GOPROXY=off): run `go mod download` once with a module proxy, or copy the modules into GOMODCACHE"
		}
		problems = append(problems, Problem{
			What: fmt.Sprintf("%d module(s) the tests need are not in the module cache (%s) and could not be downloaded (%s): %s",
				len(absent), env["GOMODCACHE"], strings.Join(why, "; "), strings.Join(absent, ", ")),
			Fix: fix,
		})
	}
	if len(unverified) > 0 {
		problems = append(problems, unverifiedProblem(unverified, env["GOMODCACHE"], strings.Join(why, "; ")))
	}
	return &NotReadyError{Root: p.Root, Problems: problems}
}

// splitCached splits failed (path@version) into the modules the module cache lacks and those
// it holds. The go command builds from a cached module without the network unless it must
// verify it first (go.sum has no line for it), so a cached module that failed is one that
// could not be verified.
func splitCached(modcache string, failed []string) (absent, cached []string) {
	for _, mv := range failed {
		path, version, ok := strings.Cut(mv, "@")
		if ok && modcache != "" && inModCache(modcache, path, version) {
			cached = append(cached, mv)
		} else {
			absent = append(absent, mv)
		}
	}
	return absent, cached
}

// inModCache reports whether the module cache holds the zip of path@version (the download
// cache's layout: each upper-case letter of the path and version is written "!" and its
// lower case).
func inModCache(modcache, path, version string) bool {
	esc := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if 'A' <= r && r <= 'Z' {
				b.WriteByte('!')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	_, err := os.Stat(filepath.Join(modcache, "cache", "download", filepath.FromSlash(esc(path)), "@v", esc(version)+".zip"))
	return err == nil
}

// unverifiedProblem is the problem of modules the module cache holds that the go command
// would not use: go.sum has no checksum for them and the checksum database was not reachable.
func unverifiedProblem(mods []string, modcache, why string) Problem {
	detail := ""
	if why != "" {
		detail = " (" + why + ")"
	}
	return Problem{
		What: fmt.Sprintf("%d module(s) the tests need are in the module cache (%s) but cannot be verified: go.sum has no checksum for them and the checksum database could not be reached%s: %s",
			len(mods), modcache, detail, strings.Join(mods, ", ")),
		Fix: "add their go.sum lines in your checkout (`go mod tidy` with the network), or, if you trust the module cache, pass -env GONOSUMDB=<their module paths> (or -env GOSUMDB=off)",
	}
}

// scratchModfile copies root's go.mod and go.sum (when there is one) into a scratch
// directory and returns the copy of go.mod, for the go command's -modfile: relative
// replacements still resolve from the module root, and whatever the go command adds to
// go.mod or go.sum (-mod=mod) lands in the copy, never in the checkout. done removes it.
func scratchModfile(root string) (modfile string, done func(), err error) {
	scratch, err := os.MkdirTemp("", "faultline-prepare-")
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: prepare: %w", err)
	}
	done = func() { os.RemoveAll(scratch) }
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if f == "go.sum" && errors.Is(err, os.ErrNotExist) {
				continue
			}
			done()
			return "", nil, fmt.Errorf("sandbox: prepare: %w", err)
		}
		if err := os.WriteFile(filepath.Join(scratch, f), data, 0o644); err != nil {
			done()
			return "", nil, fmt.Errorf("sandbox: prepare: %w", err)
		}
	}
	return filepath.Join(scratch, "go.mod"), done, nil
}

// checkGoDeps lists every package the tests build, downloads off (also when the user's -env
// names a GOPROXY: the check is what the offline runs will find), and turns errors into
// problems. go.mod and go.sum are scratch copies (-mod=mod would complete the checkout's).
func checkGoDeps(ctx context.Context, prep *Prepared, opts PrepareOptions) error {
	p := prep.Project
	extra := append(append([]string(nil), opts.Env...), "GOPROXY=off")
	modfile, done, err := scratchModfile(p.Root)
	if err != nil {
		return err
	}
	defer done()
	out, stderr, err := goCmd(ctx, opts.Go, p.Root, extra, "list", "-e", "-modfile="+modfile, "-deps", "-test", "-f", "{{with .Error}}{{.Err}}{{\"\\n\"}}{{end}}{{range .DepsErrors}}{{.Err}}{{\"\\n\"}}{{end}}", "./...")
	if ctx.Err() != nil {
		return ctx.Err()
	}
	text := strings.TrimSpace(string(out) + "\n" + stderr)
	if err == nil && text == "" {
		prep.Steps = append(prep.Steps, "go list -deps -test ./... resolves offline")
		return nil
	}
	modcache := ""
	if out, _, err := goCmd(ctx, opts.Go, p.Root, extra, "env", "GOMODCACHE"); err == nil {
		modcache = strings.TrimSpace(string(out))
	}
	problems := goProblems(text, "off", modcache)
	if len(problems) == 0 {
		return nil // errors that are not about dependencies (a syntax error) are the baseline's to report
	}
	return &NotReadyError{Root: p.Root, Problems: problems}
}

var (
	// "go: github.com/x/y@v1.2.3: module lookup disabled by GOPROXY=off" and relatives.
	goModVersionRE = regexp.MustCompile(`([A-Za-z0-9.\-_~]+\.[A-Za-z0-9.\-_~/]+)@(v[0-9][^:\s]*)`)
	goSumEntryRE   = regexp.MustCompile(`missing go\.sum entry for module providing package (\S+)(?: \(imported by (\S+)\))?`)
)

// goProblems reads the go command's errors about dependencies; modcache (when known) tells
// a module the cache lacks from one it holds but could not verify.
func goProblems(text, proxy, modcache string) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(p Problem) {
		if !seen[p.What] {
			seen[p.What] = true
			out = append(out, p)
		}
	}
	var missing []string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case goSumEntryRE.MatchString(line):
			m := goSumEntryRE.FindStringSubmatch(line)
			add(Problem{What: "go.sum has no entry for the module providing " + m[1],
				Fix: "run `go mod tidy` (or `go get " + m[1] + "`) in your checkout — faultline never edits it"})
		case strings.Contains(line, "GOPROXY=off") || strings.Contains(line, "module lookup disabled") ||
			strings.Contains(line, "network is unreachable") || strings.Contains(line, "dial tcp") ||
			strings.Contains(line, "no such host") || strings.Contains(line, "cannot find module providing"):
			if m := goModVersionRE.FindStringSubmatch(line); m != nil {
				missing = append(missing, m[1]+"@"+m[2])
			} else if i := strings.Index(line, "cannot find module providing package "); i >= 0 {
				missing = append(missing, strings.Fields(line[i+len("cannot find module providing package "):])[0])
			} else {
				add(Problem{What: line, Fix: "make the module proxy reachable (GOPROXY) or fill the module cache"})
			}
		case strings.HasPrefix(line, "go: ") && strings.Contains(line, "verifying") || strings.Contains(line, "SECURITY ERROR"):
			add(Problem{What: line, Fix: "the module cache or go.sum disagrees with the checksum database; check go.sum"})
		}
	}
	sort.Strings(missing)
	missing = slices.Compact(missing)
	missing, unverified := splitCached(modcache, missing)
	if len(unverified) > 0 {
		add(unverifiedProblem(unverified, modcache, ""))
	}
	if len(missing) > 0 {
		why := "they cannot be downloaded"
		if proxy == "off" {
			why = "downloads are off (GOPROXY=off)"
		}
		add(Problem{
			What: fmt.Sprintf("%d module(s) the tests need are not in the module cache and %s: %s", len(missing), why, strings.Join(missing, ", ")),
			Fix:  "run `go mod download` with the module proxy reachable (unset GOPROXY=off), or copy the modules into GOMODCACHE",
		})
	}
	if len(out) == 0 && strings.TrimSpace(text) != "" && proxy != "off" {
		add(Problem{What: "go mod download failed: " + testrun.FirstLine(text), Fix: "run `go mod download` in the checkout and fix what it reports"})
	}
	return out
}

func problemWhats(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.What
	}
	return out
}

// goPrepareKey hashes what decides the downloaded state: go.mod, go.sum and the go
// configuration. "" when go.mod cannot be read.
func goPrepareKey(root string, env map[string]string, extra []string) string {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil && f == "go.mod" {
			return ""
		}
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, env[k])
	}
	for _, kv := range extra {
		fmt.Fprintf(h, "%s\n", kv)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// prepareCacheDir resolves PrepareOptions.CacheDir.
func prepareCacheDir(opt string) string {
	switch opt {
	case "-":
		return ""
	case "":
		d, err := faultlineCacheDir("prepare")
		if err != nil {
			return ""
		}
		return d
	}
	return opt
}
