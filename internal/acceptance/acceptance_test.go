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

func TestSkipUnlessFull(t *testing.T) {
	for _, c := range []struct {
		env string
		run bool
	}{{"", false}, {"1", false}, {"full", true}} {
		t.Setenv(Env, c.env)
		ran := false
		t.Run("env="+c.env, func(t *testing.T) {
			SkipUnlessFull(t, "long")
			ran = true
		})
		if ran != c.run || Full() != c.run {
			t.Errorf("%s=%q: ran %v, Full %v; want %v", Env, c.env, ran, Full(), c.run)
		}
	}
}
