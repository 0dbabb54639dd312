package escape

import (
	"os"
	"testing"
)

// TestWriteOutside overwrites a host file named by $HOSTILE_TARGET; it fails if it cannot.
func TestWriteOutside(t *testing.T) {
	if err := os.WriteFile(os.Getenv("HOSTILE_TARGET"), []byte("pwned"), 0o644); err != nil {
		t.Fatal(err)
	}
}
