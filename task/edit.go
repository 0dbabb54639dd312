package task

// EditType is the kind of a line edit. The numeric order is the sort order the PDB edit
// model uses for edits on the same line: Add < Delete < Modify.
type EditType int

// The three kinds of line edit (spec/pdb.md §Edit model).
const (
	Add    EditType = iota // insert Modified before buggy line Line (Line = len+1 appends)
	Delete                 // remove buggy line Line (whose text is Original)
	Modify                 // replace buggy line Line (Original) by Modified
)

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

// Edits is an ordered edit script. Order matters: it is the order of the reference's keys.
type Edits []LineEdit

// Block is a run of adjacent edits (spec/pdb.md §Edit model, Blocks): Start and End are the
// smallest and largest keyed lines, ID counts from 0 in ascending line order.
type Block struct {
	ID    int
	Start int
	End   int
	Edits Edits
}
