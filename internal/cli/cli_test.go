package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, "prog")
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.Phase("validate", 4)
	clock = clock.Add(30 * time.Second)
	p.Step(1, "a kept")
	clock = clock.Add(30 * time.Second)
	p.Step(4, "")
	p.Phase("write", 0)
	p.Step(2, "x")
	want := "prog: validate: 4 to do\n" +
		"prog: validate: 1/4 (25%), 30s elapsed, about 1m30s left: a kept\n" +
		"prog: validate: 4/4 (100%), 1m0s elapsed\n" +
		"prog: write\n" +
		"prog: write: 2 done, 0s elapsed: x\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestProgressBeat(t *testing.T) {
	var w bytes.Buffer
	p := NewProgress(&w, "prog")
	p.Phase("trace", 10)
	stop := p.Beat(40 * time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	stop()
	stop()
	if n := strings.Count(w.String(), "trace: 0/10 (0%)"); n < 2 {
		t.Errorf("%d heartbeats in 200 ms at 40 ms:\n%s", n, w.String())
	}
}

func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, why string
	}{
		{"-", ""},
		{filepath.Join(dir, "new.jsonl"), ""},
		{existing, ""},
		{"", "-out: empty path"},
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "x.jsonl"), "no such file"},
		{filepath.Join(existing, "x.jsonl"), "not a directory"},
	} {
		err := CheckOutputFile("out", c.path)
		if (err == nil) != (c.why == "") || err != nil && !strings.Contains(err.Error(), c.why) {
			t.Errorf("CheckOutputFile(%q) = %v, want %q", c.path, err, c.why)
		}
	}
	if os.Geteuid() != 0 {
		if err := CheckOutputFile("out", filepath.Join(dir, "ro", "x")); err == nil {
			t.Error("a read-only directory accepted")
		}
	}
	for _, c := range []struct{ path, why string }{
		{dir, ""}, {filepath.Join(dir, "a", "b"), ""}, {"", "empty path"}, {existing, "not a directory"}, {filepath.Join(existing, "sub"), "not a directory"},
	} {
		err := CheckOutputDir("out", c.path)
		if (err == nil) != (c.why == "") || err != nil && !strings.Contains(err.Error(), c.why) {
			t.Errorf("CheckOutputDir(%q) = %v, want %q", c.path, err, c.why)
		}
	}
	// Nothing stays written.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("the checks left %d entries", len(ents))
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Error("an existing output was changed by the check")
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	f, err := Create(path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "half")
	if _, err := os.Stat(path); err == nil {
		t.Error("the output exists before Commit")
	}
	f.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Abort left %v", ents)
	}
	f, _ = Create(path, io.Discard)
	io.WriteString(f, "whole")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "whole" {
		t.Errorf("output %q", b)
	}
	var out bytes.Buffer
	f, _ = Create("-", &out)
	io.WriteString(f, "to stdout")
	f.Abort()
	if out.String() != "to stdout" || f.Commit() != nil {
		t.Error("stdout output")
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args       []string
		positional bool
		want       int
	}{
		{nil, false, -1}, {[]string{"-h"}, false, 0}, {[]string{"-help"}, false, 0}, {[]string{"-nope"}, false, 2},
		{[]string{"x"}, false, 2}, {[]string{"x"}, true, -1}, {[]string{"-n", "x"}, false, 2},
	} {
		fs := flag.NewFlagSet("p", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 1, "")
		if got := Parse(fs, c.args, c.positional); got != c.want {
			t.Errorf("Parse(%q) = %d, want %d", c.args, got, c.want)
		}
	}
	var e EnvFlag
	if e.Set("A=1") != nil || e.Set("=1") == nil || e.Set("B") == nil || e.String() != "A=1" {
		t.Errorf("EnvFlag: %v", e)
	}
}

// TestRunSignal: a signal cancels the program's context; the exit status is 128+signal,
// reported after the program returned (its cleanup ran).
func TestRunSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cleaned := false
		code := Run(context.Background(), func(ctx context.Context, _ []string, _, _ io.Writer) int {
			syscall.Kill(os.Getpid(), sig)
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
				t.Error("the context was not cancelled")
			}
			cleaned = true
			return ExitFailure
		}, nil, io.Discard, io.Discard)
		if code != 128+int(sig) || !cleaned {
			t.Errorf("%v: exit %d, cleaned %v", sig, code, cleaned)
		}
	}
	if code := Run(context.Background(), func(context.Context, []string, io.Writer, io.Writer) int { return 7 }, nil, io.Discard, io.Discard); code != 7 {
		t.Errorf("no signal: exit %d", code)
	}
}

func TestLanguage(t *testing.T) {
	py := t.TempDir()
	os.MkdirAll(filepath.Join(py, ".venv"), 0o755)
	os.WriteFile(filepath.Join(py, "mod.py"), []byte("x = 1\n"), 0o644)
	hidden := t.TempDir()
	os.MkdirAll(filepath.Join(hidden, ".venv"), 0o755)
	os.WriteFile(filepath.Join(hidden, ".venv", "site.py"), []byte("x = 1\n"), 0o644)
	gomod := t.TempDir()
	os.WriteFile(filepath.Join(gomod, "go.mod"), []byte("module m\n"), 0o644)
	os.WriteFile(filepath.Join(gomod, "tool.py"), []byte("x = 1\n"), 0o644)
	for _, tc := range []struct{ root, flag, want, err string }{
		{gomod, "auto", "go", ""},
		{py, "auto", "python", ""},
		{py, "go", "go", ""},
		{hidden, "auto", "", "neither a go.mod nor Python files"},
		{py, "cobol", "", `-lang "cobol"`},
	} {
		got, err := Language(tc.root, tc.flag)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Language(%s, %s) = %q, %v; want %q, %q", tc.root, tc.flag, got, err, tc.want, tc.err)
		}
	}
}

func TestOutsideAndRepo(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	os.Symlink(root, filepath.Join(other, "link"))
	for _, c := range []struct {
		path string
		in   bool
	}{
		{"-", false}, {filepath.Join(other, "x.jsonl"), false}, {filepath.Join(root, "x.jsonl"), true},
		{root, true}, {filepath.Join(root, "a", "b"), true}, {filepath.Join(other, "link", "x.jsonl"), true},
		{root + "-sibling/x", false},
	} {
		err := Outside("out", c.path, root)
		if (err != nil) != c.in {
			t.Errorf("Outside(%s) = %v, want inside %v", c.path, err, c.in)
		}
	}
	if _, err := Repo(""); err == nil {
		t.Error("an empty -repo accepted")
	}
	if got, err := Repo(root); err != nil || got != root {
		t.Errorf("Repo(%s) = %q, %v", root, got, err)
	}
	if GitHead(root) != "" {
		t.Error("a directory without .git has a HEAD")
	}
}

func TestCheckOutputs(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, c := range []struct {
		outs []Output
		why  string
	}{
		{[]Output{{Flag: "out", Path: a}, {Flag: "swe", Path: b}}, ""},
		{[]Output{{Flag: "out", Path: "-"}, {Flag: "swe", Optional: true}}, ""},
		{[]Output{{Flag: "out", Path: "-"}, {Flag: "swe", Path: "-"}}, "-out and -swe cannot both be stdout"},
		{[]Output{{Flag: "out", Path: a}, {Flag: "swe", Path: dir + "/./a"}}, "-out and -swe name the same file"},
		{[]Output{{Flag: "out", Path: ""}}, "-out: empty path"},
		{[]Output{{Flag: "out", Path: filepath.Join(root, "x")}}, "lies inside the repository"},
	} {
		err := CheckOutputs(root, c.outs...)
		if (err == nil) != (c.why == "") || err != nil && !strings.Contains(err.Error(), c.why) {
			t.Errorf("CheckOutputs(%v) = %v, want %q", c.outs, err, c.why)
		}
	}
	var b2 bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	if Fail(ctx, &b2, "p", nil) != ExitOK || Fail(ctx, &b2, "p", io.ErrUnexpectedEOF) != ExitFailure || !strings.Contains(b2.String(), "p: unexpected EOF") {
		t.Errorf("Fail: %q", b2.String())
	}
	cancel()
	b2.Reset()
	if Fail(ctx, &b2, "p", ctx.Err()) != ExitFailure || b2.String() != "p: interrupted; nothing written\n" {
		t.Errorf("Fail after a cancel: %q", b2.String())
	}
}

// TestFileInPlace: an output naming a device or a pipe is written to it directly. A
// temporary file renamed over it would replace it (run as root, over /dev/null, this
// replaced the machine's /dev/null with a regular file holding the output).
func TestFileInPlace(t *testing.T) {
	if !InPlace(os.DevNull) {
		t.Errorf("%s is not written in place", os.DevNull)
	}
	dir := t.TempDir()
	regular := filepath.Join(dir, "out.json")
	if InPlace(regular) || InPlace(dir) {
		t.Error("a missing file or a directory is written in place")
	}
	if err := CheckOutputFile("out", os.DevNull); err != nil {
		t.Errorf("CheckOutputFile(%s): %v", os.DevNull, err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := CheckOutputFile("out", fifo); err != nil {
		t.Fatalf("CheckOutputFile(pipe): %v", err)
	}
	read := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		read <- string(b)
	}()
	f, err := Create(fifo, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "through the pipe")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if got := <-read; got != "through the pipe" {
		t.Errorf("the reader got %q", got)
	}
	st, err := os.Lstat(fifo)
	if err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files beside the pipe: %v", ents)
	}
}

func TestSetExcept(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("out", "", "")
	fs.Int("n", 0, "")
	fs.Bool("merge", false, "")
	fs.String("seed", "", "")
	if err := fs.Parse([]string{"-seed", "3", "-merge", "-out", "o", "-n", "2", "a"}); err != nil {
		t.Fatal(err)
	}
	if got := SetExcept(fs, "merge", "out"); !slices.Equal(got, []string{"-n", "-seed"}) {
		t.Errorf("SetExcept = %v, want [-n -seed]", got)
	}
	if got := SetExcept(fs, "merge", "out", "n", "seed"); got != nil {
		t.Errorf("SetExcept with every set flag allowed = %v", got)
	}
}
