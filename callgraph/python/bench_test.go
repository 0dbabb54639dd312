package python

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	tspython "github.com/smacker/go-tree-sitter/python"

	"github.com/faultline-dev/faultline/callgraph"
)

// networkxFiles reads every .py file of the installed networkx package (≈165k lines).
func networkxFiles(b *testing.B) []callgraph.SourceFile {
	return packageFiles(b, "networkx", "python3-networkx")
}

// packageFiles reads every .py file of an installed Debian package.
func packageFiles(b *testing.B, name, deb string) []callgraph.SourceFile {
	b.Helper()
	root := filepath.Join(distPackages, name)
	if _, err := os.Stat(root); err != nil {
		b.Skipf("%s not installed (apt-get install -y %s): %v", name, deb, err)
	}
	var files []callgraph.SourceFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(distPackages, p)
		files = append(files, callgraph.SourceFile{Path: filepath.ToSlash(rel), Src: src})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// BenchmarkAnalyzeNetworkx analyses all of networkx on one worker (compare with
// BenchmarkParseOnlyNetworkx, which parses the same files with tree-sitter alone).
// It reports the process's peak resident memory (VmHWM) as peak-MB (meaningful when the
// benchmark runs alone in its process) and the process CPU time per analysis as
// cpu-ms/op, which other load on a shared machine disturbs less than the wall time.
func BenchmarkAnalyzeNetworkx(b *testing.B) {
	benchAnalyze(b, networkxFiles(b))
}

// benchAnalyze analyses files on one worker per iteration and reports the CPU time per
// analysis, the definitions and edges, and the peak resident memory. With
// PYCG_PHASE_HEAP=1 it also reports the live heap after each phase of Analyze (a forced
// collection at each, which costs time: the CPU figure then includes them; rounds and
// implicit are taken inside the resolution, while its memos are live, and the larger of
// them is the live heap the peak follows), and with
// PYCG_PHASE_HEAP_PROFILE=DIR it writes the heap profile of each phase to DIR.
func benchAnalyze(b *testing.B, files []callgraph.SourceFile) {
	if os.Getenv("PYCG_PHASE_HEAP") != "" {
		live := map[string]float64{}
		phaseDone = func(phase string) {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			live[phase] = max(live[phase], float64(ms.HeapAlloc)/(1<<20))
			if dir := os.Getenv("PYCG_PHASE_HEAP_PROFILE"); dir != "" {
				writeHeapProfile(b, filepath.Join(dir, "heap-"+phase+".pprof"))
			}
		}
		defer func() {
			phaseDone = func(string) {}
			for _, p := range []string{"collected", "rounds", "implicit", "resolved", "reported"} {
				b.ReportMetric(live[p], "live-"+p+"-MB")
			}
		}()
	}
	fe := New(Options{Workers: 1})
	var defs, calls int
	cpu := cpuMeter(b)
	for b.Loop() {
		a, err := fe.Analyze(context.Background(), files)
		if err != nil {
			b.Fatal(err)
		}
		defs, calls = len(a.Definitions), len(a.Calls)
	}
	cpu.report()
	b.ReportMetric(float64(defs), "defs")
	b.ReportMetric(float64(calls), "edges")
	reportPeak(b)
}

// writeHeapProfile writes the heap profile (of the last collection) to path.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAnalyzeSympy analyses all of sympy (≈753k lines) on one worker: the profile
// target of issue 16's Python case (bench/pycg compares it with parsing, one process per
// mode, for the peak memory). Run it with -memprofile or -cpuprofile to see where the
// cost goes.
func BenchmarkAnalyzeSympy(b *testing.B) {
	benchAnalyze(b, packageFiles(b, "sympy", "python3-sympy"))
}

// cpuClock measures the process's user+system CPU time over a benchmark loop.
type cpuClock struct {
	b     *testing.B
	start time.Duration
}

func cpuMeter(b *testing.B) cpuClock { return cpuClock{b: b, start: processCPU()} }

func (c cpuClock) report() {
	if c.b.N > 0 {
		c.b.ReportMetric(float64((processCPU()-c.start).Microseconds())/1000/float64(c.b.N), "cpu-ms/op")
	}
}

// BenchmarkAnalyzeNetworkxNoValueFlow is BenchmarkAnalyzeNetworkx with level 7 off
// (Options.NoValueFlow): the cost of the scoped resolution alone.
func BenchmarkAnalyzeNetworkxNoValueFlow(b *testing.B) {
	files := networkxFiles(b)
	fe := New(Options{Workers: 1, NoValueFlow: true})
	var calls int
	for b.Loop() {
		a, err := fe.Analyze(context.Background(), files)
		if err != nil {
			b.Fatal(err)
		}
		calls = len(a.Calls)
	}
	b.ReportMetric(float64(calls), "edges")
	reportPeak(b)
}

// BenchmarkAnalyzeNetworkxParallel is BenchmarkAnalyzeNetworkx with one worker per CPU.
func BenchmarkAnalyzeNetworkxParallel(b *testing.B) {
	files := networkxFiles(b)
	fe := New(Options{})
	for b.Loop() {
		if _, err := fe.Analyze(context.Background(), files); err != nil {
			b.Fatal(err)
		}
	}
	reportPeak(b)
}

// BenchmarkParseOnlyNetworkx parses the networkx files with go-tree-sitter's own API and
// closes each tree: the baseline of BenchmarkAnalyzeNetworkx.
func BenchmarkParseOnlyNetworkx(b *testing.B) {
	files := networkxFiles(b)
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(tspython.GetLanguage())
	cpu := cpuMeter(b)
	for b.Loop() {
		for _, f := range files {
			t, err := p.ParseCtx(context.Background(), nil, f.Src)
			if err != nil {
				b.Fatal(err)
			}
			t.Close()
		}
	}
	cpu.report()
	reportPeak(b)
}

// reportPeak reports VmHWM from /proc/self/status (Linux) or, elsewhere, the Go heap's
// high-water mark as seen by runtime.MemStats.
func reportPeak(b *testing.B) {
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
				var kb float64
				for _, c := range f[1] {
					kb = kb*10 + float64(c-'0')
				}
				b.ReportMetric(kb/1024, "peak-MB")
				return
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "peak-MB")
}
