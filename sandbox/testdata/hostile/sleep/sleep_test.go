package sleep

import (
	"os/exec"
	"testing"
	"time"
)

// TestForever starts a child in its process group and sleeps until it is killed.
func TestForever(t *testing.T) {
	if err := exec.Command("sleep", "987654").Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(24 * time.Hour)
}
