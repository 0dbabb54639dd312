package featurebench

import (
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/bench/internal/twice"
)

// ProgramAccepted is how many instances ProgramDeterminism asks the program for.
const ProgramAccepted = 1

// ProgramDeterminism runs the featurebench program (Level 1 and 2) twice with seed Seed on
// the subject prepare returns, with twice.Twice — another TMPDIR, another copy at another
// path, another working directory, another -jobs — and requires byte-identical output
// directories (instance directories and instances.jsonl). It runs when
// FAULTLINE_ACCEPTANCE is set.
func ProgramDeterminism(t *testing.T, prepare func(*testing.T) Subject) {
	twice.Skip(t)
	s := prepare(t)
	bin := twice.Build(t, "github.com/faultline-dev/faultline/examples/featurebench")
	var extra []string
	for _, e := range s.Env {
		extra = append(extra, "-env", e)
	}
	if s.Dir != "" {
		extra = append(extra, "-python", Python)
	}
	out, stderr := twice.Twice(t, bin, s.Src, s.Dir, nil, func(r twice.Run) []string {
		return append([]string{"-repo", r.Repo, "-out", r.Out, "-n", strconv.Itoa(ProgramAccepted), "-seed", strconv.Itoa(Seed), "-jobs", r.Jobs,
			"-name", s.Name, "-level", "1,2"}, extra...)
	})
	if n := strings.Count(string(out["instances.jsonl"]), "\n"); n == 0 {
		t.Errorf("no instance written:\n%s", stderr)
	}
}
