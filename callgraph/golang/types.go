package golang

import "strings"

// kind classifies a syntactic type.
type kind int

const (
	tNamed  kind = iota // a defined or builtin type name
	tPtr                // *elem
	tSlice              // []elem or [n]elem
	tMap                // map[key]elem
	tChan               // chan elem
	tFunc               // func(...) results
	tStruct             // struct{fields}
	tIface              // interface{methods; embeds}
)

// typ is a type as far as syntax tells it. Types the front end cannot determine are nil.
type typ struct {
	kind    kind
	decl    *typeDecl        // tNamed: the module's declaration, nil for builtin and external types
	ext     string           // tNamed outside the module: "import/path.Name", or the builtin's name
	elem    *typ             // tPtr, tSlice, tMap (value), tChan
	key     *typ             // tMap
	results []*typ           // tFunc
	params  []*typ           // tFunc (a variadic parameter is a slice)
	fields  []field          // tStruct
	methods []string         // tIface: the method names written in the literal
	embeds  []*typ           // tIface: embedded interfaces
	arity   map[string]arity // tIface: the methods' parameter and result counts and types
}

// arity is the number of parameters and results of a signature, with their syntactic
// types when known (interface methods declared in the module).
type arity struct {
	params, results int
	types           *sigTypes
}

// sigTypes are the parameter and result types of a signature (a variadic parameter is a
// slice); unknown types are nil.
type sigTypes struct{ params, results []*typ }

// countParams counts the parameters of a parameter_list (or a single result type).
func countParams(n *node) int {
	if n == nil {
		return 0
	}
	if n.Type != "parameter_list" {
		return 1
	}
	c := 0
	for _, pd := range n.NamedKids() {
		switch pd.Type {
		case "parameter_declaration":
			c += max(1, len(pd.Children("name")))
		case "variadic_parameter_declaration":
			c++
		}
	}
	return c
}

type field struct {
	name     string
	t        *typ
	embedded bool
}

// typeDecl is a named type declared at package level in the module.
type typeDecl struct {
	idx     int // index in analyzer.named
	name    string
	pkg     *pkg
	file    *file
	spec    *node // the type_spec or type_alias
	tparams map[string]bool
	methods map[string][]*fn // declared methods by name (several when build variants repeat one)

	under    *typ // the declared type expression, resolved lazily
	resolved bool
	busy     bool
	depth    int32      // while busy: its place among the declarations being inferred
	inf      *inference // the analyzer's (see inference)

	mset     map[string][]*fn // method set with promotions, for CHA (lazily)
	msetDone bool
}

// underlying returns the type the declaration names, following defined types and aliases
// declared in the module to a non-named type when possible.
func (d *typeDecl) underlying() *typ {
	if d.resolved {
		return d.under
	}
	if d.busy { // cyclic declaration (invalid code)
		d.inf.cut(d.depth)
		return nil
	}
	d.busy = true
	d.depth = d.inf.enter()
	t := d.file.typeExpr(d.spec.Child("type"), d.tparams)
	if t != nil && t.kind == tNamed && t.decl != nil {
		if u := t.decl.underlying(); u != nil && u.kind != tNamed {
			t = u
		}
	}
	d.under, d.resolved, d.busy = t, true, false
	d.inf.leave()
	return t
}

// isIface reports whether the declaration names an interface type.
func (d *typeDecl) isIface() bool {
	u := d.underlying()
	return u != nil && u.kind == tIface
}

func named(d *typeDecl) *typ { return &typ{kind: tNamed, decl: d} }

func ptrTo(t *typ) *typ {
	if t == nil {
		return nil
	}
	return &typ{kind: tPtr, elem: t}
}

// deref strips one level of pointer.
func deref(t *typ) *typ {
	if t != nil && t.kind == tPtr {
		return t.elem
	}
	return t
}

// builtinTypes are the predeclared type names; a conversion to one of them is not a call
// of a module function.
var builtinTypes = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true,
	"float32": true, "float64": true, "int": true, "int8": true, "int16": true, "int32": true,
	"int64": true, "rune": true, "string": true, "uint": true, "uint8": true, "uint16": true,
	"uint32": true, "uint64": true, "uintptr": true, "any": true, "comparable": true,
}

// knownIfaces lists the method sets of common standard-library interfaces, keyed by
// "import/path.Name", so interface calls through them can be expanded under Options.CHA.
// The method sets of other interfaces declared outside the module are unknown, and calls
// through them stay unresolved.
var knownIfaces = map[string][]string{
	"error":                      {"Error"},
	"fmt.Stringer":               {"String"},
	"fmt.GoStringer":             {"GoString"},
	"fmt.Formatter":              {"Format"},
	"io.Reader":                  {"Read"},
	"io.Writer":                  {"Write"},
	"io.Closer":                  {"Close"},
	"io.ReadWriter":              {"Read", "Write"},
	"io.ReadCloser":              {"Close", "Read"},
	"io.WriteCloser":             {"Close", "Write"},
	"io.ReadWriteCloser":         {"Close", "Read", "Write"},
	"io.ByteReader":              {"ReadByte"},
	"io.ByteWriter":              {"WriteByte"},
	"io.RuneReader":              {"ReadRune"},
	"io.StringWriter":            {"WriteString"},
	"sort.Interface":             {"Len", "Less", "Swap"},
	"container/heap.Interface":   {"Len", "Less", "Pop", "Push", "Swap"},
	"encoding.TextMarshaler":     {"MarshalText"},
	"encoding.TextUnmarshaler":   {"UnmarshalText"},
	"encoding.BinaryMarshaler":   {"MarshalBinary"},
	"encoding.BinaryUnmarshaler": {"UnmarshalBinary"},
	"encoding/json.Marshaler":    {"MarshalJSON"},
	"encoding/json.Unmarshaler":  {"UnmarshalJSON"},
	"math/rand.Source":           {"Int63", "Seed"},
	"hash.Hash":                  {"BlockSize", "Reset", "Size", "Sum", "Write"},
	"context.Context":            {"Deadline", "Done", "Err", "Value"},
	"flag.Value":                 {"Set", "String"},
	"database/sql/driver.Valuer": {"Value"},
	"net/http.Handler":           {"ServeHTTP"},
	"go/ast.Node":                {"End", "Pos"},
	"math/rand/v2.Source":        {"Uint64"},
	"encoding/xml.Marshaler":     {"MarshalXML"},
	"encoding/xml.Unmarshaler":   {"UnmarshalXML"},
	"encoding/gob.GobEncoder":    {"GobEncode"},
	"encoding/gob.GobDecoder":    {"GobDecode"},
	"image/color.Color":          {"RGBA"},
	"image.Image":                {"At", "Bounds", "ColorModel"},
	"sync.Locker":                {"Lock", "Unlock"},
	"runtime.Error":              {"Error", "RuntimeError"},
	"io/fs.FileInfo":             {"IsDir", "ModTime", "Mode", "Name", "Size", "Sys"},
	"io.Seeker":                  {"Seek"},
	"io.ReaderAt":                {"ReadAt"},
	"io.WriterTo":                {"WriteTo"},
	"io.ReaderFrom":              {"ReadFrom"},
	"net.Conn":                   {"Close", "LocalAddr", "Read", "RemoteAddr", "SetDeadline", "SetReadDeadline", "SetWriteDeadline", "Write"},
}

// knownArity gives the parameter and result counts of the knownIfaces methods, keyed by
// method name (the standard library uses each of these names with one shape).
var knownArity = map[string]arity{
	"Error": {0, 1, nil}, "String": {0, 1, nil}, "GoString": {0, 1, nil}, "Format": {2, 0, nil},
	"Read": {1, 2, nil}, "Write": {1, 2, nil}, "Close": {0, 1, nil}, "ReadByte": {0, 2, nil}, "WriteByte": {1, 1, nil},
	"ReadRune": {0, 3, nil}, "WriteString": {1, 2, nil}, "Len": {0, 1, nil}, "Less": {2, 1, nil}, "Swap": {2, 0, nil},
	"Push": {1, 0, nil}, "Pop": {0, 1, nil}, "MarshalText": {0, 2, nil}, "UnmarshalText": {1, 1, nil},
	"MarshalBinary": {0, 2, nil}, "UnmarshalBinary": {1, 1, nil}, "MarshalJSON": {0, 2, nil},
	"UnmarshalJSON": {1, 1, nil}, "Seek": {2, 2, nil}, "ReadAt": {2, 2, nil}, "WriteTo": {1, 2, nil},
	"ReadFrom": {1, 2, nil}, "Lock": {0, 0, nil}, "Unlock": {0, 0, nil}, "ServeHTTP": {2, 0, nil},
	"Deadline": {0, 2, nil}, "Done": {0, 1, nil}, "Err": {0, 1, nil}, "Value": {1, 1, nil},
}

// typeExpr converts a type expression written in f to a typ. Names in tparams are type
// parameters (their types are unknown).
func (f *file) typeExpr(n *node, tparams map[string]bool) *typ {
	if n == nil {
		return nil
	}
	switch n.Type {
	case "type_identifier", "identifier":
		name := n.Text(f.src)
		if tparams[name] {
			return nil
		}
		if d := f.pkg.types[name]; d != nil {
			return named(d)
		}
		for _, im := range f.dots {
			if im.pkg != nil {
				if d := im.pkg.types[name]; d != nil {
					return named(d)
				}
			}
		}
		if builtinTypes[name] {
			return &typ{kind: tNamed, ext: name}
		}
		return nil
	case "qualified_type":
		im := f.imports[n.Child("package").Text(f.src)]
		name := n.Child("name").Text(f.src)
		return f.importedType(im, name)
	case "selector_expression": // pkg.T written in expression position
		op := n.Child("operand")
		if op == nil || op.Type != "identifier" {
			return nil
		}
		im := f.imports[op.Text(f.src)]
		return f.importedType(im, n.Child("field").Text(f.src))
	case "pointer_type":
		return ptrTo(f.typeExpr(lastNamed(n), tparams))
	case "generic_type":
		return f.typeExpr(n.Child("type"), tparams)
	case "parenthesized_type", "type_elem", "type_constraint":
		return f.typeExpr(lastNamed(n), tparams)
	case "slice_type", "array_type", "implicit_length_array_type":
		if e := f.typeExpr(n.Child("element"), tparams); e != nil {
			return &typ{kind: tSlice, elem: e}
		}
		return &typ{kind: tSlice}
	case "map_type":
		return &typ{kind: tMap, key: f.typeExpr(n.Child("key"), tparams), elem: f.typeExpr(n.Child("value"), tparams)}
	case "channel_type":
		return &typ{kind: tChan, elem: f.typeExpr(n.Child("value"), tparams)}
	case "function_type":
		return &typ{kind: tFunc, results: f.resultTypes(n.Child("result"), tparams),
			params: f.paramTypes(n.Child("parameters"), tparams)}
	case "struct_type":
		return &typ{kind: tStruct, fields: f.structFields(n, tparams)}
	case "interface_type":
		t := &typ{kind: tIface}
		for _, k := range n.Kids {
			switch k.Type {
			case "method_elem", "method_spec":
				name := k.Child("name").Text(f.src)
				t.methods = append(t.methods, name)
				if t.arity == nil {
					t.arity = map[string]arity{}
				}
				t.arity[name] = arity{countParams(k.Child("parameters")), countParams(k.Child("result")),
					&sigTypes{f.paramTypes(k.Child("parameters"), tparams), f.resultTypes(k.Child("result"), tparams)}}
			case "type_elem", "constraint_elem", "qualified_type", "type_identifier":
				if e := f.typeExpr(k, tparams); e != nil {
					t.embeds = append(t.embeds, e)
				}
			}
		}
		return t
	}
	return nil
}

func (f *file) importedType(im *imp, name string) *typ {
	if im == nil {
		return nil
	}
	if im.pkg != nil {
		if d := im.pkg.types[name]; d != nil {
			return named(d)
		}
		return nil
	}
	return &typ{kind: tNamed, ext: im.path + "." + name}
}

// lastNamed returns the last named child of n.
func lastNamed(n *node) *node {
	for i := len(n.Kids) - 1; i >= 0; i-- {
		if n.Kids[i].Named && n.Kids[i].Type != "comment" {
			return n.Kids[i]
		}
	}
	return nil
}

// structFields lists a struct type's fields; an embedded field is named by its type name.
func (f *file) structFields(n *node, tparams map[string]bool) []field {
	list := n.FirstOfType("field_declaration_list")
	var out []field
	for _, fd := range list.NamedKids() {
		if fd.Type != "field_declaration" {
			continue
		}
		t := f.typeExpr(fd.Child("type"), tparams)
		names := fd.Children("name")
		if len(names) == 0 { // embedded
			if fd.FirstOfType("*") != nil {
				t = ptrTo(t)
			}
			out = append(out, field{name: embeddedName(fd.Child("type"), f.src), t: t, embedded: true})
			continue
		}
		for _, nm := range names {
			out = append(out, field{name: nm.Text(f.src), t: t})
		}
	}
	return out
}

// embeddedName is the field name of an embedded type: its type name without package or
// type arguments.
func embeddedName(n *node, src []byte) string {
	s := n.Text(src)
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimPrefix(s, "*")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// paramTypes lists the types of a parameter_list by position (a variadic parameter is a
// slice of its element type).
func (f *file) paramTypes(list *node, tparams map[string]bool) []*typ {
	ts, _ := f.params(list, tparams)
	return ts
}

// params is paramTypes that also reports whether the last parameter is variadic.
func (f *file) params(list *node, tparams map[string]bool) (ts []*typ, variadic bool) {
	if list == nil {
		return nil, false
	}
	for _, pd := range list.NamedKids() {
		switch pd.Type {
		case "parameter_declaration":
			t := f.typeExpr(pd.Child("type"), tparams)
			for range max(1, len(pd.Children("name"))) {
				ts = append(ts, t)
			}
		case "variadic_parameter_declaration":
			ts = append(ts, &typ{kind: tSlice, elem: f.typeExpr(pd.Child("type"), tparams)})
			variadic = true
		}
	}
	return ts, variadic
}

// sameType reports whether two syntactic types may be identical: they are unless both
// are fully known and spelled differently.
func sameType(a, b *typ) bool {
	ka, kb := typeKey(a), typeKey(b)
	return ka == "" || kb == "" || ka == kb
}

// resultTypes lists a function's result types: one per name of a named result list.
func (f *file) resultTypes(n *node, tparams map[string]bool) []*typ {
	if n == nil {
		return nil
	}
	if n.Type != "parameter_list" {
		return []*typ{f.typeExpr(n, tparams)}
	}
	var out []*typ
	for _, pd := range n.NamedKids() {
		if pd.Type != "parameter_declaration" && pd.Type != "variadic_parameter_declaration" {
			continue
		}
		t := f.typeExpr(pd.Child("type"), tparams)
		if k := len(pd.Children("name")); k > 1 {
			for range k {
				out = append(out, t)
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

// typeParams returns the names of a type_parameter_list.
func typeParams(n *node, src []byte, into map[string]bool) map[string]bool {
	if n == nil {
		return into
	}
	if into == nil {
		into = map[string]bool{}
	}
	for _, d := range n.NamedKids() {
		for _, nm := range d.Children("name") {
			into[nm.Text(src)] = true
		}
	}
	return into
}
