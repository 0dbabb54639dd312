package artifact

import (
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/pylex"
)

// FuzzCleanAnswer checks the docstring cleaning of model answers and literals: it never
// panics, never starts or ends with an empty line, expands every tab, and a fenced or
// quoted answer cleans to the same text as the bare one.
func FuzzCleanAnswer(f *testing.F) {
	for _, s := range []string{"", "Return x.", "```\nDoc.\n```", "\"\"\"Doc\n    more\"\"\"", "\tTabbed\n\t\tx", "\n\n  a\n b\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := cleanAnswer(s)
		if strings.Contains(out, "\t") {
			t.Fatalf("tab left in %q", out)
		}
		if out != "" && (strings.HasPrefix(out, "\n") || strings.HasSuffix(out, "\n")) {
			t.Fatalf("empty first or last line in %q", out)
		}
		bare := strings.TrimSpace(s)
		if bare == "" || strings.Contains(bare, "```") || strings.Contains(bare, `"""`) || strings.Contains(bare, `'''`) {
			return
		}
		if fenced := cleanAnswer("```text\n" + bare + "\n```"); fenced != cleanAnswer(bare) {
			t.Fatalf("fenced %q cleans to %q, bare to %q", bare, fenced, cleanAnswer(bare))
		}
		if quoted := cleanAnswer(`"""` + bare + `"""`); quoted != cleanAnswer(bare) {
			t.Fatalf("quoted %q cleans to %q, bare to %q", bare, quoted, cleanAnswer(bare))
		}
		// A literal's body comes back from pylex.ParseLiteral.
		if !strings.Contains(bare, `"`) && pylex.ParseLiteral(`r"""`+bare+`"""`).Body != bare {
			t.Fatalf("ParseLiteral lost %q", bare)
		}
	})
}
