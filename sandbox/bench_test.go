package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// benchOverhead alternates a bare command and the same tests through Local and reports both
// per-run times and their difference (the sandbox's overhead: copy, isolation, parsing).
func benchOverhead(b *testing.B, req task.RunRequest, bare *exec.Cmd) {
	l := NewLocal(Options{Jobs: 1})
	defer l.Close()
	ctx := context.Background()
	run := func() time.Duration {
		start := time.Now()
		rep, err := l.Run(ctx, req)
		if err != nil || !rep.Ran() {
			b.Fatalf("run: %v %+v", err, rep)
		}
		return time.Since(start)
	}
	runBare := func() time.Duration {
		c := exec.Command(bare.Args[0], bare.Args[1:]...)
		c.Dir, c.Env = bare.Dir, bare.Env
		start := time.Now()
		out, err := c.CombinedOutput()
		if err != nil {
			b.Fatalf("bare: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	run() // warm caches
	runBare()
	var sb, bb time.Duration
	for b.Loop() {
		sb += run()
		bb += runBare()
	}
	n := float64(b.N)
	b.ReportMetric(float64(sb.Milliseconds())/n, "sandbox-ms/op")
	b.ReportMetric(float64(bb.Milliseconds())/n, "bare-ms/op")
	b.ReportMetric(float64((sb-bb).Milliseconds())/n, "overhead-ms/op")
	b.ReportMetric(float64(sb)/float64(bb), "ratio")
}

func BenchmarkLocalOverheadGo(b *testing.B) {
	needGo(b)
	root := fixture(b, "gofix")
	bare := exec.Command("go", "test", "-json", "-count=1", "-vet=off", "./lib")
	bare.Dir = root
	benchOverhead(b, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"lib"}}}, bare)
}

func BenchmarkLocalOverheadPytest(b *testing.B) {
	py := needPytest(b)
	root := fixture(b, "pyfix")
	bare := exec.Command(py, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_mathx.py")
	bare.Dir = root
	bare.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	benchOverhead(b, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"test_mathx.py"}}}, bare)
}

// BenchmarkCacheHit measures a cache hit on simplejson (a real tree of ~60 files): one
// directory walk with stat calls, an overlay hash and a report copy.
func BenchmarkCacheHit(b *testing.B) {
	root := b.TempDir()
	src := "/usr/lib/python3/dist-packages/simplejson"
	if _, err := os.Stat(src); err != nil {
		b.Skip("python3-simplejson not installed")
	}
	if err := copyTree(src, filepath.Join(root, "simplejson")); err != nil {
		b.Fatal(err)
	}
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunOK, Tests: make([]task.TestResult, 500)}, nil
	})
	c := NewCache(r, CacheOptions{})
	ov := task.Overlay{}
	ov.Set("simplejson/encoder.py", []byte("broken = True\n"))
	req := task.RunRequest{Root: root, Kind: task.Pytest, Overlay: ov}
	ctx := context.Background()
	if _, err := c.Run(ctx, req); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rep, err := c.Run(ctx, req)
		if err != nil || !rep.Cached {
			b.Fatal("miss")
		}
	}
}
