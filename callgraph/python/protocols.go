package python

// The special methods Python calls without the program naming them, as the language
// reference's data model describes them.

// binaryOp is a binary operator: a <tok> b calls type(a).method(a, b), or, when a's type
// lacks it (or returns NotImplemented), type(b).reflected(b, a); a <tok>= b first tries
// type(a).inplace.
type binaryOp struct{ tok, method, reflected, inplace string }

var binaryOps = []binaryOp{
	{"+", "__add__", "__radd__", "__iadd__"},
	{"-", "__sub__", "__rsub__", "__isub__"},
	{"*", "__mul__", "__rmul__", "__imul__"},
	{"@", "__matmul__", "__rmatmul__", "__imatmul__"},
	{"/", "__truediv__", "__rtruediv__", "__itruediv__"},
	{"//", "__floordiv__", "__rfloordiv__", "__ifloordiv__"},
	{"%", "__mod__", "__rmod__", "__imod__"},
	{"**", "__pow__", "__rpow__", "__ipow__"},
	{"<<", "__lshift__", "__rlshift__", "__ilshift__"},
	{">>", "__rshift__", "__rrshift__", "__irshift__"},
	{"&", "__and__", "__rand__", "__iand__"},
	{"|", "__or__", "__ror__", "__ior__"},
	{"^", "__xor__", "__rxor__", "__ixor__"},
}

// binaryOpIndex returns the index in binaryOps of the operator token tok (with or
// without a trailing "="), or -1.
func binaryOpIndex(tok string) int {
	if len(tok) > 1 && tok[len(tok)-1] == '=' {
		tok = tok[:len(tok)-1]
	}
	for k, op := range binaryOps {
		if op.tok == tok {
			return k
		}
	}
	return -1
}

// compareOp is a comparison: a <tok> b calls type(a).method(a, b), or the reflected
// method of b. Membership (in, not in) calls the right operand's __contains__ with the
// left one, falling back to iteration.
type compareOp struct {
	tok, method, reflected string
	fallback               []string // tried on a class without the method and without outside bases
	member                 bool
}

var compareOps = []compareOp{
	{tok: "<", method: "__lt__", reflected: "__gt__"},
	{tok: "<=", method: "__le__", reflected: "__ge__"},
	{tok: ">", method: "__gt__", reflected: "__lt__"},
	{tok: ">=", method: "__ge__", reflected: "__le__"},
	{tok: "==", method: "__eq__", reflected: "__eq__"},
	{tok: "!=", method: "__ne__", reflected: "__ne__", fallback: []string{"__eq__"}},
	{tok: "in", method: "__contains__", fallback: []string{"__iter__", "__getitem__"}, member: true},
	{tok: "not in", method: "__contains__", fallback: []string{"__iter__", "__getitem__"}, member: true},
}

var unaryOps = []struct{ tok, method string }{
	{"-", "__neg__"},
	{"+", "__pos__"},
	{"~", "__invert__"},
}

// conversion is a chain of special methods: the first one a class has is called;
// object's defaults delegate down the chain (object.__format__ calls str(), whose
// object.__str__ calls repr(); a truth test without __bool__ asks __len__).
type conversion []string

var (
	convStr    = conversion{"__str__", "__repr__"}
	convRepr   = conversion{"__repr__"}
	convFormat = conversion{"__format__", "__str__", "__repr__"}
	convTruth  = conversion{"__bool__", "__len__"}
)

// conversions indexes the chains lzConvert and lzBuiltin sites use.
var conversions = []conversion{
	convStr, convRepr, convFormat, convTruth,
	{"__len__"}, {"__hash__"}, {"__next__"}, {"__int__", "__index__"}, {"__float__", "__index__"},
	{"__abs__"}, {"__reversed__"}, {"__index__"}, {"__bytes__"},
}

const (
	cvStr uint8 = iota
	cvRepr
	cvFormat
	cvTruth
	cvLen
	cvHash
	cvNext
	cvInt
	cvFloat
	cvAbs
	cvReversed
	cvIndex
	cvBytes
)

// cvPercentOne marks (in a lzConvert site's op, beside the conversion) the single
// right operand of printf-style formatting, `"..." % x` with x not a tuple display:
// Python formats x itself unless x is a tuple, whose items are then the values. An
// instance of a tuple subclass (a namedtuple's) is such a tuple: `"param(*%r, **%r)" %
// self` in parameterized's param.__repr__ formats self's two items, not self.
const cvPercentOne uint8 = 0x80

// builtinConversion maps a builtin function to the conversion it applies to its first
// argument (print applies str to each positional argument).
var builtinConversion = map[string]uint8{
	"str": cvStr, "repr": cvRepr, "format": cvFormat, "bool": cvTruth, "len": cvLen,
	"hash": cvHash, "next": cvNext, "int": cvInt, "float": cvFloat, "abs": cvAbs,
	"reversed": cvReversed, "print": cvStr, "hex": cvIndex, "oct": cvIndex, "bin": cvIndex,
	"operator.index": cvIndex, "bytes": cvBytes,
}

// lengthHint names the builtins that, after taking the iterator of their argument, ask
// its length for a size hint (CPython's list_extend and PySequence_Tuple call
// PyObject_LengthHint): __len__ when the class has it. h11's Headers.__eq__ calls
// list(self), which runs Headers.__len__.
var lengthHint = map[string]bool{"list": true, "tuple": true, "sorted": true}

// iterBuiltins iterate over their positional arguments (from the given one on).
var iterBuiltins = map[string]int{
	"list": 0, "tuple": 0, "set": 0, "frozenset": 0, "sorted": 0, "enumerate": 0, "sum": 0,
	"any": 0, "all": 0, "zip": 0, "dict": 0, "map": 1, "filter": 1,
}

func (c conversion) dunders(names *projectNames) bool {
	for _, m := range c {
		if names.dunder(m) {
			return true
		}
	}
	return false
}

// percentConversions returns, in order, the conversions of the %-directives of a
// printf-style format string: 's' str, 'r' and 'a' repr, other directives none (-1).
func percentConversions(format string) []int {
	var out []int
	for k := 0; k < len(format); k++ {
		if format[k] != '%' {
			continue
		}
		k++
		if k < len(format) && format[k] == '%' {
			continue
		}
		if k < len(format) && format[k] == '(' {
			for k < len(format) && format[k] != ')' {
				k++
			}
			k++
		}
		for k < len(format) && (format[k] == '-' || format[k] == '+' || format[k] == ' ' || format[k] == '#' ||
			format[k] == '.' || format[k] == '*' || format[k] >= '0' && format[k] <= '9') {
			k++
		}
		for k < len(format) && (format[k] == 'h' || format[k] == 'l' || format[k] == 'L') {
			k++
		}
		if k >= len(format) {
			break
		}
		switch format[k] {
		case 's':
			out = append(out, int(cvStr))
		case 'r', 'a':
			out = append(out, int(cvRepr))
		default:
			out = append(out, -1)
		}
	}
	return out
}
