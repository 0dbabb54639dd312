package repo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Language is a language faultline analyses and tests.
type Language string

// The languages.
const (
	Go         Language = "go"
	Python     Language = "python"
	JavaScript Language = "javascript"
)

// ParseLanguage reads a -lang flag value: go, python, javascript (js), or auto / "" (zero
// Language: detect).
func ParseLanguage(s string) (Language, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return "", nil
	case "go":
		return Go, nil
	case "python", "py":
		return Python, nil
	case "javascript", "js", "typescript", "ts":
		return JavaScript, nil
	}
	return "", fmt.Errorf("repo: unknown language %q (want auto, go, python or javascript)", s)
}

// Project is where a project's root is for a directory a user pointed at, and how the
// project is laid out there. Analyses and test runs start from Root (imports resolve from
// there); results are reported and filtered to Target.
//
// The rules, by language:
//
//   - Go: Root is the directory of the nearest go.mod at or above the directory; Module is
//     its module path. A go.work above it (or named by GOWORK; GOWORK=off disables) is
//     recorded in GoWork, a vendor/modules.txt in Vendor. No go.mod is an error (ErrNoGoMod)
//     that says how to fix it.
//   - Python: first walk up while the directory holds __init__.py: the first directory that
//     does not is the import root (where `import pkg` resolves), and the topmost package on
//     the way is the package the user is in. Then the nearest directory at or above the
//     import root holding a project file (pyproject.toml, setup.py, setup.cfg, pytest.ini,
//     tox.ini, or .git) is Root — searching no higher than the user's home directory and
//     never above a site-packages or dist-packages directory. An import root below Root
//     goes into PythonPath (a src/ layout), with pytest's own pythonpath setting. Without a
//     project file, Root is the import root and, when the user is inside a package, Include
//     narrows the project to that package (and a conftest.py beside it): an installed
//     package under dist-packages, or a package directory alone, is the package, not its
//     neighbours.
//   - JavaScript: Root is the directory of the nearest package.json at or above the
//     directory (Module its name); without one, the directory itself.
type Project struct {
	// Root is the project root: absolute, symbolic links resolved.
	Root string `json:"root"`
	// Target is the directory the user pointed at, as a slash path relative to Root ("."
	// when it is Root).
	Target string `json:"target"`
	// Lang is the project's language.
	Lang Language `json:"lang"`
	// Include lists the slash paths below Root that make up the project when Root holds
	// other things too (see the Python rule); empty means all of Root.
	Include []string `json:"include,omitempty"`
	// Module is the Go module path, the JavaScript package name, or the top-level Python
	// package the Target lies in ("" when none).
	Module string `json:"module,omitempty"`
	// GoWork is the go.work file (absolute path) that governs a Go Root, "" when none.
	GoWork string `json:"go_work,omitempty"`
	// Vendor reports a Go module with vendor/modules.txt.
	Vendor bool `json:"vendor,omitempty"`
	// PythonPath lists directories (slash paths relative to Root) that belong on sys.path
	// for the project's imports, in order.
	PythonPath []string `json:"python_path,omitempty"`
	// Config is the file (slash path relative to Root) that marked Root, "" when none did.
	Config string `json:"config,omitempty"`
	// Reason says in one sentence why Root was chosen.
	Reason string `json:"reason"`
}

// GoModule is the Go module path of a Go project, "" for other languages.
func (p *Project) GoModule() string {
	if p.Lang != Go {
		return ""
	}
	return p.Module
}

// ErrNoGoMod is wrapped when a Go project has no go.mod at or above the directory.
var ErrNoGoMod = errors.New("no go.mod")

// ErrNoSource is wrapped when automatic detection finds no Go, Python or JavaScript file.
var ErrNoSource = errors.New("no source files")

// Contains reports whether the slash path rel (relative to Root) belongs to the project:
// every path when Include is empty, else the paths at or below an Include entry.
func (p *Project) Contains(rel string) bool {
	if len(p.Include) == 0 {
		return true
	}
	for _, inc := range p.Include {
		if rel == inc || strings.HasPrefix(rel, inc+"/") || inc == "." {
			return true
		}
	}
	return false
}

// InTarget reports whether the slash path rel (relative to Root) lies at or below Target.
func (p *Project) InTarget(rel string) bool {
	return p.Target == "." || rel == p.Target || strings.HasPrefix(rel, p.Target+"/")
}

// Discover finds the project for dir (see Project). lang "" detects the language
// (DetectLanguage).
func Discover(dir string, lang Language) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("repo: %s is not a directory", dir)
	}
	if lang == "" {
		if lang, err = DetectLanguage(abs); err != nil {
			return nil, err
		}
	}
	var p *Project
	switch lang {
	case Go:
		p, err = discoverGo(abs)
	case Python:
		p, err = discoverPython(abs)
	case JavaScript:
		p = discoverJS(abs)
	default:
		return nil, fmt.Errorf("repo: unknown language %q", lang)
	}
	if err != nil {
		return nil, err
	}
	p.Lang = lang
	if p.Target, err = relSlash(p.Root, abs); err != nil {
		return nil, err
	}
	return p, nil
}

func relSlash(base, p string) (string, error) {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return "", fmt.Errorf("repo: %w", err)
	}
	return filepath.ToSlash(r), nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// upward calls f on dir and each of its parents, stopping when f returns true (the
// directory is returned) or at the filesystem root ("" is returned). stop, when it returns
// true for a directory, ends the walk before f sees it.
func upward(dir string, stop func(string) bool, f func(string) bool) string {
	for d := dir; ; {
		if stop != nil && stop(d) {
			return ""
		}
		if f(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func discoverGo(abs string) (*Project, error) {
	root := upward(abs, nil, func(d string) bool { return isFile(filepath.Join(d, "go.mod")) })
	if root == "" {
		return nil, fmt.Errorf("repo: %w in %s or any parent directory (run `go mod init MODULE-PATH` at the project's root, or point at a directory inside a module)",
			ErrNoGoMod, abs)
	}
	mod := ReadGoMod(filepath.Join(root, "go.mod"))
	if mod.Path == "" {
		return nil, fmt.Errorf("repo: %s has no module directive: add `module MODULE-PATH` as its first line", filepath.Join(root, "go.mod"))
	}
	p := &Project{Root: root, Module: mod.Path, Config: "go.mod", Vendor: isFile(filepath.Join(root, "vendor", "modules.txt"))}
	p.Reason = fmt.Sprintf("go.mod of module %s", mod.Path)
	if root != abs {
		p.Reason = fmt.Sprintf("the nearest go.mod above the directory (module %s)", mod.Path)
	}
	switch gw := os.Getenv("GOWORK"); {
	case gw == "off":
	case gw != "":
		p.GoWork = gw
	default:
		if w := upward(root, nil, func(d string) bool { return isFile(filepath.Join(d, "go.work")) }); w != "" {
			p.GoWork = filepath.Join(w, "go.work")
		}
	}
	return p, nil
}

// pyMarkers are the files that mark a Python project's root, in the order Config reports
// them.
var pyMarkers = []string{"pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", ".git"}

func isInstallDir(d string) bool {
	b := filepath.Base(d)
	return b == "site-packages" || b == "dist-packages"
}

func discoverPython(abs string) (*Project, error) {
	importRoot := abs
	for isFile(filepath.Join(importRoot, "__init__.py")) {
		parent := filepath.Dir(importRoot)
		if parent == importRoot {
			break
		}
		importRoot = parent
	}
	pkg := "" // the topmost package directory on the way, relative to importRoot
	if importRoot != abs {
		r, _ := filepath.Rel(importRoot, abs)
		pkg, _, _ = strings.Cut(filepath.ToSlash(r), "/")
		// An installed namespace package (PEP 420: no __init__.py, directly under
		// site-packages, e.g. lazr/ holding lazr.uri): the import root is the install
		// directory and the package is namespace/pkg, imported as namespace.pkg.
		if parent := filepath.Dir(importRoot); isInstallDir(parent) && isIdentifier(filepath.Base(importRoot)) {
			pkg = filepath.Base(importRoot) + "/" + pkg
			importRoot = parent
		}
	}
	home, _ := os.UserHomeDir()
	config := ""
	root := upward(importRoot,
		func(d string) bool {
			return isInstallDir(d) || (home != "" && d == home && d != importRoot) || d == "/" && d != importRoot
		},
		func(d string) bool {
			for _, m := range pyMarkers {
				if exists(filepath.Join(d, m)) {
					config = m
					return true
				}
			}
			return false
		})
	p := &Project{}
	if pkg != "" {
		p.Module = strings.ReplaceAll(pkg, "/", ".")
	}
	if root == "" {
		p.Root = importRoot
		switch {
		case pkg != "":
			p.Include = []string{pkg}
			if isFile(filepath.Join(importRoot, "conftest.py")) {
				p.Include = append(p.Include, "conftest.py")
			}
			sort.Strings(p.Include)
			where := "no project file"
			if isInstallDir(importRoot) {
				where = "an installed package"
			}
			p.Reason = fmt.Sprintf("%s: the import root of package %s, limited to the package", where, p.Module)
		default:
			p.Reason = "no package or project file around the directory: the directory itself"
		}
		return p, nil
	}
	p.Root, p.Config = root, config
	p.Reason = fmt.Sprintf("the nearest directory with %s", config)
	if root == abs {
		p.Reason = fmt.Sprintf("the directory holds %s", config)
	}
	if importRoot != root {
		r, err := relSlash(root, importRoot)
		if err != nil {
			return nil, err
		}
		p.PythonPath = append(p.PythonPath, r)
	}
	for _, d := range pytestPythonPath(root) {
		if !containsStr(p.PythonPath, d) {
			p.PythonPath = append(p.PythonPath, d)
		}
	}
	return p, nil
}

// isIdentifier reports whether s can name a Python package.
func isIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func discoverJS(abs string) *Project {
	root := upward(abs, nil, func(d string) bool { return isFile(filepath.Join(d, "package.json")) })
	if root == "" {
		return &Project{Root: abs, Reason: "no package.json at or above the directory: the directory itself"}
	}
	p := &Project{Root: root, Config: "package.json"}
	var pj struct {
		Name string `json:"name"`
	}
	if data, err := os.ReadFile(filepath.Join(root, "package.json")); err == nil && json.Unmarshal(data, &pj) == nil {
		p.Module = pj.Name
	}
	p.Reason = "the nearest package.json"
	if p.Module != "" {
		p.Reason = fmt.Sprintf("the nearest package.json (package %s)", p.Module)
	}
	return p
}

// sourceLanguage maps a file name to the language whose source it is.
func sourceLanguage(name string) Language {
	switch ext := filepath.Ext(name); ext {
	case ".go":
		return Go
	case ".py":
		return Python
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts":
		if strings.HasSuffix(name, ".d.ts") {
			return ""
		}
		return JavaScript
	}
	return ""
}

// DetectLanguage returns the language with the most source files at or below dir (non-source
// directories and virtual environments left out); ties go to Go, then Python. A directory with
// none gives an error wrapping ErrNoSource.
func DetectLanguage(dir string) (Language, error) {
	counts := map[Language]int{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable corners do not decide the language
		}
		if d.IsDir() {
			if p != dir && (SkipSourceDir(d.Name()) || IsVirtualEnv(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if l := sourceLanguage(d.Name()); l != "" && d.Type().IsRegular() {
			counts[l]++
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("repo: %w", err)
	}
	best, n := Language(""), 0
	for _, l := range []Language{Go, Python, JavaScript} {
		if counts[l] > n {
			best, n = l, counts[l]
		}
	}
	if best == "" {
		return "", fmt.Errorf("repo: %s: %w (Go, Python or JavaScript) at or below it", dir, ErrNoSource)
	}
	return best, nil
}
