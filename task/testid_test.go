package task

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitGoTestID(t *testing.T) {
	for _, c := range []struct{ id, pkg, test string }{
		{"example.com/m.TestA", "example.com/m", "TestA"},
		{"gopkg.in/yaml.v3.TestB/sub.x", "gopkg.in/yaml.v3", "TestB/sub.x"},
		{"example.com/m/v2.ExampleFoo", "example.com/m/v2", "ExampleFoo"},
		{"a.b.FuzzParse/seed#0", "a.b", "FuzzParse/seed#0"},
		{"m.Test", "m", "Test"},
	} {
		pkg, test, ok := SplitGoTestID(c.id)
		require.True(t, ok, c.id)
		require.Equal(t, c.pkg, pkg, c.id)
		require.Equal(t, c.test, test, c.id)
	}
	for _, bad := range []string{"", "TestA", ".TestA", "m.Testing", "m.helper", "m.Test-x"} {
		_, _, ok := SplitGoTestID(bad)
		require.False(t, ok, bad)
	}
}

func TestIsGoTestFunc(t *testing.T) {
	for _, s := range []string{"Test", "TestX", "Test_x", "Test1", "BenchmarkSort", "ExampleT_m", "FuzzY", "TestÄ"} {
		require.True(t, IsGoTestFunc(s), s)
	}
	for _, s := range []string{"", "test", "Testing", "Benchmarks", "Examplef", "TestX-y", "Test\xff", "MyTest"} {
		require.False(t, IsGoTestFunc(s), s)
	}
}
