package callgraph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// DefaultMaxFileSize is the size cap Build applies when BuildOptions.MaxFileSize is 0.
const DefaultMaxFileSize = 10 << 20

// The reasons Build records in Stats.Skipped.
const (
	SkipTest          = "test file"
	SkipTooLarge      = "larger than the size cap"
	SkipBinary        = "binary (contains NUL bytes)"
	SkipUnreadable    = "unreadable"
	SkipNotRegular    = "not a regular file"
	SkipSymlinkDir    = "symlink to a directory (not followed)"
	SkipSymlinkOut    = "symlink target outside the root"
	SkipSymlinkBroken = "broken or looping symlink"
	SkipInvalidName   = "path is not valid UTF-8"
)

// BuildOptions configures Build. The zero value analyses the project of the directory
// (see Build): every claimed file up to DefaultMaxFileSize, test files included.
type BuildOptions struct {
	// SkipTests leaves out test files (as IsTest decides). It is the one switch for tests,
	// with the same default for every language: tests are analysed unless it is set. The
	// front ends claim test files like any other file; Build decides.
	SkipTests bool
	// IsTest classifies test files by slash path (relative to the analysed root,
	// Graph.Project().Root); nil means IsTestPath.
	IsTest func(path string) bool
	// MaxFileSize is the size cap in bytes; 0 means DefaultMaxFileSize, negative means
	// no cap.
	MaxFileSize int64
	// SkipDir, if set, is consulted for every directory (slash path relative to the
	// analysed root) besides the built-in rules; returning true leaves the directory out.
	SkipDir func(path string) bool
	// Project is the project the directory belongs to, as repo.Discover returned it for
	// that directory; nil lets Build discover it. Build narrows it as its scope rules say.
	Project *repo.Project
	// Standalone analyses the directory as a root of its own, without looking for its
	// project: module names and file paths start at it (Build's behaviour before root
	// discovery).
	Standalone bool
}

// IsTestPath is the default test-file rule, repo.IsTestPath: a file under a directory
// named test, tests, testing or __tests__; Python test_*.py, *_test.py and conftest.py;
// Go *_test.go; and JavaScript/TypeScript *.test.* and *.spec.* files.
func IsTestPath(p string) bool { return repo.IsTestPath(p) }

// Build builds the call graph of the directory dir as part of its project. It finds the
// project with repo.Discover (the language the front ends share, or the one most of dir's
// source is in) and analyses from the project's root, so that names resolve as the
// project's own imports do, then keeps only what lies in dir: nodes are the definitions in
// dir, edges the calls between them, and paths and IDs are relative to dir. Graph.Project
// says which root was analysed and why. The scope, by language:
//
//   - Go: the module of the nearest go.mod (its module path names the packages), widened to
//     the go.work that governs it (the modules its use directives list). A directory below
//     testdata, vendor or a directory starting with . or _ is analysed alone, as is one
//     with no go.mod above (import paths are then matched to directories by suffix).
//   - Python: the import root the directory's package sits in (the nearest directory
//     above it without __init__.py, or the src/ directory of a src layout), limited to the
//     package (and a conftest.py beside it) when the import root holds other things too,
//     as an installed package in dist-packages does. The package keeps its dotted name, so
//     `import networkx as nx; nx.f()` resolves inside networkx/. A directory that is not
//     inside a package is its own import root and is analysed alone.
//   - JavaScript: the directory of the nearest package.json.
//
// Opts.Project supplies the project instead; Opts.Standalone analyses dir alone. The
// nodes, edges, errors, skipped files and Stats are those of dir (the call-site counts
// too, when the front end breaks them down by file as faultline's do: Analysis.ByFile).
//
// The walk visits files in sorted order, hands each file to the first language whose
// Match claims it, runs the languages concurrently (one goroutine each) and assembles their
// analyses with FromAnalyses. Directories repo.SkipSourceDir names (hidden, version
// control, vendored and installed dependencies, testdata) and virtual environments are
// skipped, except on the way to dir. Test files (IsTest) are left out when
// opts.SkipTests is set. Symlinks to files are read when their target lies inside the
// analysed root; symlinks to directories are never followed, so loops cannot occur. A
// claimed file that is larger than the size cap, binary (repo.IsBinary: a NUL byte in its
// first 8000 bytes), not a regular file or unreadable is left out and recorded in
// Stats.Skipped; bytes that are not UTF-8 are passed through unchanged. A claimed file
// whose path is not valid UTF-8 is left out too (SkipInvalidName): node IDs and the JSON
// report are UTF-8 text, which would turn the path into one that names no file; its
// Skipped.Path is the path with Go's string escapes (strconv.Quote without the quotes, so
// strconv.Unquote restores it). An empty tree gives an empty graph. Errors are for an
// unusable directory, a front end failure or a cancelled ctx.
func Build(ctx context.Context, dir string, langs []Language, opts BuildOptions) (*Graph, error) {
	w := walker{open: func(name string) (io.ReadCloser, error) { return os.Open(name) }}
	return w.build(ctx, dir, langs, opts)
}

// walker carries the file opener so tests can inject read failures.
type walker struct {
	open func(name string) (io.ReadCloser, error)
}

func (w walker) build(ctx context.Context, dir string, langs []Language, opts BuildOptions) (*Graph, error) {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("callgraph: build: %w", err)
	}
	if realDir, err = filepath.Abs(realDir); err != nil {
		return nil, fmt.Errorf("callgraph: build: %w", err)
	}
	if st, err := os.Stat(realDir); err != nil {
		return nil, fmt.Errorf("callgraph: build: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("callgraph: build: %s is not a directory", dir)
	}
	proj, err := scope(realDir, langs, opts)
	if err != nil {
		return nil, err
	}
	realRoot := proj.Root
	maxSize := opts.MaxFileSize
	if maxSize == 0 {
		maxSize = DefaultMaxFileSize
	}
	isTest := opts.IsTest
	if isTest == nil {
		isTest = IsTestPath
	}

	// The walk lists the files and the skipped paths in its order; the files are read by
	// readers while the walk goes on, and the lists are assembled in walk order after it.
	var seen []*found
	skip := func(rel, reason string) { seen = append(seen, &found{rel: rel, reason: reason}) }
	reads := make(chan *found, 256)
	var readers sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		readers.Go(func() {
			for f := range reads {
				f.src, f.err = w.read(f.target, maxSize, f.size)
				f.binary = f.err == nil && task.IsBinary(f.src)
			}
		})
	}
	// WalkDir visits entries in lexical order and does not follow symlinks.
	err = filepath.WalkDir(realRoot, func(abs string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, rerr := filepath.Rel(realRoot, abs)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if abs == realRoot {
				return err
			}
			// An unreadable directory: nothing inside it can be claimed, record it.
			skip(rel, SkipUnreadable+": "+errText(err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if abs == realRoot {
				return nil
			}
			if onTargetPath(proj, rel) {
				return nil
			}
			if !enterDir(proj, rel) || repo.SkipSourceDir(d.Name()) || repo.IsVirtualEnv(abs) || (opts.SkipDir != nil && opts.SkipDir(rel)) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || !proj.Contains(rel) {
			return nil
		}
		li := slices.IndexFunc(langs, func(l Language) bool { return l.Match(rel) })
		if li < 0 {
			return nil
		}
		if !utf8.ValidString(rel) {
			// An ID or a JSON report could not carry the path: it would name another file.
			skip(quotePath(rel), SkipInvalidName)
			return nil
		}
		if opts.SkipTests && isTest(rel) {
			skip(rel, SkipTest)
			return nil
		}
		target := abs
		if d.Type()&fs.ModeSymlink != 0 {
			t, err := filepath.EvalSymlinks(abs)
			if err != nil {
				skip(rel, SkipSymlinkBroken)
				return nil
			}
			if r, err := filepath.Rel(realRoot, t); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				skip(rel, SkipSymlinkOut)
				return nil
			}
			target = t
		}
		st, err := os.Stat(target)
		if err != nil {
			skip(rel, SkipUnreadable+": "+errText(err))
			return nil
		}
		switch {
		case st.IsDir():
			skip(rel, SkipSymlinkDir)
			return nil
		case !st.Mode().IsRegular():
			skip(rel, SkipNotRegular)
			return nil
		case maxSize > 0 && st.Size() > maxSize:
			skip(rel, SkipTooLarge)
			return nil
		}
		f := &found{rel: rel, lang: li, target: target, size: st.Size()}
		seen = append(seen, f)
		reads <- f
		return nil
	})
	close(reads)
	readers.Wait()
	if err != nil {
		return nil, fmt.Errorf("callgraph: build: %w", err)
	}
	files := make([][]SourceFile, len(langs))
	var skipped []Skipped
	for _, f := range seen {
		reason := f.reason
		switch {
		case reason != "":
		case errors.Is(f.err, errTooLarge):
			reason = SkipTooLarge
		case f.err != nil:
			reason = SkipUnreadable + ": " + errText(f.err)
		case f.binary:
			reason = SkipBinary
		default:
			files[f.lang] = append(files[f.lang], SourceFile{Path: f.rel, Src: f.src})
			continue
		}
		skipped = append(skipped, Skipped{Path: f.rel, Reason: reason})
	}
	seen = nil

	analyses := make([]*Analysis, len(langs))
	errs := make([]error, len(langs))
	var wg sync.WaitGroup
	nfiles := 0
	inTarget := func(rel string) (string, bool) {
		if proj.Target == "." {
			return rel, true
		}
		return strings.CutPrefix(rel, proj.Target+"/")
	}
	for i, l := range langs {
		if len(files[i]) == 0 {
			continue
		}
		for _, f := range files[i] {
			if _, ok := inTarget(f.Path); ok {
				nfiles++
			}
		}
		wg.Go(func() {
			a, err := l.Analyze(ctx, files[i])
			if err != nil {
				errs[i] = fmt.Errorf("callgraph: build: %s front end: %w", l.Name(), err)
				return
			}
			if a != nil {
				for k := range a.Definitions {
					if a.Definitions[k].Language == "" {
						a.Definitions[k].Language = l.Name()
					}
				}
			}
			analyses[i] = relocate(a, proj.Target)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("callgraph: build: %w", err)
	}
	g, err := FromAnalyses(analyses...)
	if err != nil {
		return nil, err
	}
	g.stats.Files = nfiles
	kept := skipped[:0]
	for _, s := range skipped {
		if p, ok := inTarget(s.Path); ok {
			kept = append(kept, Skipped{Path: p, Reason: s.Reason})
		}
	}
	slices.SortStableFunc(kept, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	g.stats.Skipped = kept
	g.project = proj
	return g, nil
}

// found is a path the walk met: a skipped one (reason set) or a claimed file of language
// lang, size bytes when the walk saw it, read from target by Build's readers into src or
// err (binary: src is, see task.IsBinary).
type found struct {
	rel, reason string
	lang        int
	target      string
	size        int64
	src         []byte
	err         error
	binary      bool
}

// quotePath spells a path that is not valid UTF-8 with Go's string escapes (as
// strconv.Quote does, without the quotes), so that strconv.Unquote("\"" + p + "\"")
// gives back its bytes.
func quotePath(p string) string {
	q := strconv.Quote(p)
	return q[1 : len(q)-1]
}

var errTooLarge = errors.New("file grew past the size cap")

// read reads a file of about size bytes (its size when it was listed), failing with
// errTooLarge past limit bytes (limit ≤ 0: no cap).
func (w walker) read(name string, limit, size int64) ([]byte, error) {
	f, err := w.open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
		size = min(size, limit)
	}
	// One byte more than the size lets the read see the end without growing the buffer.
	src := make([]byte, 0, max(size, 0)+1)
	for {
		n, err := r.Read(src[len(src):cap(src)])
		src = src[:len(src)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(src) == cap(src) {
			src = slices.Grow(src, len(src))
		}
	}
	if limit > 0 && int64(len(src)) > limit {
		return nil, errTooLarge
	}
	return src, nil
}

// errText is an error's message without the path prefix *fs.PathError adds (the skipped
// entry already names the file).
func errText(err error) string {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
