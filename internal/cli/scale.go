package cli

import (
	"flag"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/sandbox"
)

// CacheOff is the -cache value that turns the on-disk result cache off.
const CacheOff = "off"

// CacheFlag is the -cache flag of the programs that validate candidates (breakpoint,
// featurebench, pdb): the directory of the on-disk result cache (sandbox.Cache). Empty (the
// default) is sandbox.ResultsDir, $XDG_CACHE_HOME/faultline/results; "off" keeps results in
// memory only (write ./off for a directory of that name); "none", "no", "false" and "0" are
// refused, as a user writing them means "off". With the cache on, a run killed at
// any point and started again with the same flags serves the candidates it had validated
// from the cache and ends with the same output.
type CacheFlag struct{ Value string }

// AddCacheFlag defines -cache on fs.
func AddCacheFlag(fs *flag.FlagSet, c *CacheFlag) {
	fs.StringVar(&c.Value, "cache", "", "`DIR` of the on-disk result cache, so an interrupted run resumes without re-running what it validated (default: $XDG_CACHE_HOME/faultline/results; the word off: no directory, results kept in memory for this run only)")
}

// Dir resolves the flag: the cache directory, or "" when the cache is off. The default
// directory is an error only when the system names no cache directory (no $HOME); the
// message then says to pass -cache.
func (c CacheFlag) Dir() (string, error) {
	switch c.Value {
	case CacheOff:
		return "", nil
	case "none", "no", "false", "0":
		// Words that read as "no cache" would otherwise name a directory the cache fills.
		return "", fmt.Errorf("-cache %s: to turn the cache off write -cache off; for a directory of that name, ./%s", c.Value, c.Value)
	case "":
		d, err := sandbox.ResultsDir()
		if err != nil {
			return "", fmt.Errorf("-cache: %v (pass -cache DIR or -cache off)", err)
		}
		return d, nil
	}
	return c.Value, nil
}

// Shard is the -shard i/n flag: this run validates only the candidates of part I of N
// (0 ≤ I < N). The zero value (N = 0) is an unsharded run. See Owns for the partition.
type Shard struct{ I, N int }

// ParseShard reads "i/n" with 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("want i/n (e.g. 0/3), got %q", s)
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("want i/n with two integers (e.g. 0/3), got %q", s)
	case n < 1:
		return Shard{}, fmt.Errorf("want at least one shard, got %q", s)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("shard index %d out of range: shards of %d are numbered 0 to %d", i, n, n-1)
	}
	return Shard{I: i, N: n}, nil
}

// String returns "i/n", or "" for an unsharded run.
func (s *Shard) String() string {
	if s == nil || s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Set parses the flag's value (flag.Value): a bad value makes flag parsing fail with a
// message naming the flag, before any work.
func (s *Shard) Set(v string) error {
	p, err := ParseShard(v)
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// On reports whether the run is sharded (N ≥ 2; 0/1 is the whole run).
func (s Shard) On() bool { return s.N >= 2 }

// Owns reports whether the candidate named key belongs to this shard. The partition is by
// content, not by position: key's FNV-1a hash modulo N. Every shard then decides alone,
// from a candidate's name, whether to validate it — the position of a candidate in the
// seeded order is known only once the order is walked — and the same candidate always
// goes to the same shard whatever the other candidates are. An unsharded run owns all.
func (s Shard) Owns(key string) bool {
	if !s.On() {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()%uint64(s.N) == uint64(s.I)
}
