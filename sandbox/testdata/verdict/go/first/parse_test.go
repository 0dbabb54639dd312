package first

import "testing"

func TestParsesFirst(t *testing.T) {
	if MustParse("12") != 12 {
		t.Fatal("12")
	}
}

func TestFailsPlainly(t *testing.T) {
	if MustParse("3")+1 != 5 {
		t.Error("3+1 is not 5")
	}
}

func TestNoParse(t *testing.T) {}

func TestTable(t *testing.T) {
	for _, c := range []struct{ in string }{{"1"}, {"x"}, {"2"}} {
		t.Run(c.in, func(t *testing.T) {
			if c.in != "x" {
				MustParse(c.in)
			}
		})
	}
}

func TestZLast(t *testing.T) {
	_ = MustParse("7")
}
