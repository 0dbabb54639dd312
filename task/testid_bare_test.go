package task

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestBareGoTestIDs(t *testing.T) {
	s := &SWEInstance{InstanceID: "x",
		FailToPass: TestList{"example.com/a.TestX", "example.com/b.TestX", "example.com/a.TestY/sub_case"},
		PassToPass: TestList{"example.com/c.TestX", "example.com/a.TestZ", "gopkg.in/check.v1.TestW"}}
	if err := s.BareGoTestIDs(); err != nil {
		t.Fatal(err)
	}
	if want := (TestList{"TestX", "TestY/sub_case"}); !slices.Equal(s.FailToPass, want) {
		t.Errorf("FAIL_TO_PASS %v, want %v", s.FailToPass, want)
	}
	if want := (TestList{"TestZ", "TestW"}); !slices.Equal(s.PassToPass, want) {
		t.Errorf("PASS_TO_PASS %v, want %v (a name failing elsewhere stays in FAIL_TO_PASS only)", s.PassToPass, want)
	}
	want := `{"TestW":["gopkg.in/check.v1"],"TestX":["example.com/a","example.com/b"],"TestY/sub_case":["example.com/a"],"TestZ":["example.com/a"]}`
	if got := string(s.Extra[TestPackagesKey]); got != want {
		t.Errorf("%s %s, want %s", TestPackagesKey, got, want)
	}

	// FullGoTestIDs restores every id whose name one package declares; a shared name comes
	// back for each package (the P2P test of example.com/c was dropped by the bare form).
	if err := s.FullGoTestIDs(); err != nil {
		t.Fatal(err)
	}
	if want := (TestList{"example.com/a.TestX", "example.com/b.TestX", "example.com/a.TestY/sub_case"}); !slices.Equal(s.FailToPass, want) {
		t.Errorf("restored FAIL_TO_PASS %v, want %v", s.FailToPass, want)
	}
	if want := (TestList{"example.com/a.TestZ", "gopkg.in/check.v1.TestW"}); !slices.Equal(s.PassToPass, want) {
		t.Errorf("restored PASS_TO_PASS %v, want %v", s.PassToPass, want)
	}
	if _, ok := s.Extra[TestPackagesKey]; ok {
		t.Errorf("%s left after FullGoTestIDs", TestPackagesKey)
	}

	// Python ids and instances without the member are left alone; a bare Go name without
	// a package is an error naming it.
	py := &SWEInstance{FailToPass: TestList{"tests/test_a.py::test_x"}}
	if err := py.BareGoTestIDs(); err != nil {
		t.Fatal(err)
	}
	if err := py.FullGoTestIDs(); err != nil || !slices.Equal(py.FailToPass, TestList{"tests/test_a.py::test_x"}) {
		t.Errorf("python ids: %v %v", py.FailToPass, err)
	}
	bad := &SWEInstance{InstanceID: "y", FailToPass: TestList{"TestQ"},
		Extra: map[string]json.RawMessage{TestPackagesKey: json.RawMessage(`{"TestR":["example.com/a"]}`)}}
	if err := bad.FullGoTestIDs(); err == nil || !strings.Contains(err.Error(), `"TestQ"`) {
		t.Errorf("a bare name without a package: %v, want an error naming it", err)
	}
}
