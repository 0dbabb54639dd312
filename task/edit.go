package task

// This file holds the types of the PDB edit model (docs/pdb.md, Line edits); the behaviour
// is in edit_diff.go (Lines, DiffLines, Clean), edit_apply.go (Apply, ApplyStrict,
// Reverse), edit_blocks.go (Blocks, strides, Verify) and edit_json.go (the gt_diff form).

// EditType is the kind of a line edit. The numeric order is the sort order the PDB edit
// model uses for edits on the same line: Add < Delete < Modify.
type EditType int

// The three kinds of line edit (docs/pdb.md, Line edits).
const (
	Add    EditType = iota // insert Modified before buggy line Line (Line = len+1 appends)
	Delete                 // remove buggy line Line (whose text is Original)
	Modify                 // replace buggy line Line (Original) by Modified
)

// String returns the type's name in lower case: "add", "delete" or "modify". (The JSON
// form uses the release's capitalised names; see Edits.)
func (t EditType) String() string {
	switch t {
	case Add:
		return "add"
	case Delete:
		return "delete"
	case Modify:
		return "modify"
	}
	return "EditType(" + itoa(int(t)) + ")"
}

// LineEdit is one edit of the PDB edit model, keyed by a 1-based line of the old ("buggy")
// text. Several Adds before the same line are distinguished by Tie (0, 1, 2, …), which is
// the number of spaces the reference appends to the key ("L", "L ", "L  "). Original is
// empty for Add; Modified is empty for Delete.
type LineEdit struct {
	Line     int
	Tie      int
	Type     EditType
	Original string
	Modified string
}

// Key returns the edit's key in the reference's JSON form: the line number followed by Tie
// spaces.
func (e LineEdit) Key() string {
	k := itoa(e.Line)
	for range e.Tie {
		k += " "
	}
	return k
}

// Edits is an ordered edit script of the PDB edit model. Order matters: it is the order of
// the reference's keys.
//
// # Lines
//
// A text is split into lines on "\n" only and each line is stripped of trailing whitespace
// (Python's str.rstrip(): the Unicode White_Space characters plus U+001C–U+001F). So the
// "\r" of CRLF input disappears with the rest of the trailing whitespace, a final "\n"
// yields a final empty line, and leading whitespace stays significant (see Lines).
//
// # Keys and order
//
// Edits are keyed by 1-based lines of the old ("buggy") text. Modify L replaces line L,
// Delete L removes it, Add L inserts a line before line L (L = len+1 appends). Several Adds
// before the same line are told apart by Tie, the number of spaces the reference appends to
// the key ("12", "12 ", "12  "). DiffLines returns edits sorted by (Line, Type) with Add <
// Delete < Modify, ties in derivation order (Tie order), exactly the reference's order.
//
// # JSON
//
// The JSON form is the PDB release's gt_diff object: one member per edit, in order, keyed
// by the line number followed by Tie spaces, valued by an object with "type" ("Add",
// "Delete" or "Modify", the release's spelling), "original" and "modified":
//
//	{"12": {"type": "Modify", "original": "x = 1", "modified": "x = 2"},
//	 "15": {"type": "Add", "original": "", "modified": "y()"},
//	 "15 ": {"type": "Add", "original": "", "modified": "z()"}}
//
// The release's evaluator compares type names case-sensitively (a "modify" edit is neither
// applied nor joined into a block there), so MarshalJSON writes exactly those names.
// MarshalJSON writes every member with all three fields (invalid UTF-8 bytes become
// U+FFFD, as in any JSON text) and rejects duplicate keys. UnmarshalJSON keeps the members'
// order; reads the Tie from the key's trailing spaces (other surrounding whitespace is
// ignored, as Python's int() does); accepts the type in any case, missing or null
// "original"/"modified" (as "") and other fields (ignored); and also accepts the whole
// object encoded as a JSON string, as the release sometimes stores gt_diff. JSON null
// decodes to nil Edits. A key that appears twice keeps its first position and its last
// value, like a Python dict.
type Edits []LineEdit

// Block is a run of adjacent edits (docs/pdb.md, Line edits): Start and End are the
// smallest and largest keyed lines, ID counts from 0 in ascending line order.
type Block struct {
	ID    int
	Start int
	End   int
	Edits Edits
}
