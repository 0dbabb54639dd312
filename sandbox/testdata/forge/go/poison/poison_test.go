package poison

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPoison tries to write where a later run or the build would read: the shared build
// cache and the test binaries. In the Docker runner the cache is not there and every write
// fails.
func TestPoison(t *testing.T) {
	var wrote []string
	try := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			if err := os.WriteFile(p, []byte("trojan"), 0o755); err == nil {
				wrote = append(wrote, p)
			}
		}
	}
	// The shared build cache is not mounted here at all.
	if mounts, err := os.ReadFile("/proc/mounts"); err == nil && strings.Contains(string(mounts), " /gocache ") {
		t.Error("the shared build cache is mounted in the test container")
	}
	try("/bins/trojan")
	bins, _ := filepath.Glob("/bins/*/*")
	for _, b := range bins {
		try(b)
	}
	if len(wrote) > 0 {
		t.Fatalf("wrote %v", wrote)
	}
}
