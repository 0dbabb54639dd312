package main

// Sharding: -shard i/n validates only the candidates (functions, or groups with -multi)
// that part i of n owns, and -merge joins the parts' records into the unsharded output.
//
// corrupt.Generate walks the candidates in one seeded order and keeps the first -n that
// pass. A shard walks the same order; for a candidate it does not own (cli.Shard.Owns on
// the candidate's function ids) the test run is answered with an empty report, so the
// candidate is rejected without running anything, and the shard keeps the first -n that
// pass among its own. Each record then carries the candidate's position in the global
// order. Any of the first -n passing candidates overall has fewer than -n passing
// candidates before it in its own shard, so the shard kept it: the union of the shards'
// records, ordered by position, begins with exactly the unsharded run's -n tasks. The merge
// keeps those and numbers them as the unsharded run does (the index in the record's id).

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/task"
)

// shardMember is the member of a shard's records that the merge reads (and removes).
const shardMember = "shard"

// shardInfo is that member: which part wrote the record, the candidate's position in the
// global order, and the run's -n.
type shardInfo struct {
	Shard     string `json:"shard"`
	Candidate int    `json:"candidate"`
	Wanted    int    `json:"wanted"`
}

// unitKey names a candidate for the partition: its function ids, sorted, one a line.
func unitKey(ids []string) string {
	ids = slices.Clone(ids)
	sort.Strings(ids)
	return strings.Join(slices.Compact(ids), "\n")
}

// sharder answers the test runs of candidates the shard does not own with an empty report
// and passes the others to r. It learns which functions a run corrupts from the checkers
// (every mutant is checked before it runs): each accepted mutant's file content is
// recorded with its function, and a group's joint mutant of one file with the functions
// whose edits it holds.
type sharder struct {
	shard cli.Shard
	r     task.Runner

	mu      sync.Mutex
	content map[[32]byte][]string // sha256(path, content) → function ids
	edits   map[string]string     // path and edit → function id
}

func newSharder(s cli.Shard, r task.Runner) *sharder {
	return &sharder{shard: s, r: r, content: map[[32]byte][]string{}, edits: map[string]string{}}
}

func fileKey(path string, data []byte) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", path)
	h.Write(data)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func editKey(path string, e corrupt.Edit) string {
	return fmt.Sprintf("%s\x00%d\x00%d\x00%s", path, e.Start, e.End, e.Text)
}

// checkers returns the checkers corrupt.Generate uses by default (a GoChecker on root for
// Go, the Python front end's syntax check for Python), each wrapped to record what it
// accepts.
func (s *sharder) checkers(root string) (map[string]corrupt.Checker, error) {
	gc, err := corrupt.NewGoChecker(root)
	if err != nil {
		return nil, err
	}
	return map[string]corrupt.Checker{
		"go":     recording{gc, s},
		"python": recording{corrupt.SyntaxChecker{Lang: python.New(python.Options{})}, s},
	}, nil
}

type recording struct {
	c corrupt.Checker
	s *sharder
}

func (r recording) Accept(m *corrupt.Mutant, src []byte) (bool, error) {
	ok, err := r.c.Accept(m, src)
	if err != nil || !ok {
		return ok, err
	}
	r.s.record(m, src)
	return true, nil
}

func (s *sharder) record(m *corrupt.Mutant, src []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fns []string
	if m.Function != "" {
		fns = []string{m.Function}
		for _, e := range m.Edits {
			s.edits[editKey(m.File, e)] = m.Function
		}
	} else { // a group's members in one file, checked together
		for _, e := range m.Edits {
			if f, ok := s.edits[editKey(m.File, e)]; ok {
				fns = append(fns, f)
			}
		}
	}
	s.content[fileKey(m.File, m.Apply(src))] = fns
}

// Run runs req unless it corrupts functions of another shard. A request whose files were
// not all recorded (not a candidate's run) runs.
func (s *sharder) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	if !s.shard.On() || len(req.Overlay) == 0 {
		return s.r.Run(ctx, req)
	}
	var fns []string
	s.mu.Lock()
	for _, p := range req.Overlay.Paths() {
		got, ok := s.content[fileKey(p, req.Overlay[p].Data)]
		if !ok {
			s.mu.Unlock()
			return s.r.Run(ctx, req)
		}
		fns = append(fns, got...)
	}
	s.mu.Unlock()
	if s.shard.Owns(unitKey(fns)) {
		return s.r.Run(ctx, req)
	}
	// Another shard's candidate: no test ran, so none fails and the candidate is rejected.
	return &task.Report{State: task.RunOK}, nil
}

// mergeShards reads the shards' record files and returns the unsharded run's records and
// its -n: every file's records with the shard member, from shards of one split (each
// once), with distinct candidates, ordered by candidate, the first -n kept and numbered
// from 0. An empty file is a shard that found nothing.
func mergeShards(files []string) ([]task.BreakpointProblem, int, error) {
	type rec struct {
		p    task.BreakpointProblem
		info shardInfo
	}
	var recs []rec
	split, wanted := 0, 0
	seenShard := map[string]int{} // shard → the file's position in files
	seenCand := map[int]string{}
	for fi, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, 0, err
		}
		n := 0
		err = task.ReadJSONL(fh, func(line int, p task.BreakpointProblem) error {
			where := fmt.Sprintf("%s:%d", f, line)
			var info shardInfo
			raw, ok := p.Extra[shardMember]
			if !ok || json.Unmarshal(raw, &info) != nil {
				return fmt.Errorf("%s: not a shard's record (no %q member; write shards with -shard i/n)", where, shardMember)
			}
			s, err := cli.ParseShard(info.Shard)
			if err != nil || info.Wanted < 1 || info.Candidate < 0 {
				return fmt.Errorf("%s: bad %q member %s", where, shardMember, raw)
			}
			switch {
			case split == 0:
				split, wanted = s.N, info.Wanted
			case s.N != split:
				return fmt.Errorf("%s: shard %s is not of the same split as the others (of %d)", where, info.Shard, split)
			case info.Wanted != wanted:
				return fmt.Errorf("%s: written with -n %d, the others with -n %d", where, info.Wanted, wanted)
			}
			if g, ok := seenShard[info.Shard]; ok && g != fi {
				return fmt.Errorf("%s: shard %s is also in %s (argument %d)", where, info.Shard, files[g], g+1)
			}
			seenShard[info.Shard] = fi
			if g, ok := seenCand[info.Candidate]; ok {
				return fmt.Errorf("%s: candidate %d is also in %s", where, info.Candidate, g)
			}
			seenCand[info.Candidate] = where
			if idx, err := taskIndex(p.ID); err != nil || idx != n {
				return fmt.Errorf("%s: id %q is not the shard's task %d", where, p.ID, n)
			}
			n++
			recs = append(recs, rec{p, info})
			return nil
		})
		fh.Close()
		if err != nil {
			return nil, 0, err
		}
	}
	if len(files) != split && split != 0 {
		return nil, 0, fmt.Errorf("%d file(s) for a split into %d shards: merge every shard's file (empty ones too)", len(files), split)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].info.Candidate < recs[j].info.Candidate })
	if len(recs) > wanted {
		recs = recs[:wanted]
	}
	out := make([]task.BreakpointProblem, len(recs))
	for i, r := range recs {
		p := r.p
		p.ID = withTaskIndex(p.ID, i)
		delete(p.Extra, shardMember)
		out[i] = p
	}
	return out, wanted, nil
}

// taskIndex reads the task's index from its id (repo.mode.seed.index.hash, see
// corrupt.Result.Problem); withTaskIndex replaces it.
func taskIndex(id string) (int, error) {
	parts := strings.Split(id, ".")
	if len(parts) < 5 {
		return 0, fmt.Errorf("id %q: want repo.mode.seed.index.hash", id)
	}
	return strconv.Atoi(parts[len(parts)-2])
}

func withTaskIndex(id string, i int) string {
	parts := strings.Split(id, ".")
	parts[len(parts)-2] = strconv.Itoa(i)
	return strings.Join(parts, ".")
}

// merge is -merge: it writes the unsharded records of the shards' files to -out and says
// how many of -n they are; fewer than -n is a failure, as in an unsharded run.
func merge(files []string, out string, stdout, stderr io.Writer) error {
	problems, wanted, err := mergeShards(files)
	if err != nil {
		return err
	}
	if len(problems) == 0 {
		return fmt.Errorf("0 task(s) in %d shard file(s); nothing written", len(files))
	}
	f, err := cli.Create(out, stdout)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := task.WriteJSONL(f, problems); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	what := fmt.Sprintf("%d of %d task(s) from %d shard(s)", len(problems), wanted, len(files))
	fmt.Fprintf(stderr, "breakpoint: %s; written to %s\n", what, out)
	if len(problems) < wanted {
		return fmt.Errorf("%s: the shards' candidates ran out", what)
	}
	return nil
}
