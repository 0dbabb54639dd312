package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCopiedBinaryRunsWhileOthersStart: a test binary copied into a slot runs at once even
// while other goroutines start processes. A child forked while the copy's descriptor was
// open for writing holds it until it execs, and running the copy meanwhile fails with
// ETXTBSY ("Text file busy"): spf13/cast's runs alone came back crashed that way at -jobs 2,
// and the cache kept the crash. copyHashing and writeExecutable hold off forks while they
// write.
func TestCopiedBinaryRunsWhileOthersStart(t *testing.T) {
	src, err := exec.LookPath("true")
	require.NoError(t, err)
	dir := t.TempDir()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				_ = exec.Command(src).Run()
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	for i := range 300 {
		bin := filepath.Join(dir, fmt.Sprintf("unit-%d.test", i))
		if i%2 == 0 {
			_, err = copyHashing(src, bin)
		} else {
			err = writeExecutable(bin, []byte("#!/bin/sh\nexit 0\n"))
		}
		require.NoError(t, err)
		err = exec.Command(bin).Run()
		require.False(t, errors.Is(err, syscall.ETXTBSY), "run %d: %v", i, err)
		require.NoError(t, err, "run %d", i)
	}
}
