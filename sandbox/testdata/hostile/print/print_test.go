package print

import (
	"bytes"
	"os"
	"testing"
)

// TestFlood prints 100 MB.
func TestFlood(t *testing.T) {
	line := append(bytes.Repeat([]byte("x"), 1<<20-1), '\n')
	for range 100 {
		os.Stdout.Write(line)
	}
}
