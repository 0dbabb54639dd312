package corrupt

import (
	"strings"
	"testing"
)

// TestStubPythonMethodsAndNested removes methods (plain, decorated, async, one-line) and
// nested functions found by the Python front end: each stub changes only its own body,
// keeps the decorators, signature and docstring, and the file still compiles (CPython).
func TestStubPythonMethodsAndNested(t *testing.T) {
	src := `class Box:
    """A box."""

    def __init__(self, items):
        self.items = list(items)

    @property
    def size(self):
        """Number of items."""
        return len(self.items)

    @staticmethod
    def make(*xs): return Box(xs)

    async def fetch(self, key,
                    default=None):
        # look it up
        for k, v in self.items:
            if k == key:
                return v
        return default

    class Inner:
        def deep(self):
            return 42


def outer(n):
    def helper(x):
        """Square."""
        return x * x

    total = 0
    for i in range(n):
        total += helper(i)
    return total
`
	want := map[string]string{
		"Box.__init__":   "    def __init__(self, items):\n        pass\n",
		"Box.size":       "    @property\n    def size(self):\n        \"\"\"Number of items.\"\"\"\n        pass\n",
		"Box.make":       "    @staticmethod\n    def make(*xs): pass\n",
		"Box.fetch":      "    async def fetch(self, key,\n                    default=None):\n        # look it up\n        pass\n",
		"Box.Inner.deep": "        def deep(self):\n            pass\n",
		"outer.helper":   "    def helper(x):\n        \"\"\"Square.\"\"\"\n        pass\n",
		"outer":          "def outer(n):\n    pass\n",
	}
	var outs []string
	seen := map[string]bool{}
	for _, fn := range pyFuncs(t, "box.py", []byte(src)) {
		exp, ok := want[fn.Name]
		if !ok {
			continue
		}
		seen[fn.Name] = true
		m, err := Stub("python", []byte(src), fn)
		if err != nil {
			t.Errorf("%s: %v", fn.Name, err)
			continue
		}
		out := string(m.Apply([]byte(src)))
		outs = append(outs, out)
		if !strings.Contains(out, exp) {
			t.Errorf("%s: stub lacks\n%s\ngot:\n%s", fn.Name, exp, out)
		}
		// Everything outside the definition is untouched.
		if !strings.HasPrefix(out, src[:fn.Def.Start]) || !strings.HasSuffix(out, src[fn.Def.End:]) {
			t.Errorf("%s: the stub changed text outside the function", fn.Name)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("the front end did not report %s", name)
		}
	}
	for i, ok := range cpythonCompiles(t, outs) {
		if !ok {
			t.Errorf("stub %d does not compile:\n%s", i, outs[i])
		}
	}
}
