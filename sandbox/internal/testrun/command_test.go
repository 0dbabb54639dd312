package testrun

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoPackages(t *testing.T) {
	pkgs, pat, err := goPackages(task.Selection{Files: []string{"a/b_test.go", "c", "d/...", "a/x.go"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"./a", "./c", "./d/..."}, pkgs)
	assert.Empty(t, pat)
	pkgs, pat, err = goPackages(task.Selection{IDs: []string{"m/p.TestA/x", "m/q.TestB"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"m/p", "m/q"}, pkgs)
	assert.Equal(t, "^(TestA|TestB)$", pat)
}

func TestFilterSelected(t *testing.T) {
	tests := []task.TestResult{{ID: "p.TestA"}, {ID: "p.TestA/x"}, {ID: "p.TestA/y"}, {ID: "p.TestAB"}, {ID: "p.TestB"}, {ID: "p.TestB/z"}}
	got := filterSelected(tests, task.Selection{IDs: []string{"p.TestA/x", "p.TestB"}})
	var ids []string
	for _, tr := range got {
		ids = append(ids, tr.ID)
	}
	assert.Equal(t, []string{"p.TestA", "p.TestA/x", "p.TestB", "p.TestB/z"}, ids)
	assert.Len(t, filterSelected(tests, task.Selection{}), len(tests))
	assert.True(t, strings.HasPrefix(got[0].ID, "p."))
}

// TestShortDuration: a limit of a second or more is written to the millisecond, a shorter
// one as it is.
func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		13288006588 * time.Nanosecond: "13.288s",
		time.Minute:                   "1m0s",
		1500 * time.Microsecond:       "1.5ms",
		time.Nanosecond:               "1ns",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%d) = %q, want %q", int64(d), got, want)
		}
	}
}
