package artifact_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/extract/mask"
)

// Build an instance from a masked repository and print its id, counts and gold patch.
func ExampleBuild() {
	root, _ := os.MkdirTemp("", "artifact-example")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "tests"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "geo.py"), []byte("def area(w, h):\n    \"\"\"Area of a w×h rectangle.\"\"\"\n    return w * h\n"), 0o644)
	_ = os.WriteFile(filepath.Join(root, "tests", "test_geo.py"), []byte("from geo import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"), 0o644)

	obj := mask.Target{File: "geo.py", Name: "area"}
	masked, err := mask.Mask(context.Background(), root, []mask.Target{obj}, mask.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := artifact.Build(context.Background(), artifact.Spec{
		Root: root, Repo: "acme/geo", BaseCommit: "89abcdef01234567", Level: 1,
		TestFile: "tests/test_geo.py", Masked: masked.Overlay, Objects: []mask.Target{obj},
		Functions: len(masked.Removed), FailToPass: []string{"tests/test_geo.py::test_area"},
	}, artifact.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Instance.InstanceID)
	fmt.Println("lines", *a.Instance.Lines, "files", *a.Instance.Files, "functions", *a.Instance.Functions)
	fmt.Print(string(a.Patch))
	// Output:
	// acme__geo.89abcdef.test_geo.976414ad.lv1
	// lines 3 files 1 functions 1
	// diff --git a/geo.py b/geo.py
	// index e69de29..613b2cf 100644
	// --- a/geo.py
	// +++ b/geo.py
	// @@ -0,0 +1,3 @@
	// +def area(w, h):
	// +    """Area of a w×h rectangle."""
	// +    return w * h
}

// A Level 2 environment: the starting tree, the tests and the solution of a test file
// inside its package, with the package renamed to agent_code.
func ExampleLevel2() {
	env, err := artifact.Level2("testdata/l2repo", "geo/tests/test_shapes.py", "agent_code",
		[]string{"geo/tests/test_shapes.py::test_area"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("start:", env.Start.Paths())
	fmt.Println("tests:", env.Tests.Paths())
	fmt.Println("solution:", env.Solution.Paths())
	fmt.Println("FAIL_TO_PASS:", env.FailToPass)
	for _, l := range strings.Split(string(env.Tests[env.TestFile].Data), "\n") {
		if strings.Contains(l, "agent_code") {
			fmt.Println(l)
		}
	}
	// Output:
	// start: [pytest.ini]
	// tests: [agent_code/tests/__init__.py agent_code/tests/helper.py agent_code/tests/square.json agent_code/tests/test_shapes.py conftest.py]
	// solution: [agent_code/__init__.py agent_code/compat.py agent_code/data.txt agent_code/shapes.py]
	// FAIL_TO_PASS: [agent_code/tests/test_shapes.py::test_area]
	// import agent_code
	// from agent_code.shapes import Square
	// from agent_code.tests.helper import approx
	//     assert agent_code.area(side) == 9
	//     with mock.patch("agent_code.shapes.area", return_value=7):
}
