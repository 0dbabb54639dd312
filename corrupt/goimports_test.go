package corrupt

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func TestRestoreGoImports(t *testing.T) {
	orig := "package m\n\nimport (\n\t\"bufio\"\n\t\"strings\"\n\tyaml \"gopkg.in/yaml.v3\"\n\t\"example.com/x/v2\"\n)\n\nfunc F(s string) int {\n\tsc := bufio.NewScanner(strings.NewReader(s))\n\t_ = yaml.Marshal\n\t_ = x.Y\n\treturn 0\n}\n"
	stub := "package m\n\nimport (\n\t\"strings\"\n)\n\nfunc F(s string) int {\n\treturn *new(int)\n}\n\nfunc G() string { return strings.ToUpper(\"a\") }\n"
	solved := strings.Replace(stub, "\treturn *new(int)\n", "\tsc := bufio.NewScanner(strings.NewReader(s))\n\t_ = yaml.Marshal\n\t_ = x.Y\n\treturn 0\n", 1)
	got := string(restoreGoImports([]byte(orig), []byte(solved)))
	if _, err := parser.ParseFile(token.NewFileSet(), "m.go", got, 0); err != nil {
		t.Fatalf("result does not parse: %v\n%s", err, got)
	}
	for _, want := range []string{"\t\"bufio\"\n", "\tyaml \"gopkg.in/yaml.v3\"\n", "\t\"example.com/x/v2\"\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing import %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "\"strings\"") != 1 {
		t.Errorf("strings imported twice:\n%s", got)
	}
	// The stub itself uses none of the pruned packages: nothing is added.
	if out := string(restoreGoImports([]byte(orig), []byte(stub))); out != stub {
		t.Errorf("imports added to code that does not use them:\n%s", out)
	}
}
