package artifact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPyRename(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"import", "import pkg\nimport pkg.sub as s\n", "import new\nimport new.sub as s\n"},
		{"from", "from pkg.sub import x\nfrom pkg import (a,\n    b)\n", "from new.sub import x\nfrom new import (a,\n    b)\n"},
		{"relative kept", "from .pkg import x\nfrom . import pkg\n", "from .pkg import x\nfrom . import new\n"},
		{"reference", "y = pkg.f(pkg)\n", "y = new.f(new)\n"},
		{"attribute kept", "y = obj.pkg\n", "y = obj.pkg\n"},
		{"keyword argument kept", "f(pkg=1, x=pkg)\n", "f(pkg=1, x=new)\n"},
		{"comparison in a call", "f(pkg == 1)\n", "f(new == 1)\n"},
		{"parameter renamed", "def f(pkg=None):\n    return pkg\n", "def f(new=None):\n    return new\n"},
		{"other names kept", "pkgx = xpkg + pkg_\n", "pkgx = xpkg + pkg_\n"},
		{"comment kept", "# import pkg\nx = 1  # pkg\n", "# import pkg\nx = 1  # pkg\n"},
		{"dotted strings", `patch("pkg.mod.f"); patch('pkg')`, `patch("new.mod.f"); patch('new')`},
		{"other strings kept", `s = "pkg is great"; t = "pkg."; u = "pkgx.y"`, `s = "pkg is great"; t = "pkg."; u = "pkgx.y"`},
		{"bytes and f-strings kept", `b"pkg.x"; f"pkg.x"; rb'pkg'`, `b"pkg.x"; f"pkg.x"; rb'pkg'`},
		{"raw string renamed", `r"pkg.x"`, `r"new.x"`},
		{"triple strings", "'''pkg\nimport pkg'''\nimport pkg\n", "'''pkg\nimport pkg'''\nimport new\n"},
		{"escaped quote", `s = "a\"pkg"; import pkg`, `s = "a\"pkg"; import new`},
		{"continuation", "import os, \\\n    pkg\n", "import os, \\\n    new\n"},
		{"numbers", "x = 1e5 + 0x1f; pkg.y\n", "x = 1e5 + 0x1f; new.y\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, string(pyRename([]byte(c.in), "pkg", "new")))
		})
	}
	src := []byte("import pkg\n")
	require.Equal(t, src, pyRename(src, "pkg", "pkg"))
}

func TestPyImports(t *testing.T) {
	src := `import a, b.c as d
from e.f import (g,
    h as i)
from .. import j
from .k import *
def f():
    import l; from m import n
x = "import z"
raise E from err
`
	got := pyImports([]byte(src))
	var lines []string
	for _, im := range got {
		lines = append(lines, strings.Repeat(".", im.Level)+im.Module+":"+strings.Join(im.Names, ","))
	}
	require.Equal(t, []string{"a:", "b.c:", "e.f:g,h", "..:j", ".k:", "l:", "m:n"}, lines)

	require.Equal(t, []string{"pkg.tests", "pkg.tests.x"}, absModules("pkg/tests/test_a.py", pyImport{Level: 1, Names: []string{"x"}}))
	require.Equal(t, []string{"pkg.util"}, absModules("pkg/tests/test_a.py", pyImport{Level: 2, Module: "util"}))
	require.Nil(t, absModules("test_a.py", pyImport{Level: 2, Module: "util"}), "beyond the top")
}

// Renaming there and back gives the source again (when the new name does not occur in
// it), and neither direction panics on arbitrary input.
func FuzzPyRename(f *testing.F) {
	for _, s := range []string{
		"import pkg\nfrom pkg.x import (a,\n b)\n",
		"f(pkg=1, x=pkg.y)  # pkg\n",
		"s = '''pkg\n''' + \"pkg.mod\" + b'pkg' + f\"{pkg}\"\n",
		"def g(pkg=None):\n    return obj.pkg\\\n  + pkg\n",
		"x = 'unterminated\npkg\n",
		"\"\"\"never closed pkg",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "pkg_zz") {
			return
		}
		there := pyRename([]byte(src), "pkg", "pkg_zz")
		back := pyRename(there, "pkg_zz", "pkg")
		if string(back) != src {
			t.Fatalf("round trip changed the source:\n%q\n%q\n%q", src, there, back)
		}
		_ = pyImports([]byte(src))
	})
}
