package panics

import "testing"

func TestBefore(t *testing.T) {}

func TestPanic(t *testing.T) {
	go func() { panic("in another goroutine") }()
	select {}
}

func TestAfter(t *testing.T) {}
