package testimpact

import (
	"context"
	"reflect"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/task"
)

// Counter is a task.Runner that passes runs to another and counts them: the runs, the test
// executions (test results with a verdict of their own, task.Outcome.Decided) and the wall
// time of the runs, split by whether the run selected tests by id (an impact subset) or
// ran the suite (all of it, or the files the request selects). It is
// how the impact benchmark and tests measure what validation cost.
type Counter struct {
	R task.Runner

	mu sync.Mutex
	c  Counts
}

// Counts is what a Counter saw.
type Counts struct {
	Runs, SubsetRuns int
	Tests            int // test executions, all runs
	SubsetTests      int // test executions of runs that selected tests by id
	Wall             time.Duration
}

// Run runs req through the wrapped runner and counts it.
func (c *Counter) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	start := time.Now()
	rep, err := c.R.Run(ctx, req)
	wall := time.Since(start)
	if err != nil {
		return rep, err
	}
	n := 0
	for _, t := range rep.Tests {
		if t.Outcome.Decided() {
			n++
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.Runs++
	c.c.Tests += n
	c.c.Wall += wall
	if len(req.Select.IDs) > 0 {
		c.c.SubsetRuns++
		c.c.SubsetTests += n
	}
	return rep, nil
}

// Counts returns the counts so far.
func (c *Counter) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c
}

// Same reports whether two runs of corrupt.Generate kept the same tasks: the same
// functions and rules, patches, FAIL_TO_PASS and PASS_TO_PASS, in the same order. It is
// what impact validation must not change. Failure messages are not compared: a
// repository's own test may draw random inputs (testing/quick seeds itself from the
// clock; go-humanize's TestStripTrailingDigits does), so two whole-suite runs of one
// corruption can fail the same tests with different messages.
func Same(a, b []corrupt.Result) bool {
	return reflect.DeepEqual(fingerprint(a), fingerprint(b))
}

// taskPrint is the part of a task Same compares.
type taskPrint struct {
	Functions              []string
	Patch                  string
	FailToPass, PassToPass []string
}

func fingerprint(res []corrupt.Result) []taskPrint {
	out := make([]taskPrint, 0, len(res))
	for _, r := range res {
		p := taskPrint{Patch: r.Patch}
		if v := r.Validation; v != nil {
			p.FailToPass, p.PassToPass = v.FailToPass, v.PassToPass
		}
		for _, f := range r.Functions {
			p.Functions = append(p.Functions, f.ID+" "+f.Rule)
		}
		out = append(out, p)
	}
	return out
}
