package main

// Sharding of compose: -shard i/n validates only the bug candidates of part i of n and
// writes the accepted bugs' positions in the global candidate order; -merge, with the
// flags of the shards, takes the first -m1 of the shards' bugs in that order — the bugs an
// unsharded run validates — and composes them as the unsharded run does, so it writes the
// unsharded output byte for byte. The composition itself (which needs the whole pool) is
// not split; validating candidates is what costs.
//
// The candidates are the default rule source's (compose.Rules{MaxSpan: MaxLines}, as
// compose.Options documents), generated in full by every shard and by the merge from the
// same seed, so they agree on the order. A candidate belongs to the shard that owns its
// buggy program (cli.Shard.Owns on the program's text): two candidates that make the same
// program, of which compose keeps only the first, go to the same shard.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/compose"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/task"
)

// shardBug is one record of a shard's output: a validated bug and where its candidate is
// in the global order, with what the merge checks the shards agree on.
type shardBug struct {
	Shard     string      `json:"shard"`
	Candidate int         `json:"candidate"`
	M1        int         `json:"m1"`
	Seed      uint64      `json:"seed"`
	Program   string      `json:"program"` // sha256 of the correct program (compose.Canonical)
	Bug       compose.Bug `json:"bug"`
}

// candidateTag separates a candidate's source from its global position while a shard
// validates it (Bug.Source carries it back; the source does not decide acceptance).
const candidateTag = "\x00candidate="

// shardSource proposes the candidates of one shard (shard set), or those at the positions
// of pick (the merge), out of the inner source's full list in its order.
type shardSource struct {
	inner compose.BugSource
	shard cli.Shard
	pick  []int
}

func (s shardSource) Candidates(ctx context.Context, req compose.Request, rng *rand.Rand) ([]compose.Candidate, error) {
	all, err := s.inner.Candidates(ctx, req, rng)
	if err != nil {
		return nil, err
	}
	var out []compose.Candidate
	if s.pick != nil {
		for _, k := range s.pick {
			if k >= len(all) {
				return nil, fmt.Errorf("shard record of candidate %d: the source proposes %d candidates (were the shards run with these flags?)", k, len(all))
			}
			out = append(out, all[k])
		}
		return out, nil
	}
	for k, c := range all {
		if s.shard.Owns(buggyKey(req.Program, c)) {
			c.Source += candidateTag + strconv.Itoa(k)
			out = append(out, c)
		}
	}
	return out, nil
}

// buggyKey is the program a candidate makes, as compose computes it; a candidate whose
// edits do not apply (compose rejects it) is named by its edits.
func buggyKey(program string, c compose.Candidate) string {
	fwd := c.Edits
	if fwd == nil {
		fwd = task.DiffLines(program, c.Buggy).Clean()
	}
	buggy, err := task.ApplyStrict(program, fwd)
	if err != nil {
		return fmt.Sprintf("unappliable %v", fwd)
	}
	return buggy
}

func programHash(program string) string {
	sum := sha256.Sum256([]byte(compose.Canonical(program)))
	return hex.EncodeToString(sum[:])
}

// writeShard writes the shard's bugs (res.Pool, tagged by shardSource) as JSONL.
func writeShard(out io.Writer, f composeFlags, program string, res *compose.Result) error {
	recs := make([]shardBug, 0, len(res.Pool))
	for _, b := range res.Pool {
		src, k, ok := strings.Cut(b.Source, candidateTag)
		cand, err := strconv.Atoi(k)
		if !ok || err != nil {
			return fmt.Errorf("compose: bug %+v carries no candidate position", b)
		}
		b.Source = src
		recs = append(recs, shardBug{Shard: f.shard.String(), Candidate: cand, M1: f.opts.M1, Seed: f.opts.Seed, Program: programHash(program), Bug: b})
	}
	return task.WriteJSONL(out, recs)
}

// readShards reads the shards' files and returns the candidate positions of the first -m1
// bugs in the global order. The files must be every shard of one split, written for this
// program, seed and -m1.
func readShards(files []string, f composeFlags, program string) ([]int, error) {
	split := 0
	seen := map[string]int{} // shard → the file's position in files
	var cands []int
	want := programHash(program)
	for i, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			return nil, flagErr("merge", "%v", err)
		}
		err = task.ReadJSONL(fh, func(line int, r shardBug) error {
			where := fmt.Sprintf("%s:%d", name, line)
			s, err := cli.ParseShard(r.Shard)
			switch {
			case err != nil:
				return fmt.Errorf("%s: not a shard's record (shard %q; write shards with -shard i/n)", where, r.Shard)
			case split != 0 && s.N != split:
				return fmt.Errorf("%s: shard %s is not of the same split as the others (of %d)", where, r.Shard, split)
			case r.Program != want:
				return fmt.Errorf("%s: written for another -program", where)
			case r.Seed != f.opts.Seed || r.M1 != f.opts.M1:
				return fmt.Errorf("%s: written with -seed %d -m1 %d, merging with -seed %d -m1 %d", where, r.Seed, r.M1, f.opts.Seed, f.opts.M1)
			case r.Candidate < 0:
				return fmt.Errorf("%s: candidate %d", where, r.Candidate)
			}
			split = s.N
			if g, ok := seen[r.Shard]; ok && g != i {
				return fmt.Errorf("%s: shard %s is also in %s (argument %d)", where, r.Shard, files[g], g+1)
			}
			seen[r.Shard] = i
			cands = append(cands, r.Candidate)
			return nil
		})
		fh.Close()
		if err != nil {
			return nil, usageError{err}
		}
	}
	if split != 0 && len(files) != split {
		return nil, flagErr("merge", "%d file(s) for a split into %d shards: merge every shard's file (empty ones too)", len(files), split)
	}
	sort.Ints(cands)
	for i := 1; i < len(cands); i++ {
		if cands[i] == cands[i-1] {
			return nil, flagErr("merge", "candidate %d is in two shards' files", cands[i])
		}
	}
	if len(cands) > f.opts.M1 {
		cands = cands[:f.opts.M1]
	}
	if cands == nil {
		cands = []int{} // no bug: the merge validates none (nil would mean no merge)
	}
	return cands, nil
}

// parseComposeArgs parses compose's flags and, with -merge, the shard files after them.
func parseComposeArgs(fs *flag.FlagSet, args []string, f *composeFlags) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	switch {
	case f.merge && fs.NArg() == 0:
		return flagErr("merge", "name the shards' files (pdb compose -merge [the shards' flags] SHARD.jsonl...)")
	case f.merge && f.shard.On():
		return flagErr("merge", "merges shards; it is not one (drop -shard %s)", f.shard.String())
	case !f.merge && fs.NArg() > 0:
		return usageError{fmt.Errorf("unexpected argument %q (flags only; shard files only with -merge)", fs.Arg(0))}
	}
	f.mergeFiles = fs.Args()
	for _, name := range f.mergeFiles {
		if err := checkInput("merge", name, true); err != nil {
			return err
		}
	}
	return nil
}
