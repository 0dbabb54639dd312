package area_test

import "testing"

func mustEqual(t *testing.T, got, want float64) {
	t.Helper()
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}
