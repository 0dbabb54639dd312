package ok

import "testing"

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) { t.Fatal("boom") }

func TestSkip(t *testing.T) { t.Skip("not today") }

func TestSub(t *testing.T) {
	t.Run("with space", func(t *testing.T) {})
	t.Run("with space", func(t *testing.T) { t.Error("second one fails") })
	t.Run("a.b", func(t *testing.T) {})
}
