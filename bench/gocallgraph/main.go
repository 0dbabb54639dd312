//go:build unix

// Command gocallgraph compares the Go call graph of faultline with the peer the issue
// names, golang.org/x/tools/cmd/callgraph -algo vta, on one source tree, in one process
// tree, and prints the ratios.
//
// It installs the peer from the module proxy (go install
// golang.org/x/tools/cmd/callgraph@VERSION into a temporary GOBIN), builds
// examples/callgraph from this module, then runs each -runs times, alternating:
//
//   - faultline: examples/callgraph -lang go DIR (default flags: test files included,
//     type-flow interface resolution, centrality and the JSON report, written to
//     /dev/null);
//   - x/tools: callgraph -algo vta ./... in DIR (its default: test files excluded; it
//     type-checks the packages and builds SSA), output to /dev/null.
//
// Each run's wall time, CPU time (user + system) and peak resident set size come from the
// child's wait4 rusage. The best of the runs is reported per tool, with the ratios
// faultline / x/tools and the targets of issue 16 (wall ≤ 1.0×, peak RSS ≤ 1.5×). The
// load average at the start is printed: the machine may be shared, and the CPU ratio is
// the steadier signal when it is.
//
// Usage, from the module root:
//
//	go run ./bench/gocallgraph [-dir DIR] [-runs N] [-xtools VERSION]
//
// DIR defaults to $(go env GOROOT)/src, the Go toolchain's own source.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	dir := flag.String("dir", "", "source tree to analyse (default: $(go env GOROOT)/src)")
	runs := flag.Int("runs", 1, "runs per tool (the best is reported)")
	version := flag.String("xtools", "v0.52.0", "version of golang.org/x/tools to install the peer from")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir, *runs, *version, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gocallgraph:", err)
		os.Exit(1)
	}
}

// usage is what one run of a tool cost.
type usage struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

func run(ctx context.Context, dir string, runs int, version string, out io.Writer) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", runs)
	}
	if !strings.HasPrefix(version, "v") {
		return fmt.Errorf("-xtools %q: want a module version such as v0.52.0", version)
	}
	gomod, err := goEnv(ctx, "GOMOD")
	if err != nil {
		return err
	}
	if filepath.Base(gomod) != "go.mod" {
		return errors.New("run from inside the faultline module (go env GOMOD is empty)")
	}
	root := filepath.Dir(gomod)
	if dir == "" {
		goroot, err := goEnv(ctx, "GOROOT")
		if err != nil {
			return err
		}
		dir = filepath.Join(goroot, "src")
	}
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("-dir: %w", err)
	} else if !st.IsDir() {
		return fmt.Errorf("-dir %s: not a directory", dir)
	}

	tmp, err := os.MkdirTemp("", "gocallgraph-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	peer := filepath.Join(tmp, "bin", "callgraph")
	ours := filepath.Join(tmp, "faultline-callgraph")
	fmt.Fprintf(out, "installing golang.org/x/tools/cmd/callgraph@%s and building examples/callgraph...\n", version)
	install := exec.CommandContext(ctx, "go", "install", "golang.org/x/tools/cmd/callgraph@"+version)
	install.Dir = tmp // outside any module
	install.Env = append(os.Environ(), "GOBIN="+filepath.Join(tmp, "bin"), "GOFLAGS=")
	if b, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("go install: %w\n%s", err, b)
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", ours, "./examples/callgraph")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, b)
	}

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "tree: %s\nload average at start: %s\n", dir, strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	var best [2]usage
	names := [2]string{"faultline (tests included)", "x/tools vta (no tests)"}
	for r := range runs {
		for i, c := range [2]struct {
			dir  string
			argv []string
		}{
			{"", []string{ours, "-lang", "go", dir}},
			{dir, []string{peer, "-algo", "vta", "./..."}},
		} {
			u, err := measure(ctx, c.dir, c.argv)
			if err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			fmt.Fprintf(out, "run %d  %-28s wall %7.2f s  cpu %7.2f s  peak RSS %6d MB\n", r+1, names[i],
				u.wall.Seconds(), u.cpu.Seconds(), u.maxRSS>>20)
			if r == 0 || u.wall < best[i].wall {
				best[i].wall = u.wall
			}
			if r == 0 || u.cpu < best[i].cpu {
				best[i].cpu = u.cpu
			}
			if r == 0 || u.maxRSS < best[i].maxRSS {
				best[i].maxRSS = u.maxRSS
			}
		}
	}
	ratio := func(a, b float64) float64 { return a / b }
	fmt.Fprintf(out, "\nbest of %d run(s), faultline / x/tools:\n", runs)
	fmt.Fprintf(out, "  wall      %5.2fx  (target ≤ 1.0x)\n", ratio(best[0].wall.Seconds(), best[1].wall.Seconds()))
	fmt.Fprintf(out, "  peak RSS  %5.2fx  (target ≤ 1.5x)\n", ratio(float64(best[0].maxRSS), float64(best[1].maxRSS)))
	fmt.Fprintf(out, "  CPU       %5.2fx\n", ratio(best[0].cpu.Seconds(), best[1].cpu.Seconds()))
	return nil
}

// measure runs argv in dir with its output discarded and returns its wall time and the
// rusage wait4 reported for it.
func measure(ctx context.Context, dir string, argv []string) (usage, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &limited{w: &stderr, n: 4096}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return usage{}, fmt.Errorf("%w\n%s", err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return usage{}, errors.New("no rusage from wait4")
	}
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	// Linux reports ru_maxrss in kilobytes.
	return usage{wall: wall, cpu: tv(ru.Utime) + tv(ru.Stime), maxRSS: ru.Maxrss << 10}, nil
}

// limited keeps the first n bytes written to it and discards the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

func goEnv(ctx context.Context, name string) (string, error) {
	b, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}
