package exit

import (
	"os"
	"testing"
)

func TestA(t *testing.T) {}

func TestExits(t *testing.T) { os.Exit(3) }

func TestB(t *testing.T) {}

func TestC(t *testing.T) { t.Fatal("c fails") }
