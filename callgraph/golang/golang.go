package golang

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	tsgo "github.com/smacker/go-tree-sitter/golang"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// Options configure the Go front end. The zero value resolves interface method calls by
// type flow (InterfacesTypeFlow). Whether test files are analysed is the caller's choice
// (callgraph.BuildOptions.SkipTests for Build): the front end analyses the files it is
// given.
type Options struct {
	// Interfaces selects how calls of interface methods are resolved; the zero value is
	// InterfacesTypeFlow.
	Interfaces InterfaceMode
	// ModulePath is the module path of the repository root, used when no go.mod file is
	// handed to Analyze. Without either, import paths are matched to directories by their
	// longest common suffix.
	ModulePath string
	// AllFiles analyses every .go file, whatever its build constraints. By default only
	// the files the go command would build on this machine are analysed (go/build's
	// default context: GOOS, GOARCH, cgo and the release tags honoured in //go:build
	// lines, _GOOS/_GOARCH name suffixes and import "C"), as golang.org/x/tools does:
	// otherwise a function kept out of this platform's build (a pure-Go fallback of an
	// assembly function, a _windows.go variant, a //go:build ignore program) would be a
	// node and a candidate that no test here can run.
	AllFiles bool
}

// InterfaceMode is a way of resolving calls of interface methods.
type InterfaceMode int

const (
	// InterfacesTypeFlow (the default) resolves a call x.M() through an interface to the
	// method M of each of the module's concrete types that can reach x by type flow, in
	// the spirit of variable type analysis (VTA): values of concrete types flow through
	// assignments, conversions, composite literals, parameters, results, struct fields,
	// package-level variables, slice/map/channel elements and type assertions into
	// interface-typed locations. See the package documentation for the rules.
	InterfacesTypeFlow InterfaceMode = iota
	// InterfacesNone leaves calls through interfaces unresolved (the most precise and the
	// least complete mode).
	InterfacesNone
	// InterfacesCHA expands a call of an interface method to every method of that name on
	// the module's named types whose syntactic method set covers the interface and whose
	// values the code creates (class-hierarchy analysis with a rapid-type-analysis filter,
	// without signature checks). It trades precision for recall.
	InterfacesCHA
)

// String returns "typeflow", "none" or "cha".
func (m InterfaceMode) String() string {
	switch m {
	case InterfacesTypeFlow:
		return "typeflow"
	case InterfacesNone:
		return "none"
	case InterfacesCHA:
		return "cha"
	}
	return "InterfaceMode(" + strconv.Itoa(int(m)) + ")"
}

// mode returns the effective interface mode.
func (o Options) mode() InterfaceMode { return o.Interfaces }

// Frontend is the Go language front end. It is safe for concurrent use.
type Frontend struct {
	opts    Options
	parsers *parserPool
	grammar *grammar
	// workers is how many files are resolved at once (0: GOMAXPROCS); 1 resolves them
	// one after the other, filling memos lazily as they are needed (see settle).
	workers int
}

// New returns a Go front end.
func New(opts Options) *Frontend {
	lang := tsgo.GetLanguage()
	return &Frontend{opts: opts, parsers: newParserPool(lang), grammar: newGrammar(lang)}
}

var _ callgraph.Language = (*Frontend)(nil)

// Name returns "go".
func (*Frontend) Name() string { return "go" }

// Match claims *.go files (_test.go files too: callgraph.Build leaves them out unless
// asked) and go.mod files, which tell the module path. Files under testdata or vendor directories are not claimed,
// as the go command ignores them.
func (fe *Frontend) Match(p string) bool {
	for _, el := range strings.Split(path.Dir(p), "/") {
		if el == "testdata" || el == "vendor" {
			return false
		}
	}
	base := path.Base(p)
	if base == "go.mod" {
		return true
	}
	if !strings.HasSuffix(base, ".go") || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
		return false
	}
	return true
}

// pkg is one package: the files of a directory with the same package clause.
type pkg struct {
	dir, name string
	files     []*file
	funcs     map[string][]*fn
	types     map[string]*typeDecl
	vars      map[string][]*varDecl
}

// file is one parsed source file.
type file struct {
	idx     int32 // position in analyzer.files
	path    string
	src     []byte
	root    *node // the outline: the pruned tree without function bodies (see tree.go)
	parsed  *parsedFile
	fns     []*fn // the file's functions and methods, in source order
	pkg     *pkg
	imports map[string]*imp
	dots    []*imp
	module  int // index of the module pseudo-definition, -1 when none
	// reindexed caches indexForm's decisions on the file's nodes: whether a type
	// instantiation is an index expression (the first answer stands, as the scope it was
	// asked in decides it). Only walkers of the file write it, and while files are
	// resolved in parallel only the file's own walk (see settle).
	reindexed map[nodeKey]bool
}

// imp is one import of a file; pkg is nil for packages outside the analysed files.
type imp struct {
	path string
	pkg  *pkg
}

// fn is a declared function or method.
type fn struct {
	id       string
	file     *file
	name     string
	recv     string // receiver type name, "" for functions
	decl     *node  // in the outline: without its body
	ord      int    // its position among the file's function and method declarations
	def      int    // index into Analysis.Definitions
	idx      int    // index into analyzer.fns
	tparams  map[string]bool
	qual     string // name, or recv.name for a method
	results  []*typ
	resolved bool
	params   []*typ // memo of paramInfo
	variadic bool
	paramsOK bool
	counts   *arity // memo of arity
}

// arity returns g's numbers of parameters and results (without their types).
func (g *fn) arity() arity {
	if g.counts == nil {
		g.counts = &arity{countParams(g.decl.Child("parameters")), countParams(g.decl.Child("result")), nil}
	}
	return *g.counts
}

// fits reports whether g's signature matches want: the same numbers of parameters and
// results and, where both sides' types are known, the same types.
func (g *fn) fits(want arity) bool {
	have := g.arity()
	if have.params != want.params || have.results != want.results {
		return false
	}
	if want.types == nil {
		return true
	}
	pt, _ := g.paramInfo()
	for i, t := range want.types.params {
		if i < len(pt) && !sameType(pt[i], t) {
			return false
		}
	}
	rt := g.resultTypes()
	for i, t := range want.types.results {
		if i < len(rt) && !sameType(rt[i], t) {
			return false
		}
	}
	return true
}

func (g *fn) resultTypes() []*typ {
	if !g.resolved {
		g.resolved = true
		g.results = g.file.resultTypes(g.decl.Child("result"), g.tparams)
	}
	return g.results
}

// varDecl is one package-level variable or constant.
type varDecl struct {
	idx   int // index into analyzer.vars
	file  *file
	spec  int // number of the var_spec (the const_spec that gives a constant its type and value) in file
	index int
	konst bool
	t     *typ
	done  bool
	busy  bool
	depth int32 // while busy: its place among the declarations being inferred (see inference)
}

// analyzer holds the state of one Analyze call.
type analyzer struct {
	fe    *Frontend
	files []*file
	pkgs  []*pkg // sorted by dir, name
	out   *callgraph.Analysis
	fns   []*fn // in definition order
	named []*typeDecl
	live  map[*typeDecl]bool // see liveTypes
	flow  *flowGraph         // the type-flow graph (InterfacesTypeFlow), else nil
	vars  []*varDecl         // the package-level variables and constants, in declaration order
	inf   inference          // the inference in progress of types and variables (see settle)
	// workers is how many files were resolved at once (see resolveAll).
	workers int
	// chaMemo and flowCHA remember the class-hierarchy expansions of interface methods
	// (InterfacesCHA's among the live types, and the type flow's callees): see memo.
	memoMu   sync.Mutex
	chaMemo  map[chaKey][]*fn
	flowCHA  map[chaKey][]*fn
	byMethod map[string][]*typeDecl // see typesWithMethod
}

// Analyze parses the Go files, lists their functions and methods, and resolves the calls
// it can (see the package documentation for the rules).
func (fe *Frontend) Analyze(ctx context.Context, files []callgraph.SourceFile) (*callgraph.Analysis, error) {
	a, err := fe.analyze(ctx, files)
	if err != nil {
		return nil, err
	}
	return a.out, nil
}

// analyze is Analyze, returning the analyzer.
func (fe *Frontend) analyze(ctx context.Context, files []callgraph.SourceFile) (*analyzer, error) {
	a, recs, err := fe.prepare(ctx, files)
	if err != nil {
		return nil, err
	}
	if err := a.resolve(ctx, recs); err != nil {
		return nil, err
	}
	return a, nil
}

// prepare parses the files, declares what they declare, lists the definitions and
// records the flows of package-level variables (returned by file, nil when empty).
func (fe *Frontend) prepare(ctx context.Context, files []callgraph.SourceFile) (*analyzer, []*flowRec, error) {
	var srcs []callgraph.SourceFile
	var mods []module
	var built *buildFilter
	if !fe.opts.AllFiles {
		built = newBuildFilter()
	}
	for _, sf := range files {
		if !fe.Match(sf.Path) {
			continue
		}
		if path.Base(sf.Path) == "go.mod" {
			if mp := repo.ParseGoMod(sf.Src).Path; mp != "" {
				mods = append(mods, module{dir: path.Dir(sf.Path), path: mp})
			}
			continue
		}
		if built != nil && !built.match(sf.Path, sf.Src) {
			continue
		}
		srcs = append(srcs, sf)
	}
	sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].Path < srcs[j].Path })
	if fe.opts.ModulePath != "" && !hasRootModule(mods) {
		mods = append(mods, module{dir: ".", path: fe.opts.ModulePath})
	}

	a := &analyzer{fe: fe, out: &callgraph.Analysis{}}
	parsed, err := fe.parseAll(ctx, srcs)
	if err != nil {
		return nil, nil, err
	}
	for i, sf := range srcs {
		p := parsed[i]
		if p.hasErr {
			a.out.Errors = append(a.out.Errors, &callgraph.SyntaxError{
				Path: sf.Path, Line: p.row + 1, Column: p.col + 1, Msg: "syntax error"})
		}
		a.files = append(a.files, &file{idx: int32(len(a.files)), path: sf.Path, src: sf.Src, root: p.outline, parsed: p, module: -1})
	}
	parsed = nil
	a.groupPackages()
	a.bindImports(mods)
	a.declare()
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("golang: %w", err)
	}
	a.inventory()
	if fe.opts.mode() == InterfacesCHA {
		a.liveTypes() // while every body can still be decoded
	}
	var recs []*flowRec
	if fe.opts.mode() == InterfacesTypeFlow {
		a.flow = newFlowGraph(len(a.named), len(a.fns))
		recs = make([]*flowRec, len(a.files))
		for _, f := range a.files {
			r := a.flow.newRec()
			a.globalFlows(f, r)
			a.flow.replay(r, 0)
			if r.litIdx != nil || r.bound != nil || r.callees != nil {
				recs[f.idx] = r
			}
		}
	}
	return a, recs, nil
}

// resolve resolves the calls of a prepared analyzer (recs are its files' records of
// global flows, see prepare) and finishes the type flow.
func (a *analyzer) resolve(ctx context.Context, recs []*flowRec) error {
	a.workers = a.fe.resolveWorkers()
	if a.workers > 1 && !a.settle() {
		a.workers = 1
	}
	if err := a.resolveAll(ctx, a.workers, recs); err != nil {
		return err
	}
	a.dropValues()
	if a.flow != nil {
		a.finishFlow()
	}
	a.out.Unresolved = a.out.CallSites - a.out.Resolved
	return nil
}

// parsedFile is what parsing keeps of a file: its first syntax error, its outline and
// its encoded function bodies (see tree.go), and what inventory needs of its
// declarations, measured on the whole tree.
type parsedFile struct {
	row, col int
	hasErr   bool
	outline  *node
	// bodies holds the encoded bodies of the function and method declarations, in
	// source order; bodyOf[k] is the index among them of the body of the k-th
	// declaration, -1 when it has none.
	bodies []cnode
	bodyOf []int
	lines  []uint32 // line starts, to decode
	// values holds the encoded specs of the package-level var and const declarations;
	// spec i is values[specAt[i]:specAt[i+1]]. valueDecls lists the declarations.
	values     []cnode
	specAt     []uint32
	valueDecls []valueDecl
	// defs[k] is the definition of the k-th declaration without its ID and Name; module
	// is the module pseudo-definition (nil when the file has no module-level calls).
	defs   []callgraph.Definition
	module *callgraph.Definition
	// fns lists the declarations with their IDs (see listFuncs), for inventory.
	fns []*fn
}

// extract measures a file's declarations on its whole tree and keeps its pruned outline
// and bodies.
func (fe *Frontend) extract(p *parsedFile, path string, src []byte, root *tsNode) {
	fe.extractStreamed(p, path, src, root, nil)
}

// extractStreamed is extract for a tree whose function bodies bodies streams (see
// astTreeFunc); with bodies nil, the tree is whole.
func (fe *Frontend) extractStreamed(p *parsedFile, path string, src []byte, root *tsNode, bodies *astBuilder) {
	isDecl := func(d *tsNode) bool {
		return d.Parent == root && (d.Type == "function_declaration" || d.Type == "method_declaration")
	}
	g := fe.grammar
	// The encodings are built in pooled scratch storage and copied out at their size
	// (the outline's is only decoded), rather than grown by appends.
	scratch, bodyScratch := getCnodes(), getCnodes()
	defer putCnodes(scratch)
	defer putCnodes(bodyScratch)
	// The bodies are encoded as the declarations are measured: a streamed body is
	// counted into its declaration's metrics and, when the file has module-level calls,
	// into the module's, which covers the whole file.
	var module *meter
	if hasModuleCalls(root) {
		module = newMeter(0, fileLines(src)-1)
	}
	bodyBuf := (*bodyScratch)[:0]
	nbodies := 0
	for _, d := range root.Kids {
		if !isDecl(d) {
			continue
		}
		body := d.Child("body")
		if body != nil {
			p.bodyOf = append(p.bodyOf, nbodies)
			nbodies++
		} else {
			p.bodyOf = append(p.bodyOf, -1)
		}
		streamed := false
		def := makeDef(path, src, d, "", "", d.Type == "method_declaration", func(mt *meter) {
			mt.walk(d, src, 0, func(n *tsNode) bool {
				if n != body || !bodies.left(n) {
					return false
				}
				meters := []*meter{mt}
				if module != nil {
					meters = append(meters, module)
				}
				bodyBuf, streamed = bodies.stream(n, bodyBuf, meters)
				return streamed
			})
		})
		p.defs = append(p.defs, def)
		if body != nil && !streamed {
			bodyBuf = g.encode(body, bodyBuf, nil)
		}
	}
	if module != nil {
		module.walk(root, src, 0, bodies.left)
		m := moduleDef(path, src, module.metrics())
		p.module = &m
	}
	if p.lines == nil {
		p.lines = lineStarts(src)
	}
	// Package-level variable and constant declarations stay in the outline as childless
	// stubs; their specs are encoded one by one and decoded when needed (valueSpecs,
	// spec), as the tables of a large repository are big and mostly read once.
	isValue := func(d *tsNode) bool { return d.Parent == root && isValueDecl(d.Type) }
	buf := g.encode(root, (*scratch)[:0], func(parent, kid *tsNode) bool {
		return kid.Field == "body" && isDecl(parent) || isValue(parent)
	})
	p.outline = g.decode(buf, p.lines)[0]
	buf = buf[:0]
	p.specAt = []uint32{0}
	for _, d := range root.Kids {
		if pruned(d) || !isValue(d) {
			continue
		}
		vd := valueDecl{start: uint32(d.Start), first: int32(len(p.specAt) - 1)}
		for _, s := range d.Kids {
			var specs []*tsNode
			switch s.Type {
			case "var_spec", "const_spec":
				specs = []*tsNode{s}
			case "var_spec_list":
				for _, k := range s.Kids {
					if k.Type == "var_spec" {
						specs = append(specs, k)
					}
				}
			}
			for _, sp := range specs {
				buf = g.encode(sp, buf, nil)
				p.specAt = append(p.specAt, uint32(len(buf)))
				vd.n++
			}
		}
		p.valueDecls = append(p.valueDecls, vd)
	}
	p.values = cloneCnodes(buf)
	*scratch = buf
	p.bodies = cloneCnodes(bodyBuf)
	*bodyScratch = bodyBuf
}

// cnodePool holds scratch storage for encodings (*[]cnode), see extract.
var cnodePool sync.Pool

// maxPooledCnodes bounds the scratch storage kept in cnodePool: a generated table's is
// left to the collector.
const maxPooledCnodes = 1 << 18

func getCnodes() *[]cnode {
	if s, ok := cnodePool.Get().(*[]cnode); ok {
		return s
	}
	s := make([]cnode, 0, 4096)
	return &s
}

func putCnodes(s *[]cnode) {
	if cap(*s) <= maxPooledCnodes {
		cnodePool.Put(s)
	}
}

// cloneCnodes copies an encoding out of scratch storage at its size (nil when empty).
func cloneCnodes(cs []cnode) []cnode {
	if len(cs) == 0 {
		return nil
	}
	return slices.Clone(cs)
}

func isValueDecl(typ string) bool { return typ == "var_declaration" || typ == "const_declaration" }

// dropValues lets the package-level variable and constant declarations go once every
// file is resolved: the type flow's propagation does not read syntax.
func (a *analyzer) dropValues() {
	for _, f := range a.files {
		f.parsed.values, f.parsed.specAt, f.parsed.lines = nil, nil, nil
	}
}

// valueDecl is a package-level var or const declaration of a parsed file: its specs are
// first, first+1, … first+n-1 in the file's spec numbering.
type valueDecl struct {
	start    uint32 // byte offset of the declaration
	first, n int32
}

// valueSpecs decodes the var_spec or const_spec nodes of a package-level declaration d
// (a stub of f's outline), and returns them with the number of the first.
func (f *file) valueSpecs(g *grammar, d *node) ([]*node, int) {
	p := f.parsed
	k, ok := slices.BinarySearchFunc(p.valueDecls, d.Start, func(vd valueDecl, s uint32) int { return cmp.Compare(vd.start, s) })
	if !ok {
		return nil, 0
	}
	vd := p.valueDecls[k]
	if p.specAt == nil {
		panic("golang: declarations read after dropValues")
	}
	return g.decode(p.values[p.specAt[vd.first]:p.specAt[vd.first+vd.n]], p.lines), int(vd.first)
}

// valueDeclSpecs returns the number of the first spec of a package-level declaration d
// (a stub of f's outline) and the number of its specs (0 when it has none).
func (f *file) valueDeclSpecs(d *node) (first, n int) {
	p := f.parsed
	k, ok := slices.BinarySearchFunc(p.valueDecls, d.Start, func(vd valueDecl, s uint32) int { return cmp.Compare(vd.start, s) })
	if !ok {
		return 0, 0
	}
	if p.specAt == nil {
		panic("golang: declarations read after dropValues")
	}
	return int(p.valueDecls[k].first), int(p.valueDecls[k].n)
}

// specKids calls visit on the encodings of the children of spec i, in order: the
// children decoding gives the spec's node, read without decoding it.
func (p *parsedFile) specKids(i int, visit func(c *cnode)) {
	cs := p.values[p.specAt[i]:p.specAt[i+1]]
	at := 1
	for range cs[0].nkids {
		visit(&cs[at])
		at = skipCnode(cs, at)
	}
}

// skipCnode returns the index in cs, an encoding in pre-order, just past the subtree of
// the node at i.
func skipCnode(cs []cnode, i int) int {
	for pending := 1; pending > 0; pending-- {
		pending += int(cs[i].nkids)
		i++
	}
	return i
}

// spec decodes spec number i of f.
func (f *file) spec(g *grammar, i int) *node {
	p := f.parsed
	if p.specAt == nil {
		panic("golang: declarations read after dropValues")
	}
	return g.decode(p.values[p.specAt[i]:p.specAt[i+1]], p.lines)[0]
}

// bodies decodes the bodies of a file's declarations: the result's k-th entry is the
// body of the k-th declaration, nil when it has none.
func (f *file) bodies(g *grammar) []*node { return f.bodiesInto(g, nil) }

// bodiesInto is bodies decoded into sc's storage (see decodeInto).
func (f *file) bodiesInto(g *grammar, sc *decodeScratch) []*node {
	roots := g.decodeInto(f.parsed.bodies, f.parsed.lines, sc)
	out := make([]*node, len(f.parsed.bodyOf))
	for k, b := range f.parsed.bodyOf {
		if b >= 0 {
			out[k] = roots[b]
		}
	}
	return out
}

// parseAll parses the files in parallel, bounded by GOMAXPROCS.
func (fe *Frontend) parseAll(ctx context.Context, srcs []callgraph.SourceFile) ([]*parsedFile, error) {
	out := make([]*parsedFile, len(srcs))
	errs := make([]error, len(srcs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range srcs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// A file go/parser accepts is parsed by it (see astfront.go); the others,
			// and the few whose constructs the rewrite does not map, by tree-sitter.
			// extract keeps nothing of either tree: its storage serves the next parse.
			// The line starts serve the parse and are kept for decoding.
			lines := lineStarts(srcs[i].Src)
			var p *parsedFile
			if fe.grammar.astTreeFunc(srcs[i].Src, lines, func(root *tsNode, bodies *astBuilder) error {
				p = &parsedFile{lines: lines}
				fe.extractStreamed(p, srcs[i].Path, srcs[i].Src, root, bodies)
				return nil
			}) == nil {
				p.listFuncs(srcs[i].Path, srcs[i].Src)
				out[i] = p
				return
			}
			errs[i] = fe.parsers.ParseFunc(ctx, srcs[i].Src, func(root *tsNode, r, c int, bad bool) {
				p := &parsedFile{row: r, col: c, hasErr: bad, lines: lines}
				fe.extract(p, srcs[i].Path, srcs[i].Src, root)
				p.listFuncs(srcs[i].Path, srcs[i].Src)
				out[i] = p
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("golang: %s: %w", srcs[i].Path, err)
		}
	}
	return out, nil
}

// module is a go.mod file: the directory it sits in and the module path it declares.
type module struct{ dir, path string }

func hasRootModule(mods []module) bool {
	for _, m := range mods {
		if m.dir == "." {
			return true
		}
	}
	return false
}

// packageName returns a file's package clause name.
func packageName(f *file) string {
	if pc := f.root.FirstOfType("package_clause"); pc != nil {
		if id := pc.FirstOfType("package_identifier"); id != nil {
			return id.Text(f.src)
		}
	}
	return ""
}

func (a *analyzer) groupPackages() {
	byKey := map[string]*pkg{}
	for _, f := range a.files {
		dir, name := path.Dir(f.path), packageName(f)
		key := dir + "\x00" + name
		p := byKey[key]
		if p == nil {
			p = &pkg{dir: dir, name: name, funcs: map[string][]*fn{}, types: map[string]*typeDecl{}, vars: map[string][]*varDecl{}}
			byKey[key] = p
			a.pkgs = append(a.pkgs, p)
		}
		p.files = append(p.files, f)
		f.pkg = p
	}
	sort.Slice(a.pkgs, func(i, j int) bool {
		if a.pkgs[i].dir != a.pkgs[j].dir {
			return a.pkgs[i].dir < a.pkgs[j].dir
		}
		return a.pkgs[i].name < a.pkgs[j].name
	})
}

// bindImports maps each file's imports to the module's packages.
func (a *analyzer) bindImports(mods []module) {
	// The importable package of each directory: not an external test package.
	byDir := map[string]*pkg{}
	for _, p := range a.pkgs {
		if strings.HasSuffix(p.name, "_test") {
			continue
		}
		if q := byDir[p.dir]; q == nil || pkgRank(p) > pkgRank(q) {
			byDir[p.dir] = p
		}
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	sort.SliceStable(mods, func(i, j int) bool { return len(mods[i].path) > len(mods[j].path) })
	lookup := func(ip string) *pkg {
		for _, m := range mods {
			if ip == m.path || strings.HasPrefix(ip, m.path+"/") {
				return byDir[path.Clean(path.Join(m.dir, strings.TrimPrefix(ip, m.path)))]
			}
		}
		if len(mods) > 0 {
			return nil
		}
		// No module information: the directory sharing the longest suffix with the path.
		var best *pkg
		bestLen := 0
		for _, d := range dirs {
			if n := commonSuffixElems(d, ip); n > bestLen {
				best, bestLen = byDir[d], n
			}
		}
		return best
	}
	for _, f := range a.files {
		f.imports = map[string]*imp{}
		for _, decl := range f.root.Kids {
			if decl.Type != "import_declaration" {
				continue
			}
			var specs []*node
			for _, k := range decl.NamedKids() {
				if k.Type == "import_spec" {
					specs = append(specs, k)
				} else if k.Type == "import_spec_list" {
					for _, s := range k.NamedKids() {
						if s.Type == "import_spec" {
							specs = append(specs, s)
						}
					}
				}
			}
			for _, s := range specs {
				ip, err := strconv.Unquote(s.Child("path").Text(f.src))
				if err != nil {
					continue
				}
				im := &imp{path: ip, pkg: lookup(ip)}
				name := ""
				if nm := s.Child("name"); nm != nil {
					name = nm.Text(f.src)
				}
				switch {
				case name == "_":
				case name == ".":
					f.dots = append(f.dots, im)
				case name != "":
					f.imports[name] = im
				case im.pkg != nil:
					f.imports[im.pkg.name] = im
				default:
					f.imports[guessPackageName(ip)] = im
				}
			}
		}
	}
}

// pkgRank prefers a directory's package that is not main and has more files.
func pkgRank(p *pkg) int {
	r := len(p.files)
	if p.name != "main" {
		r += 1 << 20
	}
	return r
}

// guessPackageName is the conventional package name of an import path outside the module:
// its last element, without a major-version suffix or a "go-" prefix / ".go" suffix.
func guessPackageName(ip string) string {
	els := strings.Split(ip, "/")
	last := els[len(els)-1]
	if len(els) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = els[len(els)-2]
	}
	last = strings.TrimSuffix(strings.TrimPrefix(last, "go-"), ".go")
	return strings.ReplaceAll(last, "-", "_")
}

func commonSuffixElems(dir, ip string) int {
	if dir == "." {
		return 0
	}
	d, p := strings.Split(dir, "/"), strings.Split(ip, "/")
	n := 0
	for n < len(d) && n < len(p) && d[len(d)-1-n] == p[len(p)-1-n] {
		n++
	}
	return n
}

// declare records each package's functions, methods, types and variables.
func (a *analyzer) declare() {
	for _, p := range a.pkgs {
		for _, f := range p.files {
			for _, d := range f.root.Kids {
				switch d.Type {
				case "type_declaration":
					for _, s := range d.NamedKids() {
						if s.Type != "type_spec" && s.Type != "type_alias" {
							continue
						}
						name := s.Child("name").Text(f.src)
						if _, dup := p.types[name]; dup {
							continue
						}
						td := &typeDecl{idx: len(a.named), name: name, pkg: p, file: f, spec: s, methods: map[string][]*fn{}, inf: &a.inf,
							tparams: typeParams(s.Child("type_parameters"), f.src, nil)}
						p.types[name] = td
						a.named = append(a.named, td)
					}
				case "var_declaration", "const_declaration":
					// Constants are recorded with the variables (their types matter when a
					// typed constant is converted to an interface or has methods called on
					// it). A spec without type and values repeats the previous one. The
					// specs are read in their encoding (see specKids), not decoded.
					konst := d.Type == "const_declaration"
					first, n := f.valueDeclSpecs(d)
					prev := -1
					for k := range n {
						src := first + k
						if konst {
							bare := true
							f.parsed.specKids(src, func(c *cnode) {
								if fl := a.fe.grammar.fields[c.field]; fl == "type" || fl == "value" {
									bare = false
								}
							})
							if bare && prev >= 0 {
								src = prev
							} else {
								prev = src
							}
						}
						i := 0
						f.parsed.specKids(first+k, func(c *cnode) {
							if a.fe.grammar.fields[c.field] != "name" {
								return
							}
							name := string(f.src[c.start:c.end])
							v := &varDecl{idx: len(a.vars), file: f, spec: src, index: i, konst: konst}
							p.vars[name] = append(p.vars[name], v)
							a.vars = append(a.vars, v)
							i++
						})
					}
				}
			}
		}
	}
}

func varSpecs(d *node) []*node {
	var out []*node
	for _, k := range d.NamedKids() {
		switch k.Type {
		case "var_spec":
			out = append(out, k)
		case "var_spec_list":
			for _, s := range k.NamedKids() {
				if s.Type == "var_spec" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// inventory creates the definitions, in file order then source order, with their IDs,
// spans and metrics.
func (a *analyzer) inventory() {
	// The definitions and functions are counted first: a Definition is large to copy
	// as a slice grows.
	ndefs, nfns := 0, 0
	for _, f := range a.files {
		nfns += len(f.parsed.fns)
		if f.parsed.module != nil {
			ndefs++
		}
	}
	a.out.Definitions = slices.Grow(a.out.Definitions, ndefs+nfns)
	a.fns = slices.Grow(a.fns, nfns)
	for _, f := range a.files {
		if m := f.parsed.module; m != nil {
			f.module = len(a.out.Definitions)
			a.out.Definitions = append(a.out.Definitions, *m)
		}
		for _, g := range f.parsed.fns {
			g.file = f
			g.def, g.idx = len(a.out.Definitions), len(a.fns)
			def := f.parsed.defs[g.ord]
			def.ID, def.Name = g.id, g.qual
			a.out.Definitions = append(a.out.Definitions, def)
			a.fns = append(a.fns, g)
			f.fns = append(f.fns, g)
			if g.recv == "" {
				if g.name != "init" && g.name != "_" {
					f.pkg.funcs[g.name] = append(f.pkg.funcs[g.name], g)
				}
				continue
			}
			if td := f.pkg.types[g.recv]; td != nil {
				td.methods[g.name] = append(td.methods[g.name], g)
			}
		}
		f.parsed.fns = nil
	}
}

// listFuncs lists the function and method declarations of a parsed file, the file at
// path, with their IDs (see inventory, which files them in order): it reads the file's
// syntax only, so the parse's workers run it.
func (p *parsedFile) listFuncs(path string, src []byte) {
	var count map[string]int
	ord := -1
	for _, d := range p.outline.Kids {
		if d.Type != "function_declaration" && d.Type != "method_declaration" {
			continue
		}
		ord++
		nameNode := d.Child("name")
		if nameNode == nil || nameNode.Bad || nameNode.End == nameNode.Start {
			continue
		}
		g := &fn{name: nameNode.Text(src), decl: d, ord: ord}
		g.tparams = typeParams(d.Child("type_parameters"), src, nil)
		g.qual = g.name
		if d.Type == "method_declaration" {
			recvName, recvParams := receiverType(d.Child("receiver"), src)
			if recvName == "" {
				continue
			}
			g.recv = recvName
			g.qual = recvName + "." + g.name
			for _, tp := range recvParams {
				if g.tparams == nil {
					g.tparams = map[string]bool{}
				}
				g.tparams[tp] = true
			}
		}
		if count == nil {
			count = map[string]int{}
		}
		count[g.qual]++
		count[g.qual+"@"+strconv.Itoa(int(d.Row)+1)]++
		p.fns = append(p.fns, g)
	}
	for _, g := range p.fns {
		id := task.MakeID(path, g.qual)
		if count[g.qual] > 1 {
			at := "@" + strconv.Itoa(int(g.decl.Row)+1)
			id += at
			if count[g.qual+at] > 1 { // several on one line: add the column
				id += ":" + strconv.Itoa(int(g.decl.Col)+1)
			}
		}
		g.id = id
	}
}

// receiverType returns the receiver's base type name ((*T), (T), T[K] and *T[K] all give
// T) and the names of its type parameters.
func receiverType(recv *node, src []byte) (string, []string) {
	if recv == nil {
		return "", nil
	}
	var pd *node
	for _, k := range recv.NamedKids() {
		if k.Type == "parameter_declaration" {
			pd = k
			break
		}
	}
	if pd == nil {
		return "", nil
	}
	t := pd.Child("type")
	for t != nil && (t.Type == "pointer_type" || t.Type == "parenthesized_type") {
		t = lastNamed(t)
	}
	if t == nil {
		return "", nil
	}
	var params []string
	if t.Type == "generic_type" {
		if args := t.Child("type_arguments"); args != nil {
			for _, e := range args.NamedKids() {
				params = append(params, strings.TrimSpace(e.Text(src)))
			}
		}
		t = t.Child("type")
	}
	if t == nil || t.Type != "type_identifier" {
		return "", nil
	}
	return t.Text(src), params
}

// hasModuleCalls reports whether package-level variable initialisers contain a call.
func hasModuleCalls(root *tsNode) bool {
	for _, d := range root.Kids {
		if d.Type == "var_declaration" && containsCall(d) {
			return true
		}
	}
	return false
}

func containsCall(n *tsNode) bool {
	if n.Type == "call_expression" {
		return true
	}
	for _, k := range n.Kids {
		if containsCall(k) {
			return true
		}
	}
	return false
}

// moduleDef is a file's pseudo-definition: Def and Body cover the whole file, whose
// metrics are m.
func moduleDef(path string, src []byte, m callgraph.Metrics) callgraph.Definition {
	lines := fileLines(src)
	whole := task.Span{Start: 0, End: len(src)}
	fn := task.Function{
		ID: task.MakeID(path, callgraph.ModuleName), File: path, Name: callgraph.ModuleName,
		Kind: task.KindModule, Language: "go", Line: 1, EndLine: lines, DecoratorLine: 1,
		Def: whole, Body: whole,
	}
	return callgraph.Definition{Function: fn, Metrics: m}
}

// fileLines is the number of lines of a file (at least 1; a last line without a newline
// counts).
func fileLines(src []byte) int {
	lines := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		lines++
	}
	return max(lines, 1)
}

// makeDef builds a function or method definition with its spans and metrics; count,
// when not nil, counts the metrics of d instead of measure (see extract).
func makeDef(path string, src []byte, d *tsNode, id, qual string, method bool, count func(*meter)) callgraph.Definition {
	kind := task.KindFunction
	if method {
		kind = task.KindMethod
	}
	fn := task.Function{
		ID: id, File: path, Name: qual, Kind: kind, Language: "go",
		Line: d.Row + 1, EndLine: d.EndRow + 1, DecoratorLine: d.Row + 1,
		Def: task.Span{Start: d.Start, End: d.End},
	}
	body := d.Child("body")
	sigEnd := d.End
	if body != nil {
		fn.Body = task.Span{Start: body.Start, End: body.End}
		sigEnd = body.Start
		// End the signature at the last token before the body.
		for _, k := range d.Kids {
			if k == body {
				break
			}
			if k.End > k.Start {
				sigEnd = k.End
			}
		}
	}
	fn.Signature = task.Span{Start: d.Start, End: sigEnd}
	fn.Doc = docComment(d)
	if count == nil {
		return callgraph.Definition{Function: fn, Metrics: measure(d, src, d.Row, d.EndRow)}
	}
	mt := newMeter(d.Row, d.EndRow)
	count(mt)
	return callgraph.Definition{Function: fn, Metrics: mt.metrics()}
}

// docComment returns the span of the comment lines directly above a declaration.
func docComment(d *tsNode) task.Span {
	parent := d.Parent
	idx := -1
	for i, k := range parent.Kids {
		if k == d {
			idx = i
			break
		}
	}
	var first, last *tsNode
	row := d.Row
	for i := idx - 1; i >= 0; i-- {
		k := parent.Kids[i]
		if k.Type == "\n" || (k.End == k.Start) {
			continue
		}
		if k.Type != "comment" || k.EndRow != row-1 {
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

// lineOf returns the 1-based line of a node.
func lineOf(n *node) int { return int(n.Row) + 1 }
