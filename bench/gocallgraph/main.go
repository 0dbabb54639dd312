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
//	go run ./bench/gocallgraph [-dir DIR] [-runs N] [-xtools VERSION] [-base SRC]
//
// DIR defaults to $(go env GOROOT)/src, the Go toolchain's own source. With -base, SRC is
// another checkout of this module (a base commit, say: git worktree add or git archive):
// its examples/callgraph runs too, first in each round, so that a change and its base
// are measured under the same load of a shared machine. Each round's ratios to x/tools
// are then printed with their median over the rounds, which is steadier than the ratio
// of the bests when the load moves.
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
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	dir := flag.String("dir", "", "source tree to analyse (default: $(go env GOROOT)/src)")
	runs := flag.Int("runs", 1, "runs per tool (the best is reported)")
	version := flag.String("xtools", "v0.52.0", "version of golang.org/x/tools to install the peer from")
	base := flag.String("base", "", "another checkout of this module whose examples/callgraph runs too, first in each round")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir, *runs, *version, *base, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gocallgraph:", err)
		os.Exit(1)
	}
}

// usage is what one run of a tool cost.
type usage struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

func run(ctx context.Context, dir string, runs int, version, base string, out io.Writer) error {
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
	type tool struct {
		name, dir string
		argv      []string
	}
	var tools []tool
	if base != "" {
		bin := filepath.Join(tmp, "base-callgraph")
		if err := buildExample(ctx, base, bin); err != nil {
			return fmt.Errorf("-base: %w", err)
		}
		tools = append(tools, tool{"base (tests included)", "", []string{bin, "-lang", "go", dir}})
	}
	if err := buildExample(ctx, root, ours); err != nil {
		return err
	}
	tools = append(tools,
		tool{"faultline (tests included)", "", []string{ours, "-lang", "go", dir}},
		tool{"x/tools vta (no tests)", dir, []string{peer, "-algo", "vta", "./..."}})
	peerAt := len(tools) - 1

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "tree: %s\nload average at start: %s\n", dir, strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	all := make([][]usage, len(tools)) // by tool, then round
	for r := range runs {
		for i, c := range tools {
			u, err := measure(ctx, c.dir, c.argv)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			fmt.Fprintf(out, "run %d  %-28s wall %7.2f s  cpu %7.2f s  peak RSS %6d MB\n", r+1, c.name,
				u.wall.Seconds(), u.cpu.Seconds(), u.maxRSS>>20)
			all[i] = append(all[i], u)
		}
	}
	best := make([]usage, len(tools))
	for i, us := range all {
		best[i] = us[0]
		for _, u := range us[1:] {
			best[i].wall = min(best[i].wall, u.wall)
			best[i].cpu = min(best[i].cpu, u.cpu)
			best[i].maxRSS = min(best[i].maxRSS, u.maxRSS)
		}
	}
	for i, c := range tools[:peerAt] {
		b, p := best[i], best[peerAt]
		fmt.Fprintf(out, "\n%s, best of %d run(s), / x/tools:\n", c.name, runs)
		fmt.Fprintf(out, "  wall      %5.2fx  (target ≤ 1.0x)\n", b.wall.Seconds()/p.wall.Seconds())
		fmt.Fprintf(out, "  peak RSS  %5.2fx  (target ≤ 1.5x)\n", float64(b.maxRSS)/float64(p.maxRSS))
		fmt.Fprintf(out, "  CPU       %5.2fx\n", b.cpu.Seconds()/p.cpu.Seconds())
		if runs > 1 {
			// The ratio within each round, where the tools ran one after the other.
			var wall, rss, cpu []float64
			for r := range runs {
				u, p := all[i][r], all[peerAt][r]
				wall = append(wall, u.wall.Seconds()/p.wall.Seconds())
				rss = append(rss, float64(u.maxRSS)/float64(p.maxRSS))
				cpu = append(cpu, u.cpu.Seconds()/p.cpu.Seconds())
			}
			fmt.Fprintf(out, "  median of the rounds' ratios: wall %.2fx, peak RSS %.2fx, CPU %.2fx\n", median(wall), median(rss), median(cpu))
		}
	}
	return nil
}

// buildExample builds examples/callgraph of the module at root into bin.
func buildExample(ctx context.Context, root, bin string) error {
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./examples/callgraph")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, b)
	}
	return nil
}

// median returns the median of xs (the mean of the middle two when even).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
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
