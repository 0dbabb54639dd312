package metrics

import "github.com/faultline-dev/faultline/task"

// near reports whether the remaining predicted block rb[i] near-matches ground-truth block
// m.gtBlocks[gi]: the contexts above both blocks match and the contexts below both match.
func (m *matcher) near(rb []task.Block, i, gi int) bool {
	var pb, pa, gb, ga []string
	if m.mode == Reference {
		pb, pa = m.refPredWindows(rb, i)
		gb, ga = m.refGTWindows(gi)
	} else {
		pb, pa = m.paperWindows(rb, i)
		gb, ga = m.paperWindows(m.gtBlocks, gi)
	}
	n := len(m.buggy)
	var first, last string
	hasTop := n > 0
	if hasTop {
		first, last = m.buggy[0], m.buggy[n-1]
	}
	return setMatch(pb, gb, first, hasTop) && setMatch(pa, ga, last, hasTop)
}

// pyLine reads 1-based line i as the released evaluator does, buggy[i−1] with Python's
// negative indexing: i = 0 reads the last line. Out-of-range reads (which the evaluator
// cannot produce on valid input, except on an empty program) yield nothing.
func (m *matcher) pyLine(i int) (string, bool) {
	n := len(m.buggy)
	k := i - 1
	if k < 0 {
		k += n
	}
	if k < 0 || k >= n {
		return "", false
	}
	return m.buggy[k], true
}

func (m *matcher) pyRange(lo, hi int) []string {
	var out []string
	for i := lo; i < hi; i++ {
		if s, ok := m.pyLine(i); ok {
			out = append(out, s)
		}
	}
	return out
}

// refPredWindows are the released evaluator's context windows of a predicted block:
// before = lines [prev_end+1, start), or [0, start) for the top-most block (so line 0, the
// last line, is included); after = lines [end+1, next_start), or [end+1, n) for the
// bottom-most block (so the last line is excluded).
func (m *matcher) refPredWindows(rb []task.Block, i int) (before, after []string) {
	b := rb[i]
	lo := 0
	if i > 0 {
		lo = rb[i-1].End + 1
	}
	before = m.pyRange(lo, b.Start)
	hi := len(m.buggy)
	if i+1 < len(rb) {
		hi = rb[i+1].Start
	}
	after = m.pyRange(b.End+1, hi)
	return before, after
}

// refGTWindows are the released evaluator's windows of a ground-truth block: before =
// lines start−j for j in [1, stride_before); after = lines start+j for j in [1, S) with
// S = stride_after when it is non-zero, else n − start (relative to the start, so a
// multi-line block's own lines fall inside).
func (m *matcher) refGTWindows(gi int) (before, after []string) {
	b := m.gtBlocks[gi]
	sb := task.StrideBefore(m.gtBlocks, gi)
	for j := 1; j < sb; j++ {
		if s, ok := m.pyLine(b.Start - j); ok {
			before = append(before, s)
		}
	}
	s, ok := task.StrideAfter(m.gtBlocks, gi)
	if !ok || s == 0 {
		s = len(m.buggy) - b.Start
	}
	for j := 1; j < s; j++ {
		if l, ok := m.pyLine(b.Start + j); ok {
			after = append(after, l)
		}
	}
	return before, after
}

// lastTouched is the highest buggy line a block changes: its last edit's line, or one less
// when that edit is an Add (an Add before line L leaves L untouched).
func lastTouched(b task.Block) int {
	e := b.Edits[len(b.Edits)-1]
	if e.Type == task.Add {
		return e.Line - 1
	}
	return e.Line
}

// paperWindows are the paper-mode context windows of bs[i] (predicted or ground truth):
// the untouched lines strictly between the block and its neighbours in bs, from line 1 for
// the first block and to line n for the last, with no wrap-around.
func (m *matcher) paperWindows(bs []task.Block, i int) (before, after []string) {
	b := bs[i]
	lo := 1
	if i > 0 {
		lo = lastTouched(bs[i-1]) + 1
	}
	for l := lo; l < b.Start && l <= len(m.buggy); l++ {
		before = append(before, m.buggy[l-1])
	}
	hi := len(m.buggy)
	if i+1 < len(bs) {
		hi = bs[i+1].Start - 1
	}
	for l := lastTouched(b) + 1; l <= hi && l <= len(m.buggy); l++ {
		if l >= 1 {
			after = append(after, m.buggy[l-1])
		}
	}
	return before, after
}

// setMatch compares two context windows as sets of line contents with blank lines
// dropped: they match if they intersect, or both are empty, or one is empty and the other
// contains the file's boundary line top (the first line for the windows above a block, the
// last line for the windows below).
func setMatch(pred, gt []string, top string, hasTop bool) bool {
	ps := lineSet(pred)
	gs := lineSet(gt)
	for s := range ps {
		if gs[s] {
			return true
		}
	}
	if len(ps) == 0 && len(gs) == 0 {
		return true
	}
	if hasTop && len(gs) == 0 && ps[top] {
		return true
	}
	if hasTop && len(ps) == 0 && gs[top] {
		return true
	}
	return false
}

func lineSet(lines []string) map[string]bool {
	s := make(map[string]bool, len(lines))
	for _, l := range lines {
		if rstrip(l) == "" {
			continue
		}
		s[l] = true
	}
	return s
}
