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

// TestWriteInside writes relative to its directory and into TMPDIR, which must work.
func TestWriteInside(t *testing.T) {
	if err := os.WriteFile("inside.txt", []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(t.TempDir()+"/x", []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
}
