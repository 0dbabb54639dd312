package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// cmdOracle runs a shell command once per candidate program: {program} becomes the path of
// a temporary file holding the program text, {dir} its directory and {task_id} the task id
// (all shell-quoted). Exit status 0 means the program passes; any other exit status means it
// fails. A timeout, a death by signal (or an exit status above 128, the shell's report of
// a child killed by a signal), or a command the shell cannot run (status 126, 127) is an
// error. The command runs in its own process group, which a timeout kills.
type cmdOracle struct {
	tmpl    string
	taskID  string
	name    string        // file name of the program inside its temp dir
	timeout time.Duration // 0: none
	sem     chan struct{} // bounds concurrent commands across tasks
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (o *cmdOracle) Passes(ctx context.Context, program string) (bool, error) {
	if o.sem != nil {
		select {
		case o.sem <- struct{}{}:
			defer func() { <-o.sem }()
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	dir, err := os.MkdirTemp("", "pdb-oracle-")
	if err != nil {
		return false, fmt.Errorf("oracle: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, o.name)
	if err := os.WriteFile(path, []byte(program), 0o644); err != nil {
		return false, fmt.Errorf("oracle: %w", err)
	}
	script := strings.NewReplacer("{program}", shellQuote(path), "{dir}", shellQuote(dir), "{task_id}", shellQuote(o.taskID)).Replace(o.tmpl)
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var out strings.Builder
	cmd.Stdout = &limited{w: &out, n: 4096}
	cmd.Stderr = cmd.Stdout
	err = cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && o.timeout > 0 {
			return false, fmt.Errorf("oracle: command timed out after %v", o.timeout)
		}
		return false, fmt.Errorf("oracle: %w", ctx.Err())
	}
	if err == nil {
		return true, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false, fmt.Errorf("oracle: %w", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return false, fmt.Errorf("oracle: command killed by signal %v: %s", ws.Signal(), tail(out.String()))
	}
	switch c := ee.ExitCode(); {
	case c == 126 || c == 127:
		return false, fmt.Errorf("oracle: command could not run (exit %d): %s", c, tail(out.String()))
	case c > 128:
		return false, fmt.Errorf("oracle: command crashed (exit %d, signal %d): %s", c, c-128, tail(out.String()))
	}
	return false, nil
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w interface{ WriteString(string) (int, error) }
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.WriteString(string(p[:k]))
		l.n -= k
	}
	return len(p), nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}
