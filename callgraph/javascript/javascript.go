package javascript

import (
	"context"
	"fmt"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	tsjs "github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

// Options configure the JavaScript front end. The zero value is ready to use.
type Options struct {
	// NoTypeScript leaves *.ts, *.tsx, *.mts and *.cts files unclaimed. By default they are
	// analysed with the TypeScript grammars, together with the JavaScript files.
	NoTypeScript bool
}

// Frontend is the JavaScript language front end. It is safe for concurrent use.
type Frontend struct {
	opts       Options
	parsers    *parserPool // JavaScript (and JSX)
	tsParsers  *parserPool // TypeScript
	tsxParsers *parserPool // TypeScript with JSX
}

// New returns a JavaScript (and TypeScript) front end.
func New(opts Options) *Frontend {
	return &Frontend{opts: opts, parsers: newParserPool(tsjs.GetLanguage()),
		tsParsers: newParserPool(typescript.GetLanguage()), tsxParsers: newParserPool(tsx.GetLanguage())}
}

// poolFor picks the grammar of a file by its extension.
func (fe *Frontend) poolFor(p string) *parserPool {
	switch path.Ext(p) {
	case ".ts", ".mts", ".cts":
		return fe.tsParsers
	case ".tsx":
		return fe.tsxParsers
	}
	return fe.parsers
}

// languageOf is the Language recorded on a file's definitions.
func languageOf(p string) string {
	switch path.Ext(p) {
	case ".ts", ".mts", ".cts", ".tsx":
		return "typescript"
	}
	return "javascript"
}

var _ callgraph.Language = (*Frontend)(nil)

// Name returns "javascript".
func (*Frontend) Name() string { return "javascript" }

// extensions are the file name extensions the front end claims, in the order a relative
// import without extension is tried.
var extensions = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"}

// Match claims *.js, *.mjs, *.cjs, *.jsx and (unless Options.NoTypeScript) *.ts, *.tsx,
// *.mts and *.cts files outside node_modules, test files included (callgraph.Build leaves
// them out unless asked); minified *.min.js files and *.d.ts declaration files never.
func (fe *Frontend) Match(p string) bool {
	ext := path.Ext(p)
	ok := false
	for _, e := range extensions {
		ok = ok || ext == e
	}
	if !ok || strings.HasSuffix(p, ".min.js") || strings.HasSuffix(p, ".d.ts") {
		return false
	}
	if fe.opts.NoTypeScript && languageOf(p) == "typescript" {
		return false
	}
	for _, el := range strings.Split(path.Dir(p), "/") {
		if el == "node_modules" {
			return false
		}
	}
	return true
}

// symbol kinds: what a name or expression is known to denote.
type symKind int

const (
	sUnknown  symKind = iota // a local of unknown value (it still shadows outer names)
	sDef                     // a function definition
	sClass                   // a class
	sNS                      // a module namespace (import * as ns, require('./m'))
	sInstance                // an instance of a class (new C())
	sObject                  // an object literal whose function members are definitions
	sImport                  // a binding imported from another module, resolved lazily
	sAlias                   // another expression (x = f), resolved lazily
	sNew                     // the value of a new expression, resolved lazily
	sTyped                   // a value with a TypeScript type annotation, resolved lazily
	sCall                    // the result of a call, typed by the callee's return type
	sDoc                     // a value with a JSDoc type (name: the type expression)
	sArray                   // an array whose elements are elem (a lazy symbol)
	sElem                    // an element of the array node denotes, resolved lazily
)

type symbol struct {
	kind   symKind
	def    *def
	class  *class
	file   *file   // sNS, sImport
	name   string  // sImport: the exported name ("*" for the namespace); sObject: name prefix
	node   *node   // sAlias, sNew
	sc     *scope  // sAlias, sNew: where node is evaluated
	cls    *class  // sAlias, sNew: the class `this` denotes there
	obj    *file   // sObject: the file of its definitions
	extern bool    // sImport from outside the analysed files
	elem   *symbol // sArray: its elements

	// A variable declared without a value (let x;) is what all its assignments agree on.
	noInit  bool
	assigns []*symbol
	mixed   bool // assigned something else (or by a loop)
	busy    bool
}

// scope is a function-level (or module-level) scope: block scoping is not modelled.
type scope struct {
	parent *scope
	names  map[string]*symbol
	file   *file
	owner  *def // the definition whose body this is (nil: module, folded function)
}

// child returns a new scope nested in s.
func (s *scope) child() *scope { return &scope{parent: s, file: s.file} }

func (s *scope) declare(name string, sym *symbol) {
	if name == "" {
		return
	}
	if s.names == nil {
		s.names = map[string]*symbol{}
	}
	if sym == nil {
		sym = &symbol{}
	}
	s.names[name] = sym
}

func (s *scope) lookup(name string) *symbol {
	for ; s != nil; s = s.parent {
		if sym, ok := s.names[name]; ok {
			return sym
		}
	}
	return nil
}

// class is a class declaration or expression.
type class struct {
	name     string
	file     *file
	methods  map[string]*def
	fields   map[string]*symbol // this.x = new Y() / this.x = f
	heritage *node
	sc       *scope // the scope the class is declared in, for its extends clause
	outer    *class // the class `this` denotes around the declaration
	parent   *class
	resolved bool
	busy     bool
	proto    bool   // the instances of a constructor function (F.prototype.m = …)
	meta     *class // the class side: static methods and fields (nil for proto)
	metaOf   *class // for a class side, its class
	objOf    string // for `this` in an object's function, the object's qualified name
}

// def is one definition.
type def struct {
	sc      *scope // the scope the definition is declared in (for its return type)
	cls     *class // the class `this` denotes in its body
	idx     int
	name    string
	kind    task.Kind
	defN    *node // the node Def covers
	fnN     *node // the function-like node (parameters, body)
	docN    *node // the node whose preceding comment is the doc
	owner   *def  // enclosing definition
	file    *file
	id      string
	parent  string
	proto   *class // the instances `new F()` makes of a function definition F
	inner   *scope // the scope of its body
	this    *class // the class `this` denotes in its body
	docRet  string // the JSDoc @returns type
	viaThis bool   // defined by this.m = … in class code

	retBusy, retDone bool    // inferring the value it returns
	ret              *symbol // the value it returns, if all its returns agree
}

// callSite is a call or new expression waiting for resolution.
type callSite struct {
	n     *node
	owner *def // nil: module-level code
	sc    *scope
	cls   *class
}

// file is one parsed source file.
type file struct {
	path    string
	src     []byte
	root    *node
	top     *scope
	exports map[string]*symbol
	stars   []*file
	cjs     *symbol // module.exports = value
	defs    []*def
	byName  map[string][]*def
	calls   []callSite
	module  *def
	protos  map[string]*class  // constructor functions' instances by qualified name
	types   map[string]*symbol // JSDoc @typedef {import('./m').T} T
}

type analyzer struct {
	fe     *Frontend
	files  []*file
	byPath map[string]*file
	out    *callgraph.Analysis
}

// Analyze parses the JavaScript files, lists their definitions and resolves the calls it
// can (see the package documentation for the rules).
func (fe *Frontend) Analyze(ctx context.Context, files []callgraph.SourceFile) (*callgraph.Analysis, error) {
	var srcs []callgraph.SourceFile
	for _, sf := range files {
		if fe.Match(sf.Path) {
			srcs = append(srcs, sf)
		}
	}
	sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].Path < srcs[j].Path })
	out := make([]parsed, len(srcs))
	errs := make([]error, len(srcs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range srcs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			root, r, c, bad, err := fe.poolFor(srcs[i].Path).Parse(ctx, srcs[i].Src)
			out[i], errs[i] = parsed{root, r, c, bad}, err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("javascript: %s: %w", srcs[i].Path, err)
		}
	}
	a := &analyzer{fe: fe, byPath: map[string]*file{}, out: &callgraph.Analysis{}}
	for i, sf := range srcs {
		if out[i].bad {
			a.out.Errors = append(a.out.Errors, &callgraph.SyntaxError{
				Path: sf.Path, Line: out[i].row + 1, Column: out[i].col + 1, Msg: "syntax error"})
		}
		f := &file{path: sf.Path, src: sf.Src, root: out[i].root,
			exports: map[string]*symbol{}, byName: map[string][]*def{}}
		f.top = &scope{file: f}
		a.files = append(a.files, f)
		a.byPath[f.path] = f
	}
	for _, f := range a.files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("javascript: %w", err)
		}
		c := &collector{a: a, f: f}
		c.walk(f.root, ctxt{sc: f.top})
		a.number(f)
	}
	for _, f := range a.files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("javascript: %w", err)
		}
		for _, cs := range f.calls {
			a.resolve(f, cs)
		}
	}
	a.out.Unresolved = a.out.CallSites - a.out.Resolved
	return a.out, nil
}

type parsed struct {
	root     *node
	row, col int
	bad      bool
}

// number creates the file's definitions in source order, the module pseudo-definition
// first, and assigns IDs (with @line when a qualified name repeats in the file).
func (a *analyzer) number(f *file) {
	hasModuleCalls := false
	for _, cs := range f.calls {
		if cs.owner == nil {
			hasModuleCalls = true
			break
		}
	}
	if hasModuleCalls {
		f.module = &def{name: callgraph.ModuleName, kind: task.KindModule, file: f, defN: f.root}
		f.defs = append([]*def{f.module}, f.defs...)
	}
	sort.SliceStable(f.defs, func(i, j int) bool {
		if f.defs[i].kind == task.KindModule || f.defs[j].kind == task.KindModule {
			return f.defs[i].kind == task.KindModule && f.defs[j].kind != task.KindModule
		}
		return f.defs[i].defN.Start < f.defs[j].defN.Start
	})
	count := map[string]int{}
	for _, d := range f.defs {
		count[d.name]++
		count[d.name+"@"+strconv.Itoa(d.defN.Row+1)]++
	}
	for _, d := range f.defs {
		d.id = task.MakeID(f.path, d.name)
		if count[d.name] > 1 {
			at := "@" + strconv.Itoa(d.defN.Row+1)
			d.id += at
			if count[d.name+at] > 1 { // several on one line: add the column
				d.id += ":" + strconv.Itoa(d.defN.Col+1)
			}
		}
	}
	for _, d := range f.defs {
		if d.owner != nil {
			d.parent = d.owner.id
		}
		d.idx = len(a.out.Definitions)
		a.out.Definitions = append(a.out.Definitions, makeDef(f, d))
	}
}

// makeDef builds the exported definition with spans and metrics.
func makeDef(f *file, d *def) callgraph.Definition {
	fn := task.Function{ID: d.id, File: f.path, Name: d.name, Kind: d.kind, Language: languageOf(f.path), Parent: d.parent}
	if d.kind == task.KindModule {
		lines := strings.Count(string(f.src), "\n")
		if len(f.src) > 0 && f.src[len(f.src)-1] != '\n' {
			lines++
		}
		lines = max(lines, 1)
		whole := task.Span{Start: 0, End: len(f.src)}
		fn.Line, fn.EndLine, fn.DecoratorLine, fn.Def, fn.Body = 1, lines, 1, whole, whole
		return callgraph.Definition{Function: fn, Metrics: measure(f.root, nil, f.src, 0, lines-1)}
	}
	n := d.defN
	fn.Line, fn.EndLine, fn.DecoratorLine = n.Row+1, n.EndRow+1, n.Row+1
	fn.Def = task.Span{Start: n.Start, End: n.End}
	sigEnd := n.End
	if body := d.fnN.Child("body"); body != nil {
		fn.Body = task.Span{Start: body.Start, End: body.End}
		sigEnd = body.Start
		if p := d.fnN.Child("parameters"); p != nil {
			sigEnd = p.End
		} else if p := d.fnN.Child("parameter"); p != nil {
			sigEnd = p.End
		}
	}
	fn.Signature = task.Span{Start: n.Start, End: max(sigEnd, n.Start)}
	fn.Doc = docComment(d.docN)
	return callgraph.Definition{Function: fn, Metrics: measure(n, d.fnN, f.src, n.Row, n.EndRow)}
}

// docComment returns the comment directly above n (a JSDoc block or line comments).
func docComment(n *node) task.Span {
	p := n.Parent
	if p == nil {
		return task.Span{}
	}
	idx := -1
	for i, k := range p.Kids {
		if k == n {
			idx = i
		}
	}
	var first, last *node
	row := n.Row
	for i := idx - 1; i >= 0; i-- {
		k := p.Kids[i]
		if k.End == k.Start {
			continue
		}
		if k.Type != "comment" || k.EndRow < row-1 {
			break
		}
		if last == nil {
			last = k
		}
		first, row = k, k.Row
	}
	if first == nil {
		return task.Span{}
	}
	return task.Span{Start: first.Start, End: last.End}
}

// resolveModule maps an import specifier to an analysed file: relative specifiers only,
// tried as written, with each extension, and as a directory's index file.
func (a *analyzer) resolveModule(from *file, spec string) *file {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return nil
	}
	base := path.Join(path.Dir(from.path), spec)
	if f := a.byPath[base]; f != nil {
		return f
	}
	// TypeScript sources import their compiled names: './x.js' is './x.ts'.
	for js, ts := range map[string][]string{".js": {".ts", ".tsx"}, ".mjs": {".mts"}, ".cjs": {".cts"}, ".jsx": {".tsx"}} {
		if stem, ok := strings.CutSuffix(base, js); ok {
			for _, e := range ts {
				if f := a.byPath[stem+e]; f != nil {
					return f
				}
			}
		}
	}
	for _, e := range extensions {
		if f := a.byPath[base+e]; f != nil {
			return f
		}
	}
	for _, e := range extensions {
		if f := a.byPath[path.Join(base, "index"+e)]; f != nil {
			return f
		}
	}
	return nil
}

// stringValue returns the contents of a string literal node.
func stringValue(n *node, src []byte) (string, bool) {
	if n == nil || n.Type != "string" {
		return "", false
	}
	s := n.Text(src)
	if len(s) < 2 {
		return "", false
	}
	return s[1 : len(s)-1], true
}
