package net

import (
	"net"
	"os"
	"testing"
	"time"
)

// TestDial connects to $HOSTILE_ADDR; it fails if it cannot.
func TestDial(t *testing.T) {
	c, err := net.DialTimeout("tcp", os.Getenv("HOSTILE_ADDR"), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// TestLoopback listens and connects on 127.0.0.1 inside the sandbox, which must work.
func TestLoopback(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
