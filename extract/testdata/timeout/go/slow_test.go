package slow

import (
	"testing"
	"time"
)

func TestFast(t *testing.T) {
	if Add(1, 1) != 2 {
		t.Fatal("1+1")
	}
}

func TestSleep(t *testing.T) {
	time.Sleep(30 * time.Second)
	if Add(1, 2) != 3 {
		t.Fatal("1+2")
	}
}
