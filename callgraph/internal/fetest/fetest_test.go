package fetest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// counting is a front end whose analyses differ from the first one on: the check must
// notice.
type counting struct{ n atomic.Int64 }

func (c *counting) Name() string           { return "counting" }
func (c *counting) Match(path string) bool { return true }
func (c *counting) Analyze(ctx context.Context, files []callgraph.SourceFile) (*callgraph.Analysis, error) {
	k := c.n.Add(1)
	return &callgraph.Analysis{CallSites: int(min(k, 2))}, nil
}

// fixed always gives the same analysis.
type fixed struct{}

func (fixed) Name() string           { return "fixed" }
func (fixed) Match(path string) bool { return true }
func (fixed) Analyze(ctx context.Context, files []callgraph.SourceFile) (*callgraph.Analysis, error) {
	return &callgraph.Analysis{CallSites: 1}, nil
}

// recorder captures a failure instead of ending the test.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

func run(fe callgraph.Language) (msg string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != any(r) {
			panic(p)
		}
		msg = r.msg
	}()
	ConcurrentSame(r, fe, nil, 4)
	return ""
}

func TestConcurrentSame(t *testing.T) {
	if msg := run(fixed{}); msg != "" {
		t.Fatalf("a deterministic front end failed: %s", msg)
	}
	if msg := run(&counting{}); !strings.Contains(msg, "differs from the sequential one") {
		t.Fatalf("a front end whose results change passed (message %q)", msg)
	}
}
