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
	fields  []field          // tStruct
	methods []string         // tIface: the method names written in the literal
	embeds  []*typ           // tIface: embedded interfaces
	arity   map[string]arity // tIface: parameter and result counts of the methods
}

// arity is the number of parameters and results of a signature.
type arity struct{ params, results int }

// countParams counts the parameters of a parameter_list (or a single result type).
func countParams(n *node) int {
	if n == nil {
		return 0
	}
	if n.typ != "parameter_list" {
		return 1
	}
	c := 0
	for _, pd := range n.namedKids() {
		switch pd.typ {
		case "parameter_declaration":
			c += max(1, len(pd.children("name")))
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
	name    string
	pkg     *pkg
	file    *file
	spec    *node // the type_spec or type_alias
	tparams map[string]bool
	methods map[string][]*fn // declared methods by name (several when build variants repeat one)

	under    *typ // the declared type expression, resolved lazily
	resolved bool
	busy     bool

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
		return nil
	}
	d.busy = true
	t := d.file.typeExpr(d.spec.child("type"), d.tparams)
	if t != nil && t.kind == tNamed && t.decl != nil {
		if u := t.decl.underlying(); u != nil && u.kind != tNamed {
			t = u
		}
	}
	d.under, d.resolved, d.busy = t, true, false
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
	"Error": {0, 1}, "String": {0, 1}, "GoString": {0, 1}, "Format": {2, 0},
	"Read": {1, 2}, "Write": {1, 2}, "Close": {0, 1}, "ReadByte": {0, 2}, "WriteByte": {1, 1},
	"ReadRune": {0, 3}, "WriteString": {1, 2}, "Len": {0, 1}, "Less": {2, 1}, "Swap": {2, 0},
	"Push": {1, 0}, "Pop": {0, 1}, "MarshalText": {0, 2}, "UnmarshalText": {1, 1},
	"MarshalBinary": {0, 2}, "UnmarshalBinary": {1, 1}, "MarshalJSON": {0, 2},
	"UnmarshalJSON": {1, 1}, "Seek": {2, 2}, "ReadAt": {2, 2}, "WriteTo": {1, 2},
	"ReadFrom": {1, 2}, "Lock": {0, 0}, "Unlock": {0, 0}, "ServeHTTP": {2, 0},
	"Deadline": {0, 2}, "Done": {0, 1}, "Err": {0, 1}, "Value": {1, 1},
}

// typeExpr converts a type expression written in f to a typ. Names in tparams are type
// parameters (their types are unknown).
func (f *file) typeExpr(n *node, tparams map[string]bool) *typ {
	if n == nil {
		return nil
	}
	switch n.typ {
	case "type_identifier", "identifier":
		name := n.text(f.src)
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
		im := f.imports[n.child("package").text(f.src)]
		name := n.child("name").text(f.src)
		return f.importedType(im, name)
	case "selector_expression": // pkg.T written in expression position
		op := n.child("operand")
		if op == nil || op.typ != "identifier" {
			return nil
		}
		im := f.imports[op.text(f.src)]
		return f.importedType(im, n.child("field").text(f.src))
	case "pointer_type":
		return ptrTo(f.typeExpr(lastNamed(n), tparams))
	case "generic_type":
		return f.typeExpr(n.child("type"), tparams)
	case "parenthesized_type", "type_elem", "type_constraint":
		return f.typeExpr(lastNamed(n), tparams)
	case "slice_type", "array_type", "implicit_length_array_type":
		if e := f.typeExpr(n.child("element"), tparams); e != nil {
			return &typ{kind: tSlice, elem: e}
		}
		return &typ{kind: tSlice}
	case "map_type":
		return &typ{kind: tMap, key: f.typeExpr(n.child("key"), tparams), elem: f.typeExpr(n.child("value"), tparams)}
	case "channel_type":
		return &typ{kind: tChan, elem: f.typeExpr(n.child("value"), tparams)}
	case "function_type":
		return &typ{kind: tFunc, results: f.resultTypes(n.child("result"), tparams)}
	case "struct_type":
		return &typ{kind: tStruct, fields: f.structFields(n, tparams)}
	case "interface_type":
		t := &typ{kind: tIface}
		for _, k := range n.kids {
			switch k.typ {
			case "method_elem", "method_spec":
				name := k.child("name").text(f.src)
				t.methods = append(t.methods, name)
				if t.arity == nil {
					t.arity = map[string]arity{}
				}
				t.arity[name] = arity{countParams(k.child("parameters")), countParams(k.child("result"))}
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
	for i := len(n.kids) - 1; i >= 0; i-- {
		if n.kids[i].named && n.kids[i].typ != "comment" {
			return n.kids[i]
		}
	}
	return nil
}

// structFields lists a struct type's fields; an embedded field is named by its type name.
func (f *file) structFields(n *node, tparams map[string]bool) []field {
	list := n.firstOfType("field_declaration_list")
	var out []field
	for _, fd := range list.namedKids() {
		if fd.typ != "field_declaration" {
			continue
		}
		t := f.typeExpr(fd.child("type"), tparams)
		names := fd.children("name")
		if len(names) == 0 { // embedded
			if fd.firstOfType("*") != nil {
				t = ptrTo(t)
			}
			out = append(out, field{name: embeddedName(fd.child("type"), f.src), t: t, embedded: true})
			continue
		}
		for _, nm := range names {
			out = append(out, field{name: nm.text(f.src), t: t})
		}
	}
	return out
}

// embeddedName is the field name of an embedded type: its type name without package or
// type arguments.
func embeddedName(n *node, src []byte) string {
	s := n.text(src)
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimPrefix(s, "*")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// resultTypes lists a function's result types: one per name of a named result list.
func (f *file) resultTypes(n *node, tparams map[string]bool) []*typ {
	if n == nil {
		return nil
	}
	if n.typ != "parameter_list" {
		return []*typ{f.typeExpr(n, tparams)}
	}
	var out []*typ
	for _, pd := range n.namedKids() {
		if pd.typ != "parameter_declaration" && pd.typ != "variadic_parameter_declaration" {
			continue
		}
		t := f.typeExpr(pd.child("type"), tparams)
		if k := len(pd.children("name")); k > 1 {
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
	for _, d := range n.namedKids() {
		for _, nm := range d.children("name") {
			into[nm.text(src)] = true
		}
	}
	return into
}
