package testrun

import (
	"strings"
	"testing"

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
