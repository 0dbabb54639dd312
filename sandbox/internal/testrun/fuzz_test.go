package testrun

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

func FuzzGoParser(f *testing.F) {
	f.Add([]byte(`{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"pass","Package":"p","Test":"TestA"}`))
	f.Add([]byte(`{"ImportPath":"p [p.test]","Action":"build-output","Output":"x.go:1: bad\n"}` + "\n" + `{"ImportPath":"p [p.test]","Action":"build-fail"}`))
	f.Add([]byte("not json\n{\"Action\":\n{}\n"))
	f.Add([]byte(`{"Action":"fail","Package":"p","FailedBuild":"p [p.test]"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseGoJSON(bytes.NewReader(data), 64)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for i, tr := range r.Tests {
			if seen[tr.ID] || (i > 0 && r.Tests[i-1].ID >= tr.ID) {
				t.Fatalf("ids not unique and sorted: %v", r.Tests)
			}
			seen[tr.ID] = true
			if tr.Outcome == "" || len(tr.Message) > 64 {
				t.Fatalf("bad result %+v", tr)
			}
		}
		// Feeding the same bytes in two pieces gives the same result.
		p := NewGoParser(64)
		p.Write(data[:len(data)/2])
		p.Write(data[len(data)/2:])
		r2 := p.Result()
		if len(r2.Tests) != len(r.Tests) {
			t.Fatalf("split write: %d tests, whole: %d", len(r2.Tests), len(r.Tests))
		}
	})
}

func FuzzJUnit(f *testing.F) {
	if b, err := os.ReadFile("testdata/pytest-ref/junit.xml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`<testsuites><testsuite><testcase classname="a.b" name="t" file="a/b.py"><skipped type="pytest.xfail"/></testcase></testsuite></testsuites>`))
	f.Add([]byte(`<testsuite><testcase classname="" name="x"><error message="collection failure">e</error></testcase></testsuite>`))
	f.Add([]byte("<a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseJUnit(bytes.NewReader(data), 64)
		if err != nil {
			return
		}
		for i, tr := range r.Tests {
			if i > 0 && r.Tests[i-1].ID >= tr.ID {
				t.Fatalf("ids not unique and sorted")
			}
			switch tr.Outcome {
			case task.Pass, task.Fail, task.Error, task.Skip, task.XFail:
			default:
				t.Fatalf("unexpected outcome %q", tr.Outcome)
			}
			if len(tr.Message) > 64 {
				t.Fatalf("message not truncated: %d", len(tr.Message))
			}
		}
	})
}

func FuzzSummary(f *testing.F) {
	if b, err := os.ReadFile("testdata/pytest-ref/ra.txt"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("PASSED a.py::t\nFAILED a.py::u[x y] - m\nXPASS a.py::v r\nERROR a.py - e\n"))
	f.Add([]byte("FAILED\nPASSED \nERROR [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := ParseSummary(bytes.NewReader(data))
		for _, l := range lines {
			file, _, _ := strings.Cut(l.ID, "::")
			if !strings.HasSuffix(file, ".py") || strings.Contains(l.ID, "\n") {
				t.Fatalf("bad id %q", l.ID)
			}
		}
		tests, _ := summaryResults(lines, 64)
		for i := 1; i < len(tests); i++ {
			if tests[i-1].ID >= tests[i].ID {
				t.Fatalf("not sorted")
			}
		}
	})
}
