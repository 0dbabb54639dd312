// Package alone gives the reference verdicts that FAIL_TO_PASS and PASS_TO_PASS are checked
// against: each test run by itself, in its own process, on a tree written out in full —
// `go test -run '^TestName$'` (through the package's compiled test binary, which is what go
// test runs) or `python -m pytest <node id>`. A test run alone cannot be cut short by
// another test's panic, os.Exit or interpreter crash, so its verdict is its own.
package alone

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// Verdict is the outcome of one test run alone: task.Pass or task.Fail (a failure, a
// panic, an exit or a crash of its own process).
type Verdict = task.Outcome

// Tree writes root with overlay applied to a new directory under dir and returns it.
func Tree(dir, root string, overlay task.Overlay) (string, error) {
	out, err := os.MkdirTemp(dir, "alone-")
	if err != nil {
		return "", err
	}
	if err := fstree.CopySubject(root, out); err != nil {
		return "", err
	}
	for _, p := range overlay.Paths() {
		full := filepath.Join(out, filepath.FromSlash(p))
		if ch := overlay[p]; ch.Delete {
			os.Remove(full)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, overlay[p].Data, 0o644); err != nil {
			return "", err
		}
	}
	return out, nil
}

// Go runs each Go test id (`import/path.TestName/sub`) of the module at tree alone and
// returns its verdict. Each package's test binary is compiled once (`go test -c` into a
// temporary directory removed at the end, env added to the environment); a test runs as `binary -test.run '^TestName$/^sub$'` in its
// package's directory, and its verdict is the `--- PASS`/`--- FAIL` line go test prints for
// it (a panic or exit that prints none is a failure). An id whose test did not run at all
// is an error: the id does not name a test.
func Go(ctx context.Context, tree string, ids []string, env []string) (map[string]Verdict, error) {
	mod := repo.ReadGoMod(filepath.Join(tree, "go.mod")).Path
	binDir, err := os.MkdirTemp("", "alone-bin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(binDir)
	bins := map[string]string{}
	out := map[string]Verdict{}
	for _, id := range ids {
		pkg, name, ok := task.SplitGoTestID(id)
		if !ok {
			return nil, fmt.Errorf("alone: %q is not a Go test id", id)
		}
		dir := "."
		if pkg != mod {
			rel, ok := strings.CutPrefix(pkg, mod+"/")
			if !ok {
				return nil, fmt.Errorf("alone: %s lies outside module %s", pkg, mod)
			}
			dir = rel
		}
		bin, ok := bins[dir]
		if !ok {
			bin = filepath.Join(binDir, strings.ReplaceAll(dir, "/", "_")+".test")
			cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, "./"+dir)
			cmd.Dir, cmd.Env = tree, append(os.Environ(), env...)
			if b, err := cmd.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("alone: go test -c ./%s: %v\n%s", dir, err, b)
			}
			bins[dir] = bin
		}
		parts := strings.Split(name, "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		cmd := exec.CommandContext(ctx, bin, "-test.v", "-test.count=1", "-test.run", strings.Join(parts, "/"))
		cmd.Dir, cmd.Env = filepath.Join(tree, filepath.FromSlash(dir)), append(os.Environ(), env...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		text := buf.String()
		switch {
		case strings.Contains(text, "--- PASS: "+name+" ") && err == nil:
			out[id] = task.Pass
		case strings.Contains(text, "--- FAIL: "+name+" ") || strings.Contains(text, "=== RUN   "+name+"\n") && err != nil:
			out[id] = task.Fail
		default:
			return nil, fmt.Errorf("alone: %s did not run (%v):\n%s", id, err, tail(text))
		}
	}
	return out, nil
}

// Pytest runs each pytest node id of tree alone (`python -m pytest -p no:cacheprovider
// <id>` in tree) and returns its verdict: exit status 0 is a pass, 1 a failure, and a
// process killed by a signal (a crash) or exiting with any other status after the test
// started is a failure too, and so is a test whose module fails to collect. Otherwise
// exit status 4 or 5 (usage error, nothing collected) is an error: the id does not name
// a test.
func Pytest(ctx context.Context, tree, python string, ids []string) (map[string]Verdict, error) {
	out := map[string]Verdict{}
	for _, id := range ids {
		cmd := exec.CommandContext(ctx, python, "-m", "pytest", "-p", "no:cacheprovider", "-q", id)
		cmd.Dir = tree
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		code := cmd.ProcessState.ExitCode()
		switch {
		case err == nil:
			out[id] = task.Pass
		case code == 4 && strings.Contains(buf.String(), "ERROR collecting"):
			out[id] = task.Fail // its module does not import: the test errors
		case code == 4 || code == 5:
			return nil, fmt.Errorf("alone: %s: pytest exit %d:\n%s", id, code, tail(buf.String()))
		default:
			out[id] = task.Fail
		}
	}
	return out, nil
}

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}
