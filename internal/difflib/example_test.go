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
		fmt.Println(op)
	}
	fmt.Printf("ratio %.3f\n", m.Ratio())
	// Output:
	// delete a[0:1] b[0:0]
	// equal a[1:3] b[0:2]
	// replace a[3:4] b[2:3]
	// equal a[4:6] b[3:5]
	// insert a[6:6] b[5:6]
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
	// [equal a[3:5] b[3:5] replace a[5:6] b[5:6] equal a[6:8] b[6:8]]
}

// With Hints, paired lines get Python's '?' guide lines (tabs are kept so they line up).
func ExampleDiffer_Compare() {
	d := difflib.Differ{CharJunk: difflib.IsCharacterJunk, Hints: true}
	for _, l := range d.Compare([]string{"\tabcDefghiJkl"}, []string{"\tabcdefGhijkl"}) {
		fmt.Printf("%c %q\n", l.Op, l.Text)
	}
	// Output:
	// - "\tabcDefghiJkl"
	// ? "\t   ^  ^  ^"
	// + "\tabcdefGhijkl"
	// ? "\t   ^  ^  ^"
}
