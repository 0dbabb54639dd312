package repo

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// pytestConfigs are the files pytest reads its configuration from, in its order of
// precedence, with the section that holds the settings.
var pytestConfigs = []struct{ file, section string }{
	{"pytest.ini", "pytest"},
	{"pyproject.toml", "tool.pytest.ini_options"},
	{"tox.ini", "pytest"},
	{"setup.cfg", "tool:pytest"},
}

// PytestConfig is what faultline reads of a project's pytest configuration.
type PytestConfig struct {
	// File is the configuration file pytest uses (slash path relative to the root), "" when
	// none has a pytest section.
	File string
	// PythonPath is the pythonpath setting: directories added to sys.path.
	PythonPath []string
	// TestPaths is the testpaths setting: where pytest looks for tests when given no path.
	TestPaths []string
}

// ReadPytestConfig reads the pytest configuration at root: the first of pytest.ini,
// pyproject.toml ([tool.pytest.ini_options]), tox.ini ([pytest]) and setup.cfg
// ([tool:pytest]) that has the section, as pytest itself chooses (a pytest.ini is used even
// without the section).
func ReadPytestConfig(root string) PytestConfig {
	for _, c := range pytestConfigs {
		data, err := os.ReadFile(filepath.Join(root, c.file))
		if err != nil {
			continue
		}
		vals, found := readSection(data, c.section, strings.HasSuffix(c.file, ".toml"))
		if !found && c.file != "pytest.ini" {
			continue
		}
		return PytestConfig{File: c.file, PythonPath: vals["pythonpath"], TestPaths: vals["testpaths"]}
	}
	return PytestConfig{}
}

func pytestPythonPath(root string) []string {
	var out []string
	for _, d := range ReadPytestConfig(root).PythonPath {
		d = filepath.ToSlash(filepath.Clean(d))
		if d != "." && !strings.HasPrefix(d, "../") && !filepath.IsAbs(d) {
			out = append(out, d)
		}
	}
	return out
}

// readSection returns the list-valued keys of one section of an INI or TOML file: a value is
// split on white space (INI, with continuation lines) or read as a TOML string or array of
// strings. Only the keys faultline needs are well-formed this way; others may read oddly.
func readSection(data []byte, section string, toml bool) (map[string][]string, bool) {
	vals := map[string][]string{}
	found, in := false, false
	var key string    // an INI key whose value continues on indented lines
	var arrKey string // the key of a TOML array still open
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if arrKey != "" {
			vals[arrKey] = append(vals[arrKey], tomlStrings(line)...)
			if strings.Contains(stripTOMLComment(line), "]") {
				arrKey = ""
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			name := strings.TrimSpace(strings.Trim(stripTOMLComment(line), "[]"))
			if toml {
				name = strings.ReplaceAll(name, `"`, "")
			}
			in = name == section
			found = found || in
			key = ""
			continue
		}
		if !in {
			continue
		}
		if !toml && key != "" && (raw[0] == ' ' || raw[0] == '\t') {
			vals[key] = append(vals[key], strings.Fields(line)...)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok && !toml {
			k, v, ok = strings.Cut(line, ":")
		}
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if toml {
			v = stripTOMLComment(v)
			switch {
			case strings.HasPrefix(v, "["):
				vals[k] = tomlStrings(v)
				if !strings.Contains(v, "]") {
					arrKey = k
				}
			default:
				vals[k] = strings.Fields(strings.Trim(v, `"'`))
			}
			continue
		}
		key = k
		vals[k] = strings.Fields(v)
	}
	return vals, found
}

// stripTOMLComment drops a # comment that is outside quotes.
func stripTOMLComment(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case q == 0 && c == '#':
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}

// tomlStrings returns the quoted strings of a TOML line.
func tomlStrings(s string) []string {
	s = stripTOMLComment(s)
	var out []string
	for {
		i := strings.IndexAny(s, `"'`)
		if i < 0 {
			return out
		}
		q := s[i]
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+1+j])
		s = s[i+1+j+1:]
	}
}
