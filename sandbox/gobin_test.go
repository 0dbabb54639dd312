package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// binCase is a request whose report must not depend on how its attempts ran.
type binCase struct {
	name string
	req  task.RunRequest
	// verdictsOnly: the messages may differ (a hostile test printing what it found of
	// its parent process, which is the go command in one case and not in the other).
	verdictsOnly bool
}

// binCases are requests over the verdict, fixture and forgery modules: whole packages (the
// first attempt runs the go command, re-runs run the kept binary) and their tests by id
// (every attempt runs the kept binary); with all set, also each test alone and a package
// time-out.
func binCases(t *testing.T, all bool) []binCase {
	verdict := verdictFixture(t, "go")
	gofix := filepath.Join(t.TempDir(), "gofix")
	require.NoError(t, copyTree(filepath.Join("testdata", "gofix"), gofix))
	forge := filepath.Join(t.TempDir(), "forge")
	require.NoError(t, copyTree(filepath.Join("testdata", "forge", "go"), forge))
	corrupted := task.Overlay{}
	corrupted.Set("first/parse.go", []byte("package first\n\n// MustParse is corrupted: it always panics.\nfunc MustParse(s string) int { panic(\"corrupted MustParse(\" + s + \")\") }\n"))
	var cases []binCase
	add := func(name, root, dir string, ov task.Overlay, lim task.Limits, ids ...string) {
		req := func(sel task.Selection) task.RunRequest {
			return task.RunRequest{Root: root, Overlay: ov, Kind: task.GoTest, Limits: lim, Select: sel}
		}
		only := strings.HasPrefix(name, "forge-frames")
		cases = append(cases, binCase{name + "/package", req(task.Selection{Files: []string{dir}}), only})
		if len(ids) > 0 {
			cases = append(cases, binCase{name + "/ids", req(task.Selection{IDs: ids}), only})
		}
		for _, id := range ids {
			if all && len(ids) > 1 {
				cases = append(cases, binCase{name + "/" + id[strings.LastIndexByte(id, '.')+1:], req(task.Selection{IDs: []string{id}}), only})
			}
		}
	}
	v := "example.com/verdict/"
	add("first", verdict, "first", corrupted, task.Limits{}, v+"first.TestParsesFirst", v+"first.TestNoParse", v+"first.TestTable/x", v+"first.TestZLast")
	add("exit", verdict, "exit", nil, task.Limits{}, v+"exit.TestA", v+"exit.TestExits", v+"exit.TestC")
	add("exitzero", verdict, "exitzero", nil, task.Limits{}, v+"exitzero.TestA", v+"exitzero.TestExitsZero", v+"exitzero.TestB")
	add("parallel", verdict, "parallel", nil, task.Limits{}, goTestIDs(t, verdict, "parallel")...)
	add("gofix-panics", gofix, "panics", nil, task.Limits{}, goTestIDs(t, gofix, "panics")...)
	add("gofix-broken", gofix, "broken", nil, task.Limits{})
	for _, c := range goForgeries {
		add("forge-"+c.dir, forge, c.dir, nil, task.Limits{}, c.fail)
	}
	if all {
		add("first-gold", verdict, "first", nil, task.Limits{}, v+"first.TestFailsPlainly", v+"first.TestTable")
		add("gofix-ok", gofix, "ok", nil, task.Limits{}, goTestIDs(t, gofix, "ok")...)
		// The binary's own alarm (90% of the limit) must strike before the runner's limit
		// in both cases, after the go command's build when it runs the attempt: hence a
		// limit far above the build's time.
		add("timeout", verdict, "timeout", nil, task.Limits{Timeout: 40 * time.Second}, v+"timeout.TestHangs", v+"timeout.TestAfterHangFails")
	}
	return cases
}

// goTestIDs lists the top-level tests of the package in dir (relative to root) by reading
// its test files: `func TestX(`, TestMain aside.
func goTestIDs(t *testing.T, root, dir string) []string {
	mod := readModulePath(t, root)
	files, err := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
	require.NoError(t, err)
	re := regexp.MustCompile(`(?m)^func (Test\w*)\(`)
	var ids []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			if m[1] == "TestMain" {
				continue
			}
			ids = append(ids, mod+"/"+dir+"."+m[1])
		}
	}
	sort.Strings(ids)
	require.NotEmpty(t, ids, dir)
	return ids
}

func readModulePath(t *testing.T, root string) string {
	src, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindStringSubmatch(string(src))
	require.NotNil(t, m)
	return m[1]
}

// observations are what differs from run to run whatever runs the binary: elapsed times
// ("(0.00s)"), addresses, goroutine numbers, process ids and the runner's directories.
var observations = regexp.MustCompile(`\d+\.\d+s\b|0x[0-9a-f]+|goroutine \d+|/proc/\d+/|faultline-sandbox-\d+/slot-\d+`)

// comparable is what of a report must not depend on whether the go command or the kept
// binary ran each attempt: state, and each test's outcome and message (durations aside).
func comparable(rep *task.Report, verdictsOnly bool) map[string]string {
	out := map[string]string{"state": string(rep.State)}
	for _, r := range rep.Tests {
		out[r.ID] = string(r.Outcome)
		if !verdictsOnly {
			out[r.ID] += " | " + observations.ReplaceAllString(r.Message, "_")
		}
	}
	return out
}

// TestBinaryMatchesGoCommand: a report is the same whether each attempt ran the go command
// or the package's kept test binary directly (see gobin.go) — verdicts, messages, and the
// cross-check of forged streams — over panics, os.Exit, syscall.Exit(0), t.Parallel tests
// cut off, a package that does not build and the forgeries; with FAULTLINE_ACCEPTANCE
// also each test alone and a package time-out.
func TestBinaryMatchesGoCommand(t *testing.T) {
	needGo(t)
	cases := binCases(t, acceptance.On())
	goCmd := NewLocal(Options{})
	goCmd.noBins = true
	defer goCmd.Close()
	bins := NewLocal(Options{})
	defer bins.Close()
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := goCmd.Run(ctx, c.req)
			require.NoError(t, err)
			got, err := bins.Run(ctx, c.req)
			require.NoError(t, err)
			assert.Equal(t, comparable(want, c.verdictsOnly), comparable(got, c.verdictsOnly), "go command's notes %v, binary's %v", want.Notes, got.Notes)
		})
	}
	// The binaries ran: a runner that keeps none has no test2json and no kept binaries.
	assert.NotEmpty(t, bins.bins.t2j)
	kept, _ := filepath.Glob(filepath.Join(bins.dir, "bin", "*", "*.test"))
	assert.NotEmpty(t, kept)
	assert.Empty(t, goCmd.bins.t2j)
}

func TestGoSummary(t *testing.T) {
	assert.Equal(t, "ok  \tp\t0.000s\n", testrun.GoSummary("p", 0, "", true, true))
	assert.Equal(t, "\nok  \tp\t0.000s\n", testrun.GoSummary("p", 0, "", true, false))
	assert.Equal(t, "exit status 3\n\x16FAIL\tp\t0.000s\n", testrun.GoSummary("p", 3, "", false, false))
	assert.Equal(t, "\n\x16FAIL\tp\t0.000s\n", testrun.GoSummary("p", 1, "", true, false))
	assert.Equal(t, "signal: killed\n\x16FAIL\tp\t0.000s\n", testrun.GoSummary("p", -1, "killed", true, false))
}

// TestKeptBinaryPoison: a test that tries to overwrite the runner's kept test binaries (its
// own included) finds them out of reach, and the next run of the same request, which reuses
// the binary, gives the same verdict.
func TestKeptBinaryPoison(t *testing.T) {
	needGo(t)
	root := t.TempDir()
	src := `package poison

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPoison writes over every kept binary it can find beside its slot.
func TestPoison(t *testing.T) {
	wd, _ := os.Getwd()
	i := strings.Index(wd, "/slot-")
	if i < 0 {
		t.Skip("not in a slot: " + wd)
	}
	bins, _ := filepath.Glob(filepath.Join(wd[:i], "bin", "*", "*.test"))
	if len(bins) == 0 {
		t.Log("no kept binary visible")
	}
	var wrote []string
	for _, b := range bins {
		if err := os.WriteFile(b, []byte("#!/bin/sh\necho trojan\n"), 0o755); err == nil {
			wrote = append(wrote, b)
		}
	}
	if len(wrote) > 0 {
		t.Fatalf("wrote %v", wrote)
	}
}
`
	writeGoModule(t, root, "poison", src)
	l := NewLocal(Options{})
	defer l.Close()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: []string{"example.com/poison.TestPoison"}}}
	for i := range 2 {
		rep, err := l.Run(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, task.RunOK, rep.State, "run %d: %s", i, rep.Detail)
		r, ok := rep.Result("example.com/poison.TestPoison")
		require.True(t, ok)
		assert.Equal(t, task.Pass, r.Outcome, "run %d: %s", i, r.Message)
	}
	kept, _ := filepath.Glob(filepath.Join(l.dir, "bin", "*", "*.test"))
	require.Len(t, kept, 1, "the test ran from a kept binary")
}

// TestBinaryEnvMatchesGoCommand: a test binary run directly sees the environment it sees
// under go test's -exec program (the module cache, a build cache and TMPDIR of the run's
// own, the toolchain's bin directory first on PATH), so a test that runs the go command
// itself behaves the same.
func TestBinaryEnvMatchesGoCommand(t *testing.T) {
	needGo(t)
	root := t.TempDir()
	src := `package envx

import (
	"os"
	"sort"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	var kept []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOMODCACHE", "GOCACHE", "TMPDIR", "HOME", "PATH", "GOFLAGS", "GOPROXY", "TZ", "LANG":
			kept = append(kept, kv)
		}
	}
	sort.Strings(kept)
	wd, _ := os.Getwd()
	t.Fatalf("env:\n%s\nwd: %s", strings.Join(kept, "\n"), wd)
}
`
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/envx\n\ngo 1.21\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "env_test.go"), []byte(src), 0o644))
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{IDs: []string{"example.com/envx/sub.TestEnv"}}}
	goCmd := NewLocal(Options{Jobs: 1})
	goCmd.noBins = true
	defer goCmd.Close()
	bins := NewLocal(Options{Jobs: 1})
	defer bins.Close()
	want, err := goCmd.Run(context.Background(), req)
	require.NoError(t, err)
	got, err := bins.Run(context.Background(), req)
	require.NoError(t, err)
	w, _ := want.Result("example.com/envx/sub.TestEnv")
	g, _ := got.Result("example.com/envx/sub.TestEnv")
	require.Contains(t, w.Message, "GOMODCACHE=")
	require.Contains(t, w.Message, "/tree/sub\n")
	assert.Equal(t, observations.ReplaceAllString(w.Message, "_"), observations.ReplaceAllString(g.Message, "_"))
	kept, _ := filepath.Glob(filepath.Join(bins.dir, "bin", "*", "*.test"))
	assert.Len(t, kept, 1, "the binary ran it")
}

// TestKeptBinaryThatCannotStart: when an attempt's copy of the kept binary cannot be
// executed (here: not executable; on spf13/cast it was ETXTBSY), nothing of the test ran,
// so the attempt is not a crash: the go command runs it, the report is the go command's
// and says why in a note.
func TestKeptBinaryThatCannotStart(t *testing.T) {
	needGo(t)
	verdict := verdictFixture(t, "go")
	v := "example.com/verdict/"
	req := task.RunRequest{Root: verdict, Kind: task.GoTest,
		Select: task.Selection{IDs: []string{v + "first.TestParsesFirst", v + "first.TestFailsPlainly", v + "first.TestTable/x"}}}
	goCmd := NewLocal(Options{})
	goCmd.noBins = true
	defer goCmd.Close()
	broken := NewLocal(Options{})
	broken.binsNoExec = true
	defer broken.Close()
	ctx := context.Background()
	want, err := goCmd.Run(ctx, req)
	require.NoError(t, err)
	got, err := broken.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, got.State, got.Detail)
	assert.Equal(t, comparable(want, false), comparable(got, false))
	var note string
	for _, n := range got.Notes {
		if strings.Contains(n, "did not start") {
			note = n
		}
	}
	assert.Contains(t, note, "the kept test binary of example.com/verdict/first did not start", got.Notes)
	assert.Contains(t, note, "ermission denied", "the exec's own complaint is kept")
	// The binary was built and kept: the attempt did try it.
	kept, _ := filepath.Glob(filepath.Join(broken.dir, "bin", "*", "*.test"))
	assert.NotEmpty(t, kept)
}

func TestNotStarted(t *testing.T) {
	bin := "/tmp/faultline-sandbox-1/slot-0/gotmp/unit.test"
	w := func(s string) *lockedWriter {
		lw := &lockedWriter{w: io.Discard}
		_, _ = lw.Write([]byte(s))
		return lw
	}
	why, ok := notStarted(126, w("setpriv: failed to execute "+bin+": Text file busy\n"), bin)
	assert.True(t, ok)
	assert.Equal(t, "setpriv: failed to execute "+bin+": Text file busy", why)
	_, ok = notStarted(127, w("sandbox: 1: exec: "+bin+": not found\n"), bin)
	assert.True(t, ok)
	// A test binary that ran and exited 126 or 127 itself.
	_, ok = notStarted(126, w("=== RUN   TestA\n"+bin+": exec format\n"), bin)
	assert.False(t, ok)
	_, ok = notStarted(127, w(""), bin)
	assert.False(t, ok)
	_, ok = notStarted(1, w("setpriv: failed to execute "+bin+": Text file busy\n"), bin)
	assert.False(t, ok)
	// More than the head holds: not one line of complaint.
	_, ok = notStarted(126, w("setpriv: failed to execute "+bin+": x"+strings.Repeat(" ", headBytes)), bin)
	assert.False(t, ok)
}
