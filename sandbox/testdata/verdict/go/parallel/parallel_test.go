package parallel

import (
	"testing"
	"time"
)

func TestP1(t *testing.T) {
	t.Parallel()
	time.Sleep(300 * time.Millisecond)
}

// TestP2 starts a goroutine that panics while TestP1 and TestP3 are running too.
func TestP2(t *testing.T) {
	t.Parallel()
	time.Sleep(50 * time.Millisecond)
	go func() { panic("from TestP2's goroutine") }()
	time.Sleep(300 * time.Millisecond)
}

func TestP3(t *testing.T) {
	t.Parallel()
	time.Sleep(300 * time.Millisecond)
}

func TestP4Fails(t *testing.T) {
	t.Parallel()
	time.Sleep(300 * time.Millisecond)
	t.Error("fails on its own")
}

func TestSerial(t *testing.T) {}
