package fork

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestDaemon leaves a child in a new session that outlives the test.
func TestDaemon(t *testing.T) {
	cmd := exec.Command("sleep", "987655")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
}
