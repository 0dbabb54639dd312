package slow

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestSleep(t *testing.T) { time.Sleep(time.Hour) }
