package repo

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// GoMod is what a go.mod file says that faultline needs: the module path and the language
// version.
type GoMod struct {
	// Path is the module path ("" when there is no module directive).
	Path string
	// GoVersion is the go directive as go/types spells it ("go1.21", "go1.22.3"), "" when
	// absent or not a release version.
	GoVersion string
}

var goVersionRE = regexp.MustCompile(`^1\.\d+(\.\d+)?$`)

// ParseGoMod reads the module and go directives of go.mod contents. Comments are ignored;
// the module path may be quoted (`module "x"`, also written `module"x"`).
func ParseGoMod(data []byte) GoMod {
	var m GoMod
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if rest, ok := cutVerb(line, "module"); ok && m.Path == "" {
			m.Path = rest
			if uq, err := strconv.Unquote(rest); err == nil {
				m.Path = uq
			}
			continue
		}
		if rest, ok := cutVerb(line, "go"); ok && m.GoVersion == "" && goVersionRE.MatchString(rest) {
			m.GoVersion = "go" + rest
		}
	}
	return m
}

// cutVerb returns the argument of a directive line that starts with verb followed by a
// space, a tab or a quote.
func cutVerb(line, verb string) (string, bool) {
	rest, ok := strings.CutPrefix(line, verb)
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// ReadGoMod reads the go.mod file at p. A missing or unreadable file gives the zero GoMod
// (the directory is not a module root).
func ReadGoMod(p string) GoMod {
	data, err := os.ReadFile(p)
	if err != nil {
		return GoMod{}
	}
	return ParseGoMod(data)
}
