package main

import (
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/compose"
)

// TestReportSaysWhySingleBugsFellShort: fewer single-bug examples than -m3 is explained by
// what stopped the search — the -m1 limit when the pool reached it with candidates left
// (pdb compose -m1 4 on Debian's python3-smmap said "candidates exhausted" after 5 of 152),
// running out only when every candidate was tried.
func TestReportSaysWhySingleBugsFellShort(t *testing.T) {
	pool := make([]compose.Bug, 4)
	for _, c := range []struct {
		name       string
		candidates int
		want, not  string
	}{
		{"stopped at -m1", 152, "-m1 is 4", "candidates exhausted"},
		{"every candidate tried", 5, "candidates exhausted", "-m1 is"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f composeFlags
			f.opts = compose.Options{M1: 4, M3: 5, KMax: 1}
			res := &compose.Result{Pool: pool, Stats: compose.Stats{Candidates: c.candidates, Accepted: 4, Rejected: map[string]int{compose.RejectPasses: 1}}}
			for range pool {
				res.Examples = append(res.Examples, compose.Example{BugCount: 1})
			}
			var b strings.Builder
			report(&b, f, res)
			got := b.String()
			if !strings.Contains(got, "k=1: 4 of 5 examples") || !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
				t.Errorf("want %q and not %q in:\n%s", c.want, c.not, got)
			}
		})
	}
}
