package task

import (
	"errors"
	"fmt"
	"slices"
)

// Blocks groups e into blocks of adjacent edits as the PDB reference does: walking the
// edits from the last to the first, an edit joins the current block iff it is a Delete or
// Modify of the line just above the previously visited edit's line, or an Add at that same
// line (an insertion before it); otherwise it starts a new block. e should be in the
// reference's order (as DiffLines returns it).
//
// The blocks are returned in ascending line order with IDs 0, 1, 2, … in that order; each
// block's Edits keep e's order, Start is its first edit's line and End its last edit's.
func Blocks(e Edits) []Block {
	var rev []Block // built bottom-up
	prev := 0
	for k := len(e) - 1; k >= 0; k-- {
		x := e[k]
		joins := len(rev) > 0 &&
			((x.Type == Delete || x.Type == Modify) && x.Line == prev-1 || x.Type == Add && x.Line == prev)
		if joins {
			b := &rev[len(rev)-1]
			b.Start = x.Line
			b.Edits = append(b.Edits, x)
		} else {
			rev = append(rev, Block{Start: x.Line, End: x.Line, Edits: Edits{x}})
		}
		prev = x.Line
	}
	slices.Reverse(rev)
	for i := range rev {
		rev[i].ID = i
		slices.Reverse(rev[i].Edits)
	}
	return rev
}

// gapAdjust is 0 when a block's bottom edit is an Add (the insertion leaves line End
// itself unchanged) and 1 otherwise. The bottom edit is the block's last edit in line
// order, the first the reference's last-to-first walk meets (its "first edit").
func gapAdjust(b Block) int {
	if len(b.Edits) > 0 && b.Edits[len(b.Edits)-1].Type == Add {
		return 0
	}
	return 1
}

// StrideBefore returns the stride before blocks[i] (blocks in ascending order, as Blocks
// returns them): Start − 1 for the first block, otherwise Start − prev.End − adj, where adj
// is 0 if the previous block's bottom edit is an Add and 1 otherwise. It is the number of
// unchanged lines between the two blocks.
//
// The spec's "the previous block's first edit" is read as the first edit the reference's
// last-to-first walk puts in the block, which is its bottom edit (the one at End); with
// that reading the stride counts the unchanged lines between blocks (an Add at End leaves
// line End itself unchanged). The blocks' IDs likewise follow the Block type's definition
// (ascending line order). testdata/edits/gen.py states the same reading in Python.
func StrideBefore(blocks []Block, i int) int {
	if i == 0 {
		return blocks[0].Start - 1
	}
	p := blocks[i-1]
	return blocks[i].Start - p.End - gapAdjust(p)
}

// StrideAfter returns the stride after blocks[i] and true, or 0 and false for the last
// block (the reference's None): next.Start − End − adj, with adj 0 if this block's bottom
// edit is an Add and 1 otherwise. StrideAfter(b, i) == StrideBefore(b, i+1).
func StrideAfter(blocks []Block, i int) (int, bool) {
	if i == len(blocks)-1 {
		return 0, false
	}
	return blocks[i+1].Start - blocks[i].End - gapAdjust(blocks[i]), true
}

// ErrEditBlocks is wrapped by every error Verify returns.
var ErrEditBlocks = errors.New("edit blocks violate the constraints")

// Verify checks e against the composition constraints of the PDB reference: exactly k
// blocks (any number when k < 0), Start − previous End ≥ stride for consecutive blocks
// (the raw line distance, not StrideBefore), and every block's number of edits within
// [minLines, maxLines] (no upper bound when maxLines ≤ 0). It returns nil when all hold,
// else an error wrapping ErrEditBlocks that names the first violation.
func Verify(e Edits, k, stride, maxLines, minLines int) error {
	bs := Blocks(e)
	if k >= 0 && len(bs) != k {
		return fmt.Errorf("task: %w: %d blocks, want %d", ErrEditBlocks, len(bs), k)
	}
	for i, b := range bs {
		if i > 0 && b.Start-bs[i-1].End < stride {
			return fmt.Errorf("task: %w: block %d starts at line %d, %d after block %d ends (stride %d)",
				ErrEditBlocks, i, b.Start, b.Start-bs[i-1].End, i-1, stride)
		}
		n := len(b.Edits)
		if n < minLines || (maxLines > 0 && n > maxLines) {
			return fmt.Errorf("task: %w: block %d has %d edits, want between %d and %d",
				ErrEditBlocks, i, n, minLines, maxLines)
		}
	}
	return nil
}
