package gocheck

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Module is what a go.mod says about its module.
type Module struct {
	// Path is the module path ("" when there is no go.mod or no module line).
	Path string
	// GoVersion is the language version of the go line as go/types spells it ("go1.21"),
	// "" when absent or not a release version.
	GoVersion string
}

var goLineRE = regexp.MustCompile(`^1\.\d+(\.\d+)?$`)

// ReadGoMod reads the module and go lines of the go.mod file at gomod. A missing or
// unreadable file gives the zero Module (a directory that is not a module root).
func ReadGoMod(gomod string) Module {
	var m Module
	f, err := os.Open(gomod)
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if rest, ok := strings.CutPrefix(line, "module"); ok && m.Path == "" && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			m.Path = strings.TrimSpace(rest)
			if uq, err := strconv.Unquote(m.Path); err == nil {
				m.Path = uq
			}
		}
		if rest, ok := strings.CutPrefix(line, "go "); ok && m.GoVersion == "" {
			if v := strings.TrimSpace(rest); goLineRE.MatchString(v) {
				m.GoVersion = "go" + v
			}
		}
	}
	return m
}
