package metrics

import (
	"context"
	"sort"

	"github.com/faultline-dev/faultline/task"
)

// matcher pairs predicted blocks with ground-truth blocks (docs/pdb.md, Scoring one
// prediction).
type matcher struct {
	mode      Mode
	buggyText string
	buggy     []string // rstripped lines of the buggy program
	gt        task.Edits
	gtBlocks  []task.Block
	eps       int

	// Set by match: the pass-2 predicted edits that matched nothing and the ground-truth
	// edits of the blocks left unpaired, each in diff order.
	unmatchedPred, unmatchedGT task.Edits
}

// exactMatch is a Pass-1 match: it needs no oracle call.
type exactMatch struct{ Match }

// candidate is a Pass-2 match awaiting semantic verification.
type candidate struct {
	Match
	edits   task.Edits // the predicted block's edits, in diff order
	program string     // the pseudo-revision: other GT blocks + this predicted block
}

type editKey struct{ line, tie int }

func keyOf(e task.LineEdit) editKey { return editKey{e.Line, e.Tie} }

func sameEdits(a, b task.Edits) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// match runs Pass 1 and Pass 2 over the cleaned predicted diff.
func (m *matcher) match(pred task.Edits) ([]exactMatch, []candidate) {
	predBlocks := task.Blocks(pred)
	remaining := make([]int, len(m.gtBlocks)) // indices into m.gtBlocks, ascending
	for i := range remaining {
		remaining[i] = i
	}
	remove := func(gi int) {
		for j, g := range remaining {
			if g == gi {
				remaining = append(remaining[:j], remaining[j+1:]...)
				return
			}
		}
	}

	// Pass 1: exact blocks, last predicted block first.
	var exact []exactMatch
	used := make(map[editKey]bool)
	for i := len(predBlocks) - 1; i >= 0; i-- {
		pb := predBlocks[i]
		for _, gi := range remaining {
			gb := m.gtBlocks[gi]
			if gb.Start == pb.Start && gb.End == pb.End && sameEdits(gb.Edits, pb.Edits) {
				exact = append(exact, exactMatch{Match{
					Kind: KindExact, PredStart: pb.Start, PredEnd: pb.End, PredEdits: len(pb.Edits),
					GTBlocks: []int{gb.ID}, GTEdits: len(gb.Edits), Passed: true,
				}})
				for _, e := range pb.Edits {
					used[keyOf(e)] = true
				}
				remove(gi)
				break
			}
		}
	}

	// Pass 2 on the rest of the prediction, re-parsed into blocks, bottom-most first.
	var rest task.Edits
	for _, e := range pred {
		if !used[keyOf(e)] {
			rest = append(rest, e)
		}
	}
	rb := task.Blocks(rest)
	var cands []candidate
	for i := len(rb) - 1; i >= 0; i-- {
		pb := rb[i]
		kind := ""
		var ids []int
		for _, gi := range remaining {
			if gs := m.gtBlocks[gi].Start; pb.Start <= gs && gs <= pb.End {
				ids = append(ids, gi)
			}
		}
		if len(ids) > 0 {
			kind = KindWrap
		} else {
			for _, gi := range remaining {
				if m.near(rb, i, gi) {
					ids, kind = []int{gi}, KindNear
					break
				}
			}
		}
		if kind == "" {
			for _, gi := range remaining {
				if sameContent(m.gtBlocks[gi].Edits, pb.Edits) {
					ids, kind = []int{gi}, KindDistant
					break
				}
			}
		}
		if kind == "" {
			// Unmatched: counts against precision only. Blocks are visited bottom-most
			// first; prepend to keep diff order.
			m.unmatchedPred = append(append(task.Edits{}, pb.Edits...), m.unmatchedPred...)
			continue
		}
		gtEdits := 0
		exclude := make(map[int]bool, len(ids))
		gtIDs := make([]int, 0, len(ids))
		for _, gi := range ids {
			remove(gi)
			gtEdits += len(m.gtBlocks[gi].Edits)
			exclude[gi] = true
			gtIDs = append(gtIDs, m.gtBlocks[gi].ID)
		}
		tol := max(min(m.eps*len(ids), len(pb.Edits)-gtEdits), 0)
		cands = append(cands, candidate{
			Match: Match{
				Kind: kind, PredStart: pb.Start, PredEnd: pb.End, PredEdits: len(pb.Edits),
				GTBlocks: gtIDs, GTEdits: gtEdits, Tolerance: tol,
			},
			edits:   pb.Edits,
			program: m.program(exclude, pb.Edits),
		})
	}
	m.unmatchedGT = task.Edits{}
	for _, gi := range remaining {
		m.unmatchedGT = append(m.unmatchedGT, m.gtBlocks[gi].Edits...)
	}
	if m.unmatchedPred == nil {
		m.unmatchedPred = task.Edits{}
	}
	return exact, cands
}

// sameContent reports whether two blocks have the same number of edits with pairwise equal
// (Original, Modified), keys and types ignored.
func sameContent(a, b task.Edits) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Original != b[i].Original || a[i].Modified != b[i].Modified {
			return false
		}
	}
	return true
}

// program applies to the buggy program every ground-truth block not in exclude, plus extra;
// on a key collision the edit of extra wins (it replaces the ground-truth edit in place).
// The merged script is put in edit-model order (line, then Add < Delete < Modify, then tie)
// before it is applied.
func (m *matcher) program(exclude map[int]bool, extra task.Edits) string {
	var edits task.Edits
	pos := make(map[editKey]int)
	for gi, b := range m.gtBlocks {
		if exclude[gi] {
			continue
		}
		for _, e := range b.Edits {
			pos[keyOf(e)] = len(edits)
			edits = append(edits, e)
		}
	}
	for _, e := range extra {
		if p, ok := pos[keyOf(e)]; ok {
			edits[p] = e
			continue
		}
		pos[keyOf(e)] = len(edits)
		edits = append(edits, e)
	}
	sort.SliceStable(edits, func(i, j int) bool {
		a, b := edits[i], edits[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Tie < b.Tie
	})
	return task.Apply(m.buggyText, edits)
}

// essential runs the essential-edit search for every passing candidate with a positive
// tolerance: window sizes w = 1..T over the predicted block's edits; the tolerance becomes
// the smallest w−1 for which some contiguous window passes. Windows of one size are verified
// together, across candidates.
func (m *matcher) essential(ctx context.Context, v *verifier, cands []candidate) error {
	type job struct {
		cand int
		prog string
	}
	pending := make(map[int]bool)
	maxT := 0
	for i, c := range cands {
		if c.Passed && c.Tolerance > 0 {
			pending[i] = true
			maxT = max(maxT, c.Tolerance)
		}
	}
	for w := 1; w <= maxT && len(pending) > 0; w++ {
		var jobs []job
		for i := range cands {
			c := cands[i]
			if !pending[i] || w > c.Tolerance {
				continue
			}
			exclude := make(map[int]bool)
			if m.mode == Paper {
				for _, id := range c.GTBlocks {
					exclude[m.indexOf(id)] = true
				}
			}
			for s := 0; s+w <= len(c.edits); s++ {
				jobs = append(jobs, job{i, m.program(exclude, c.edits[s:s+w])})
			}
		}
		progs := make([]string, len(jobs))
		for k, j := range jobs {
			progs[k] = j.prog
		}
		verdicts, err := v.verifyAll(ctx, progs)
		if err != nil {
			return err
		}
		for k, j := range jobs {
			if verdicts[k].Passed() && pending[j.cand] {
				cands[j.cand].Tolerance = w - 1
				delete(pending, j.cand)
			}
		}
		for i := range cands {
			if pending[i] && w >= cands[i].Tolerance {
				delete(pending, i) // searched up to T without a passing window: T stays
			}
		}
	}
	return nil
}

func (m *matcher) indexOf(id int) int {
	for i, b := range m.gtBlocks {
		if b.ID == id {
			return i
		}
	}
	return -1
}
