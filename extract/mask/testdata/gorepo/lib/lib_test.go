package lib

import "testing"

func TestExported(t *testing.T) {
	if Exported() != "x" {
		t.Fatal("bad")
	}
}
