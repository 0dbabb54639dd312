package timeout

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestHangs(t *testing.T) { time.Sleep(time.Hour) }

func TestAfterHang(t *testing.T) {}

func TestAfterHangFails(t *testing.T) { t.Error("fails on its own") }
