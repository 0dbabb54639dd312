package testrun_test

import (
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
)

func ExampleParseGoJSON() {
	stream := `{"Action":"run","Package":"example.com/m","Test":"TestA"}
{"Action":"pass","Package":"example.com/m","Test":"TestA","Elapsed":0.01}
{"Action":"run","Package":"example.com/m","Test":"TestB/with_space"}
{"Action":"output","Package":"example.com/m","Test":"TestB/with_space","Output":"    m_test.go:9: boom\n"}
{"Action":"fail","Package":"example.com/m","Test":"TestB/with_space"}
{"Action":"run","Package":"example.com/m","Test":"TestC"}
{"Action":"output","Package":"example.com/m","Test":"TestC","Output":"panic: test timed out after 1s\n"}
{"Action":"fail","Package":"example.com/m"}
`
	res, _ := testrun.ParseGoJSON(strings.NewReader(stream), 0)
	for _, t := range res.Tests {
		fmt.Println(t.ID, t.Outcome)
	}
	// Output:
	// example.com/m.TestA pass
	// example.com/m.TestB/with_space fail
	// example.com/m.TestC timeout
}

func ExampleParseSummary() {
	out := `=========================== short test summary info ============================
PASSED tests/test_a.py::test_ok
FAILED tests/test_a.py::TestX::test_bad[1 2] - AssertionError: nope
XPASS tests/test_a.py::test_fixed reason
`
	for _, l := range testrun.ParseSummary(strings.NewReader(out)) {
		fmt.Printf("%s %s %q\n", l.Outcome, l.ID, l.Message)
	}
	// Output:
	// pass tests/test_a.py::test_ok ""
	// fail tests/test_a.py::TestX::test_bad[1 2] "AssertionError: nope"
	// xpass tests/test_a.py::test_fixed "reason"
}

func ExampleGoRunPattern() {
	fmt.Println(testrun.GoRunPattern([]string{"TestSub/with_space#01", "TestSub/a.b"}))
	// Output: ^(TestSub)$/^(a\.b|with_space#01)$
}
