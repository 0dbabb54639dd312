package area_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"example.com/l2/area"
)

func TestSquare(t *testing.T) {
	mustEqual(t, area.Square(3), 9)
	mustEqual(t, float64(area.Half(4)), 2)
}

func TestTable(t *testing.T) {
	b, err := os.ReadFile("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Fields(string(b)) {
		side, want, _ := strings.Cut(l, ":")
		n, _ := strconv.Atoi(side)
		w, _ := strconv.ParseFloat(want, 64)
		mustEqual(t, area.Square(n), w)
	}
}
