// Package fetest holds checks that the tests of every call-graph front end share.
package fetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// ConcurrentSame analyses files once, then n times concurrently on the same front end, and
// fails t unless every concurrent result equals the sequential one (run with -race to
// also catch data races).
func ConcurrentSame(t testing.TB, fe callgraph.Language, files []callgraph.SourceFile, n int) {
	t.Helper()
	ctx := context.Background()
	want, err := fe.Analyze(ctx, files)
	if err != nil {
		t.Fatalf("%s: sequential analysis: %v", fe.Name(), err)
	}
	results := make([]*callgraph.Analysis, n)
	errs := make([]error, n)
	done := make(chan struct{})
	for i := range results {
		go func() {
			results[i], errs[i] = fe.Analyze(ctx, files)
			done <- struct{}{}
		}()
	}
	for range results {
		<-done
	}
	for i, got := range results {
		if errs[i] != nil {
			t.Fatalf("%s: concurrent analysis %d: %v", fe.Name(), i, errs[i])
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s: concurrent analysis %d differs from the sequential one", fe.Name(), i)
		}
	}
}
