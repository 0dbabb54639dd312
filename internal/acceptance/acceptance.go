// Package acceptance is the one switch for faultline's long tests: runs on real
// repositories, programs end to end, the heavier hostile attacks. They skip unless the
// environment variable Env is set; CI sets it (`FAULTLINE_ACCEPTANCE=1 go test -timeout 60m
// ./...`), so the default `go test ./...` stays a few minutes long.
//
// Env=full adds the extended set (SkipUnlessFull): the same checks repeated on more
// repositories — the subjects earlier audits held out — which together take longer than
// CI's time allows. CI runs every kind of check on at least one real repository of each
// language; `FAULTLINE_ACCEPTANCE=full go test -timeout 120m ./...` runs them all.
package acceptance

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the acceptance runs on.
const Env = "FAULTLINE_ACCEPTANCE"

// On reports whether the acceptance runs are on.
func On() bool { return os.Getenv(Env) != "" }

// Skip skips t unless the acceptance runs are on; why says what makes t one (a real
// repository, the network, minutes of test runs).
func Skip(t testing.TB, why string) {
	t.Helper()
	if !On() {
		t.Skipf("%s: set %s=1 to run it (CI does)", why, Env)
	}
}

// Full reports whether the extended acceptance set is on (Env is "full").
func Full() bool { return os.Getenv(Env) == "full" }

// SkipUnlessFull skips t unless Env is "full": t repeats, on another repository, a check
// the acceptance set CI runs already makes; why says what t runs.
func SkipUnlessFull(t testing.TB, why string) {
	t.Helper()
	Skip(t, why)
	if !Full() {
		t.Skipf("%s: in the extended acceptance set, set %s=full to run it (CI runs %s=1: the same check runs there on another repository)", why, Env, Env)
	}
}
