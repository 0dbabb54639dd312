package flood

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

// TestFlood writes HOSTILE_FLOOD_MB MiB to stdout, in 1 MiB lines, then fails.
func TestFlood(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("HOSTILE_FLOOD_MB"))
	if mb == 0 {
		t.Skip("HOSTILE_FLOOD_MB not set")
	}
	line := append(bytes.Repeat([]byte("x"), 1<<20-1), '\n')
	for range mb {
		os.Stdout.Write(line)
	}
	t.Fatal("flooded")
}
