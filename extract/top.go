package extract

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// DefaultTopDepth is the depth of the top-object BFS (spec: 5).
const DefaultTopDepth = 5

// Candidate is an object reachable from a test file's tests, a possible top object.
type Candidate struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Name string `json:"name"`
	// Depth is the number of calls between the test file's code and the object; calls
	// into objects that can never be candidates (test files, conftest.py, __init__.py) do
	// not count, so 1 means called directly by a test, a helper of the test file or a
	// package facade function they call.
	Depth int `json:"depth"`
	// Imported is set when the test file imports the object by name.
	Imported bool `json:"imported"`
	// UsedBy counts the other test files whose code calls or imports the object directly.
	UsedBy int `json:"used_by"`
	// Source is the object's definition text when the caller supplied it (LLM prompts).
	Source string `json:"source,omitempty"`
}

// Direct reports whether the test file calls or imports the object directly.
func (c Candidate) Direct() bool { return c.Depth == 1 || c.Imported }

// DirectUses returns the ids a test file's code calls directly (objects of the file
// calling objects of other files) or imports by name, sorted.
func DirectUses(tr *Trace, testFile string) []string {
	set := map[string]bool{}
	for _, o := range tr.Objects {
		if o.File != testFile {
			continue
		}
		for _, c := range o.Callees {
			if f, _, _, err := ParseObjectID(c); err == nil && f != testFile {
				set[c] = true
			}
		}
	}
	for _, im := range tr.Imports {
		if im.File == testFile && im.Target != "" {
			set[im.Target] = true
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Candidates runs the layered BFS from the objects of testFile in its trace (depth ≤
// maxDepth; ≤ 0 means DefaultTopDepth) and returns the reachable objects that may be top
// objects: not in test files, conftest.py or __init__.py, no pseudo-names. others holds
// the direct uses (DirectUses) of every other test file, for Candidate.UsedBy. The result
// is sorted by (Depth, ID).
func Candidates(tr *Trace, testFile string, maxDepth int, others map[string][]string) []Candidate {
	if maxDepth <= 0 {
		maxDepth = DefaultTopDepth
	}
	depth := map[string]int{}
	var cur []string
	for _, o := range tr.Objects {
		if o.File == testFile {
			depth[o.ID] = 0
			cur = append(cur, o.ID)
		}
	}
	// 0-1 BFS: edges into the test file, other test files, conftest.py and __init__.py cost
	// nothing (those objects are never candidates; a package's __init__ facade such as
	// json's dumps does not make the encoder it calls indirect).
	for d := 0; len(cur) > 0 && d <= maxDepth; d++ {
		var next []string
		for k := 0; k < len(cur); k++ {
			o, ok := tr.Lookup(cur[k])
			if !ok {
				continue
			}
			for _, c := range o.Callees {
				if _, seen := depth[c]; seen {
					continue
				}
				if f, _, _, err := ParseObjectID(c); err == nil && (f == testFile || IsTestObjectFile(f)) {
					depth[c] = d
					cur = append(cur, c)
					continue
				}
				if d+1 <= maxDepth {
					depth[c] = d + 1
					next = append(next, c)
				}
			}
		}
		cur = next
	}
	imported := map[string]bool{}
	for _, im := range tr.Imports {
		if im.File == testFile && im.Target != "" {
			imported[im.Target] = true
		}
	}
	used := map[string]int{}
	for f, ids := range others {
		if f == testFile {
			continue
		}
		for _, id := range ids {
			used[id]++
		}
	}
	var out []Candidate
	for id, d := range depth {
		o, ok := tr.Lookup(id)
		if !ok || d == 0 || IsTestObjectFile(o.File) || isPseudo(o.Name) {
			continue
		}
		out = append(out, Candidate{ID: id, File: o.File, Name: o.Name, Depth: d, Imported: imported[id], UsedBy: used[id]})
	}
	slices.SortFunc(out, func(a, b Candidate) int {
		if a.Depth != b.Depth {
			return a.Depth - b.Depth
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// ClassifyRequest is what a classifier sees: the test file, its source and the
// candidates, and how many other test files there are (for Candidate.UsedBy).
type ClassifyRequest struct {
	TestFile   string
	TestSource string
	Candidates []Candidate
	OtherFiles int
}

// Classifier picks the tested objects (top objects) among the candidates; the rest are
// helpers. It returns ids of candidates, sorted. Implementations document whether they
// are safe for concurrent use.
type Classifier interface {
	Classify(ctx context.Context, req ClassifyRequest) ([]string, error)
}

// ClassifierFunc adapts a function to the Classifier interface.
type ClassifierFunc func(ctx context.Context, req ClassifyRequest) ([]string, error)

// Classify calls f(ctx, req).
func (f ClassifierFunc) Classify(ctx context.Context, req ClassifyRequest) ([]string, error) {
	return f(ctx, req)
}

// Heuristic is the default, deterministic classifier: a candidate is a tested object when
// the test file calls or imports it directly (Candidate.Direct) and it is not a general
// utility, that is not used directly by more than MaxShare of the other test files
// (checked only when there are at least MinOthers of them). When every direct candidate is
// a utility (a library whose every test calls the same entry points, such as json's dumps
// and loads), the least shared of them are the tested objects: those with the smallest
// UsedBy. It is safe for concurrent use.
type Heuristic struct {
	// MaxShare is the share of other test files above which a directly used object is a
	// general utility (default 0.5).
	MaxShare float64
	// MinOthers is the number of other test files below which no object counts as a
	// utility (default 4).
	MinOthers int
}

// Classify implements Classifier.
func (h Heuristic) Classify(_ context.Context, req ClassifyRequest) ([]string, error) {
	share := h.MaxShare
	if share <= 0 {
		share = 0.5
	}
	minOthers := h.MinOthers
	if minOthers <= 0 {
		minOthers = 4
	}
	var out, utils []string
	least := -1
	for _, c := range req.Candidates {
		if !c.Direct() {
			continue
		}
		if req.OtherFiles >= minOthers && float64(c.UsedBy) > share*float64(req.OtherFiles) {
			if least < 0 || c.UsedBy < least {
				least, utils = c.UsedBy, utils[:0]
			}
			if c.UsedBy == least {
				utils = append(utils, c.ID)
			}
			continue
		}
		out = append(out, c.ID)
	}
	if len(out) == 0 {
		out = utils
	}
	slices.Sort(out)
	return out, nil
}

// ErrNoTopObjects is wrapped when a test file has no top object.
var ErrNoTopObjects = errors.New("extract: no top objects")

// TopObjects computes the candidates of testFile and classifies them; the error wraps
// ErrNoTopObjects when there are none.
func TopObjects(ctx context.Context, c Classifier, req ClassifyRequest) ([]string, error) {
	if len(req.Candidates) == 0 {
		return nil, fmt.Errorf("%w: %s reaches no repository object outside the tests", ErrNoTopObjects, req.TestFile)
	}
	ids, err := c.Classify(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("extract: classify %s: %w", req.TestFile, err)
	}
	valid := map[string]bool{}
	for _, c := range req.Candidates {
		valid[c.ID] = true
	}
	var out []string
	for _, id := range ids {
		if valid[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: none of %d candidates is a tested object", ErrNoTopObjects, req.TestFile, len(req.Candidates))
	}
	return out, nil
}

// ErrNoP2P is wrapped when no pass-to-pass file qualifies.
var ErrNoP2P = errors.New("extract: no pass-to-pass files")

// P2PFile is a candidate pass-to-pass file and its trace.
type P2PFile struct {
	File  string
	Trace *Trace
}

// P2PChoice is the outcome of ChooseP2P.
type P2PChoice struct {
	// Files are the chosen pass-to-pass files, sorted.
	Files []string
	// Top are the top objects that remain, sorted; Dropped those given up (in order) so
	// that enough files qualify.
	Top, Dropped []string
}

// ChooseP2P chooses pass-to-pass files: those whose traces execute none of the top
// objects. While fewer than minFiles (≤ 0: 1) qualify, the top object executed by the most
// candidate files (ties: the smallest id) is dropped and the choice retried; when the last
// top object would go, the error wraps ErrNoP2P. Of the qualifying files, up to maxFiles
// (≤ 0: 5) are sampled with rng (nil: the first ones in path order).
func ChooseP2P(top []string, cands []P2PFile, minFiles, maxFiles int, rng *rand.Rand) (*P2PChoice, error) {
	if minFiles <= 0 {
		minFiles = 1
	}
	if maxFiles <= 0 {
		maxFiles = 5
	}
	cands = slices.Clone(cands)
	slices.SortFunc(cands, func(a, b P2PFile) int { return strings.Compare(a.File, b.File) })
	ch := &P2PChoice{Top: slices.Sorted(slices.Values(top))}
	for {
		var ok []string
		count := map[string]int{}
		for _, c := range cands {
			hit := false
			for _, id := range ch.Top {
				if _, in := c.Trace.Lookup(id); in {
					count[id]++
					hit = true
				}
			}
			if !hit {
				ok = append(ok, c.File)
			}
		}
		if len(ok) >= minFiles {
			if rng != nil {
				rng.Shuffle(len(ok), func(i, j int) { ok[i], ok[j] = ok[j], ok[i] })
			}
			if len(ok) > maxFiles {
				ok = ok[:maxFiles]
			}
			slices.Sort(ok)
			ch.Files = ok
			return ch, nil
		}
		if len(ch.Top) <= 1 {
			return ch, fmt.Errorf("%w: %d of %d candidate files avoid the top objects, need %d", ErrNoP2P, len(ok), len(cands), minFiles)
		}
		drop := ch.Top[0]
		for _, id := range ch.Top[1:] {
			if count[id] > count[drop] {
				drop = id
			}
		}
		ch.Dropped = append(ch.Dropped, drop)
		ch.Top = slices.DeleteFunc(ch.Top, func(id string) bool { return id == drop })
	}
}
