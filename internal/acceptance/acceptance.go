// Package acceptance is the one switch for faultline's long tests: runs on real
// repositories, programs end to end, the heavier hostile attacks. They skip unless the
// environment variable Env is set; CI sets it (`FAULTLINE_ACCEPTANCE=1 go test -timeout 60m
// ./...`), so the default `go test ./...` stays a few minutes long.
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
