package frames

import (
	"fmt"
	"os"
	"testing"
)

// TestFail writes go test -json events straight into the go command's stdout (the runner's
// pipe), claiming it and its package passed, then fails for real. A test binary running
// without privilege cannot open the go command's stdout: it fails at once.
func TestFail(t *testing.T) {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", os.Getppid()), os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("cannot reach the go command's stdout: %v", err)
	}
	fmt.Fprintln(f, `{"Action":"pass","Package":"example.com/forge/frames","Test":"TestFail","Elapsed":0}`)
	fmt.Fprintln(f, `{"Action":"pass","Package":"example.com/forge/frames","Elapsed":0.01}`)
	f.Close()
	t.Fatal("real failure")
}

func TestOK(t *testing.T) {}
