package artifact

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/internal/pylex"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// Interface is one top object as the problem statement shows it.
type Interface struct {
	File     string    // slash path relative to the repository root
	Name     string    // qualified name
	Kind     task.Kind // function, method or class
	Language string    // "python" or "go"
	// ImportPath is the module or package the object is imported from: the dotted Python
	// module (`pkg.core`) or the Go import path.
	ImportPath string
	// Import is the statement that imports the object's top-level name (`from pkg.core
	// import Engine`, `import "example.com/m/lib"`).
	Import string
	// Signature is the header as written: decorators and the def/class line(s) for
	// Python, the func line for Go, dedented.
	Signature string
	// Docstring is the docstring (Python, cleaned as inspect.cleandoc does; escapes are
	// not interpreted) or doc comment (Go, without the comment markers); for objects
	// without one, what the DocstringGenerator wrote, if any.
	Docstring string
	// Generated reports whether Docstring came from the DocstringGenerator.
	Generated bool
	// Source is the definition's full original source, dedented (for generators).
	Source string
}

// DocstringGenerator writes a docstring for an object that has none. Implementations must
// be safe for concurrent use; LLMDocstrings is one.
type DocstringGenerator interface {
	Docstring(ctx context.Context, obj Interface) (string, error)
}

// DocstringFunc adapts a function to DocstringGenerator.
type DocstringFunc func(ctx context.Context, obj Interface) (string, error)

// Docstring calls f(ctx, obj).
func (f DocstringFunc) Docstring(ctx context.Context, obj Interface) (string, error) {
	return f(ctx, obj)
}

// resolveInterfaces finds each object's definition in the original repository.
func resolveInterfaces(ctx context.Context, root string, objs []mask.Target, gen DocstringGenerator) ([]Interface, error) {
	byLang := map[string][]callgraph.SourceFile{}
	seen := map[string]bool{}
	src := map[string][]byte{}
	for _, o := range objs {
		if seen[o.File] {
			continue
		}
		seen[o.File] = true
		p, err := task.SafeJoin(root, o.File)
		if err != nil {
			return nil, fmt.Errorf("artifact: object %s: %w", o, err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("artifact: object %s: %w", o, err)
		}
		src[o.File] = b
		lang := langOf(o.File)
		if lang == "" {
			return nil, fmt.Errorf("%w: object %s is neither Python nor Go", ErrBadSpec, o)
		}
		byLang[lang] = append(byLang[lang], callgraph.SourceFile{Path: o.File, Src: b})
	}
	found, err := definitions(ctx, byLang, true)
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	var defs []task.Function
	for _, d := range found {
		defs = append(defs, d.Function)
	}
	modPath := repo.ReadGoMod(filepath.Join(root, "go.mod")).Path
	var out []Interface
	for _, o := range objs {
		var fn *task.Function
		for i := range defs {
			d := &defs[i]
			if d.File == o.File && d.Name == o.Name && (o.Line == 0 || o.Line == d.Line || o.Line == d.DecoratorLine) {
				fn = d
				break
			}
		}
		if fn == nil {
			return nil, fmt.Errorf("%w: no definition %s", ErrBadSpec, o)
		}
		b := src[o.File]
		in := Interface{File: o.File, Name: o.Name, Kind: fn.Kind, Language: langOf(o.File)}
		top, _, _ := strings.Cut(o.Name, ".")
		if in.Language == "python" {
			in.ImportPath = pyModule(o.File)
			in.Import = "from " + in.ImportPath + " import " + top
			in.Signature = dedent(lineStart(b, fn.Def.Start), b[fn.Def.Start:fn.Signature.End])
			if !fn.Doc.Empty() {
				in.Docstring = pylex.Cleandoc(pylex.ParseLiteral(string(fn.Doc.Text(b))).Body)
			}
		} else {
			in.ImportPath = goImportPath(modPath, o.File)
			in.Import = "import " + strconv.Quote(in.ImportPath)
			in.Signature = string(fn.Signature.Text(b))
			if !fn.Doc.Empty() {
				in.Docstring = goDoc(string(fn.Doc.Text(b)))
			}
		}
		start := fn.Def.Start
		if in.Language == "go" && !fn.Doc.Empty() {
			start = fn.Doc.Start
		}
		in.Source = dedent(lineStart(b, start), b[start:fn.Def.End])
		if in.Docstring == "" && gen != nil {
			d, err := gen.Docstring(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("artifact: docstring for %s: %w", o, err)
			}
			in.Docstring, in.Generated = strings.TrimSpace(d), strings.TrimSpace(d) != ""
		}
		out = append(out, in)
	}
	return out, nil
}

// definitions analyses the files of each language (keyed by langOf), Go before Python, and
// returns their definitions; goTests makes the Go front end analyse _test.go files too.
func definitions(ctx context.Context, byLang map[string][]callgraph.SourceFile, goTests bool) ([]callgraph.Definition, error) {
	var defs []callgraph.Definition
	for _, lang := range []string{"go", "python"} {
		files := byLang[lang]
		if len(files) == 0 {
			continue
		}
		var fe callgraph.Language = python.New(python.Options{})
		if lang == "go" {
			fe = golang.New(golang.Options{})
			if !goTests {
				files = slices.DeleteFunc(slices.Clone(files), func(f callgraph.SourceFile) bool { return strings.HasSuffix(f.Path, "_test.go") })
			}
		}
		an, err := fe.Analyze(ctx, files)
		if err != nil {
			return nil, err
		}
		defs = append(defs, an.Definitions...)
	}
	return defs, nil
}

func langOf(p string) string {
	switch {
	case strings.HasSuffix(p, ".py"):
		return "python"
	case strings.HasSuffix(p, ".go"):
		return "go"
	}
	return ""
}

// pyModule is the dotted module of a file: its path with "/" as "." (a package's
// __init__.py names the directory), below a leading src/ or lib/ directory.
func pyModule(p string) string {
	p = strings.TrimSuffix(p, ".py")
	if path.Base(p) == "__init__" {
		p = path.Dir(p)
	}
	for _, pre := range []string{"src/", "lib/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok && rest != "" {
			p = rest
			break
		}
	}
	return strings.ReplaceAll(p, "/", ".")
}

func goImportPath(mod, file string) string {
	dir := path.Dir(file)
	switch {
	case mod == "" && dir == ".":
		return "."
	case mod == "":
		return dir
	case dir == ".":
		return mod
	}
	return mod + "/" + dir
}

// lineStart returns the indentation before offset off on its line.
func lineStart(b []byte, off int) string {
	i := off
	for i > 0 && b[i-1] != '\n' {
		i--
	}
	return string(b[i:off])
}

// dedent removes the first line's indentation from every following line that has it and
// trims trailing whitespace of the text.
func dedent(indent string, text []byte) string {
	lines := strings.Split(string(text), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimPrefix(lines[i], indent)
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// goDoc strips the comment markers of a Go doc comment.
func goDoc(c string) string {
	var out []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "//"):
			l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), " ")
		case strings.HasPrefix(l, "/*"):
			l = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "/*"), "*/"))
		case strings.HasSuffix(l, "*/"):
			l = strings.TrimSpace(strings.TrimSuffix(l, "*/"))
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// problemStatement renders problem_statement.md; env is the Level 2 environment (nil at
// Level 1).
func problemStatement(s Spec, testFile string, ifaces []Interface, env *Environment) string {
	var b bytes.Buffer
	summary := s.Summary
	if summary == "" && env != nil {
		summary = level2Summary(env, ifaces)
	} else if summary == "" {
		summary = defaultSummary(s, testFile, ifaces)
	}
	pkg, noun, that := "", "package", "that package"
	if env != nil {
		pkg = strings.Join(env.Packages, "`, `")
		if len(env.Packages) > 1 {
			noun, that = "packages", "those packages"
		}
	}
	b.WriteString("## Task\n\n")
	b.WriteString("**Task Statement:** " + summary + "\n\n")
	if s.Level == 1 {
		b.WriteString("You work inside the repository `" + s.Repo + "`, in which this functionality has been removed. " +
			"Implement it in place, at the paths given below, so that the rest of the repository keeps working.\n\n")
	} else {
		b.WriteString("Implement this functionality from scratch as the " + noun + " `" + pkg + "`. " +
			"The original repository is not available: the tests import your solution as " + that + ", " +
			"through the import paths given below.\n\n")
		b.WriteString(level2Layout(env, s.Root))
		b.WriteString("\n")
	}
	b.WriteString("## Interfaces\n")
	for i, in := range ifaces {
		fmt.Fprintf(&b, "\n### %d. `%s`\n\n", i+1, in.Name)
		if s.Level == 1 {
			fmt.Fprintf(&b, "- Path: `%s`\n", in.File)
		}
		fmt.Fprintf(&b, "- Kind: %s\n", in.Kind)
		fmt.Fprintf(&b, "- Import: `%s`\n\n", in.Import)
		fmt.Fprintf(&b, "```%s\n%s\n```\n", in.Language, in.Signature)
		if in.Docstring != "" {
			b.WriteString("\n")
			for _, l := range strings.Split(in.Docstring, "\n") {
				b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
			}
		}
	}
	b.WriteString("\n## NOTE\n\n")
	if s.Level == 1 {
		b.WriteString("- Work inside the repository; do not rename or move the files and objects named above.\n")
	} else {
		b.WriteString("- Work in the given directory and create the " + noun + " `" + pkg + "` there; the repository it came from is not given.\n")
	}
	b.WriteString("- The dependencies are installed; do not install, upgrade or remove packages.\n")
	b.WriteString("- The tests that check your work are not shown; do not change existing tests.\n")
	if len(s.ForbiddenURLs) > 0 {
		b.WriteString("- Do not access these URLs (nor copies of their content):\n")
		urls := append([]string(nil), s.ForbiddenURLs...)
		sort.Strings(urls)
		for _, u := range urls {
			b.WriteString("  - " + u + "\n")
		}
	}
	return b.String()
}
