package callgraph

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/task/repo"
)

// scope decides where Build analyses for the directory dir (absolute, symbolic links
// resolved) and returns it as a project: Root is the directory the analysis walks (file
// paths handed to the front ends are relative to it), Include narrows the walk, Target is
// dir relative to Root, and Reason says why. The rules are repo.Discover's, narrowed to
// what the call graph needs (see Build). The error is for a BuildOptions.Project that
// is not dir's.
func scope(dir string, langs []Language, opts BuildOptions) (*repo.Project, error) {
	alone := func(lang repo.Language, reason string) *repo.Project {
		return &repo.Project{Root: dir, Target: ".", Lang: lang, Reason: reason}
	}
	if opts.Standalone {
		return alone("", "the directory as given (BuildOptions.Standalone)"), nil
	}
	p := opts.Project
	if p == nil {
		lang := frontEndLanguage(langs)
		if lang == "" && len(langs) > 1 {
			l, err := repo.DetectLanguage(dir)
			if err != nil {
				return alone("", "the directory itself: it holds no Go, Python or JavaScript source"), nil
			}
			lang = l
		}
		if lang == "" {
			return alone("", "the directory itself: no front end of a language with project rules"), nil
		}
		var err error
		if p, err = repo.Discover(dir, lang); err != nil {
			if errors.Is(err, repo.ErrNoGoMod) {
				return alone(lang, "the directory itself: no go.mod at or above it, so import paths are matched to directories by suffix"), nil
			}
			return alone(lang, "the directory itself: "+err.Error()), nil
		}
	} else {
		cp := *p
		p = &cp
		if p.Target == "" {
			p.Target = "."
		}
		of, err := filepath.EvalSymlinks(filepath.Join(p.Root, filepath.FromSlash(p.Target)))
		if p.Root == "" || err != nil || of != dir {
			return nil, fmt.Errorf("callgraph: build: BuildOptions.Project is the project of %s, not of %s", filepath.Join(p.Root, filepath.FromSlash(p.Target)), dir)
		}
		if p.Root, err = filepath.EvalSymlinks(p.Root); err != nil {
			return nil, fmt.Errorf("callgraph: build: BuildOptions.Project: %w", err)
		}
	}
	switch p.Lang {
	case repo.Python:
		return pythonScope(p), nil
	case repo.Go:
		return goScope(p), nil
	}
	return p, nil
}

// frontEndLanguage maps the front ends to the one language they share, "" when they are
// several or none has project rules.
func frontEndLanguage(langs []Language) repo.Language {
	var out repo.Language
	for _, l := range langs {
		rl, err := repo.ParseLanguage(l.Name())
		if err != nil || rl == "" {
			continue
		}
		if out != "" && out != rl {
			return ""
		}
		out = rl
	}
	return out
}

// pythonScope narrows a Python project to the import root the Target's package sits in:
// module names start there (the package keeps its dotted name), and files outside it are
// not parsed. A directory that is not inside a package is its own import root.
func pythonScope(p *repo.Project) *repo.Project {
	if p.Target == "." {
		return p
	}
	dir := filepath.Join(p.Root, filepath.FromSlash(p.Target))
	if p.Module == "" {
		return &repo.Project{Root: dir, Target: ".", Lang: p.Lang, PythonPath: nil,
			Reason: fmt.Sprintf("not inside a Python package: module names start at the directory (its project root would be %s: %s)", p.Root, p.Reason)}
	}
	// The import root is Root or one of the PythonPath entries: the one the Target's
	// package sits directly below (the deepest when several match).
	best := ""
	for _, c := range append([]string{"."}, p.PythonPath...) {
		pkg := p.Module
		if c != "." {
			pkg = c + "/" + p.Module
		}
		if (p.Target == pkg || strings.HasPrefix(p.Target, pkg+"/")) && (best == "" || len(c) > len(best)) {
			best = c
		}
	}
	if best == "" || best == "." {
		return p
	}
	q := *p
	q.Root = filepath.Join(p.Root, filepath.FromSlash(best))
	q.Target = strings.TrimPrefix(p.Target, best+"/")
	q.Include = nil
	q.PythonPath = nil
	q.Reason = fmt.Sprintf("%s; analysed from the import root %s, where package %s starts", p.Reason, best, p.Module)
	return &q
}

// goScope keeps a module's Root, or widens it to the go.work that governs it (the
// workspace's modules resolve each other's import paths). A directory the go command
// leaves out of the module (below testdata, vendor, or a directory starting with . or _)
// is analysed alone.
func goScope(p *repo.Project) *repo.Project {
	if p.Target != "." {
		for _, el := range strings.Split(p.Target, "/") {
			if el == "testdata" || el == "vendor" || strings.HasPrefix(el, ".") || strings.HasPrefix(el, "_") {
				return &repo.Project{Root: filepath.Join(p.Root, filepath.FromSlash(p.Target)), Target: ".", Lang: p.Lang,
					Reason: fmt.Sprintf("the directory itself: it lies in %s, which the go command leaves out of module %s", el, p.Module)}
			}
		}
	}
	if p.GoWork == "" {
		return p
	}
	wdir := filepath.Dir(p.GoWork)
	uses, err := goWorkUses(p.GoWork)
	if err != nil {
		return p
	}
	rootRel, err := filepath.Rel(wdir, p.Root)
	if err != nil || !filepath.IsLocal(rootRel) && rootRel != "." {
		return p
	}
	rootRel = filepath.ToSlash(rootRel)
	if !slices.Contains(uses, rootRel) {
		return p // the module is not in the workspace
	}
	q := *p
	q.Root = wdir
	q.Include = uses
	if slices.Contains(uses, ".") {
		q.Include = nil
	}
	if rootRel == "." {
		q.Target = p.Target
	} else if p.Target == "." {
		q.Target = rootRel
	} else {
		q.Target = rootRel + "/" + p.Target
	}
	q.Reason = fmt.Sprintf("%s, in the workspace of %s (%d modules)", p.Reason, p.GoWork, len(uses))
	return &q
}

// goWorkUses reads the use directives of a go.work file: the module directories, as
// clean slash paths relative to the file's directory, sorted. Directories outside it are
// left out (the walk cannot reach them).
func goWorkUses(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var uses []string
	add := func(arg string) {
		arg = strings.Trim(strings.TrimSpace(arg), "\"`")
		if arg == "" || filepath.IsAbs(arg) {
			return
		}
		c := path.Clean(filepath.ToSlash(arg))
		if c == ".." || strings.HasPrefix(c, "../") {
			return
		}
		if !slices.Contains(uses, c) {
			uses = append(uses, c)
		}
	}
	block := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		switch {
		case block && line == ")":
			block = false
		case block:
			add(line)
		case line == "use (" || line == "use(":
			block = true
		case strings.HasPrefix(line, "use ") || strings.HasPrefix(line, "use\t"):
			add(line[len("use"):])
		}
	}
	slices.Sort(uses)
	return uses, sc.Err()
}

// enterDir reports whether the walk of p enters the directory rel (slash path relative to
// p.Root): one at, above or below an Include entry.
func enterDir(p *repo.Project, rel string) bool {
	if len(p.Include) == 0 || p.Contains(rel) {
		return true
	}
	for _, inc := range p.Include {
		if strings.HasPrefix(inc, rel+"/") {
			return true
		}
	}
	return false
}

// onTargetPath reports whether the directory rel is the Target or one of its ancestors:
// those are entered whatever their name.
func onTargetPath(p *repo.Project, rel string) bool {
	return p.Target == rel || strings.HasPrefix(p.Target, rel+"/")
}

// relocate keeps what lies in the directory target (a slash path relative to the root
// the front ends saw) and makes its paths relative to target: definitions, their IDs and
// parents, calls between kept definitions, syntax errors, and the call-site counts of the
// files in target (when the front end broke them down by file, Analysis.ByFile; otherwise
// the counts cover every file analysed).
func relocate(a *Analysis, target string) *Analysis {
	if a == nil || target == "." {
		return a
	}
	prefix := target + "/"
	cut := func(s string) (string, bool) { return strings.CutPrefix(s, prefix) }
	out := &Analysis{CallSites: a.CallSites, Resolved: a.Resolved, Unresolved: a.Unresolved}
	if a.ByFile != nil {
		out.CallSites, out.Resolved, out.ByFile = 0, 0, map[string]CallCount{}
		for f, c := range a.ByFile {
			if rel, ok := cut(f); ok {
				out.ByFile[rel] = c
				out.CallSites += c.Sites
				out.Resolved += c.Resolved
			}
		}
		out.Unresolved = out.CallSites - out.Resolved
	}
	kept := map[string]string{}
	for _, d := range a.Definitions {
		file, ok := cut(d.File)
		if !ok {
			continue
		}
		id, _ := cut(d.ID)
		kept[d.ID] = id
		d.File, d.ID = file, id
		if d.Parent != "" {
			d.Parent, _ = cut(d.Parent)
		}
		out.Definitions = append(out.Definitions, d)
	}
	for _, c := range a.Calls {
		from, ok1 := kept[c.Caller]
		to, ok2 := kept[c.Callee]
		if ok1 && ok2 {
			out.Calls = append(out.Calls, Call{Caller: from, Callee: to, Line: c.Line})
		}
	}
	for _, err := range a.Errors {
		if se, ok := errors.AsType[*SyntaxError](err); ok {
			p, in := cut(se.Path)
			if !in {
				continue
			}
			cp := *se
			cp.Path = p
			err = &cp
		}
		out.Errors = append(out.Errors, err)
	}
	return out
}
