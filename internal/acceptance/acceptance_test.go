package acceptance

import "testing"

func TestSkip(t *testing.T) {
	t.Setenv(Env, "")
	ran := false
	t.Run("off", func(t *testing.T) {
		Skip(t, "long")
		ran = true
	})
	if ran {
		t.Error("Skip did not skip with the switch off")
	}
	t.Setenv(Env, "1")
	t.Run("on", func(t *testing.T) {
		Skip(t, "long")
		ran = true
	})
	if !ran || !On() {
		t.Error("Skip skipped with the switch on")
	}
}
