package difflib_test

import (
	"fmt"

	"github.com/faultline-dev/faultline/internal/difflib"
)

// "one" and "ore" are only 2/3 similar, below ndiff's 0.75 cutoff, so the first replace
// block is dumped plainly — shorter side first, as Python does; "three"/"tree" are paired.
func ExampleNdiff() {
	a := []string{"one", "two", "three"}
	b := []string{"ore", "tree", "emu"}
	for _, l := range difflib.Ndiff(a, b) {
		fmt.Printf("%c %s\n", l.Op, l.Text)
	}
	// Output:
	// + ore
	// - one
	// - two
	// - three
	// + tree
	// + emu
}

func ExampleMatcher_OpCodes() {
	m := difflib.New([]rune("qabxcd"), []rune("abycdf"), difflib.SequenceOptions[rune]{AutoJunk: true})
	for _, op := range m.OpCodes() {
		fmt.Printf("%c a[%d:%d] b[%d:%d]\n", op.Tag, op.I1, op.I2, op.J1, op.J2)
	}
	fmt.Printf("ratio %.3f\n", m.Ratio())
	// Output:
	// d a[0:1] b[0:0]
	// e a[1:3] b[0:2]
	// r a[3:4] b[2:3]
	// e a[4:6] b[3:5]
	// i a[6:6] b[5:6]
	// ratio 0.667
}

func ExampleMatcher_GroupedOpCodes() {
	var a, b []string
	for i := 1; i <= 12; i++ {
		a = append(a, fmt.Sprint(i))
	}
	b = append(b, a...)
	b[5] = "six"
	for _, g := range difflib.NewMatcher(a, b).GroupedOpCodes(2) {
		fmt.Println(g)
	}
	// Output:
	// [{101 3 5 3 5} {114 5 6 5 6} {101 6 8 6 8}]
}
