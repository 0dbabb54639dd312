package metrics

import (
	"context"
	"crypto/sha256"
	"sync"
	"sync/atomic"

	"github.com/faultline-dev/faultline/task"
)

// Cache memoises oracle verdicts by scope and exact program text. The scope names the test
// identity (for the example CLI: the task id, whose tests the oracle runs); two programs
// with the same text under the same scope share one verdict. Concurrent requests for the
// same key share a single oracle call (single flight). Verdicts are kept whole (a timeout
// stays a timeout, see task.VerdictOracle); errors are not cached: a later request retries
// the oracle.
//
// A Cache is safe for concurrent use by multiple goroutines. The zero Cache is not usable;
// call NewCache.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
}

type cacheKey struct {
	scope string
	sum   [sha256.Size]byte
}

type cacheEntry struct {
	done    chan struct{}
	verdict task.Verdict
	err     error
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{entries: make(map[cacheKey]*cacheEntry)} }

// Len returns the number of cached verdicts.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.entries {
		select {
		case <-e.done:
			if e.err == nil {
				n++
			}
		default:
		}
	}
	return n
}

// verdict returns the verdict for program under scope, calling o on a miss. called
// reports whether this request made the call.
func (c *Cache) verdict(ctx context.Context, scope string, o task.Oracle, program string) (v task.Verdict, called bool, err error) {
	key := cacheKey{scope: scope, sum: sha256.Sum256([]byte(program))}
	for {
		c.mu.Lock()
		e, found := c.entries[key]
		if !found {
			e = &cacheEntry{done: make(chan struct{})}
			c.entries[key] = e
			c.mu.Unlock()
			e.verdict, e.err = task.VerdictOf(ctx, o, program)
			if e.err != nil {
				c.mu.Lock()
				delete(c.entries, key)
				c.mu.Unlock()
			}
			close(e.done)
			return e.verdict, true, e.err
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return task.Verdict{}, false, ctx.Err()
		}
		if e.err == nil {
			return e.verdict, false, nil
		}
		// The call we waited for failed; retry (the failed entry was removed).
	}
}

// CountingOracle is a task.VerdictOracle served through a Cache under one scope. It counts
// the calls it forwards to the underlying oracle (cache misses); hits are free. It is safe
// for concurrent use.
type CountingOracle struct {
	cache  *Cache
	scope  string
	oracle task.Oracle
	calls  atomic.Int64
}

// Oracle returns a CountingOracle that answers from c under scope and asks o on a miss.
func (c *Cache) Oracle(scope string, o task.Oracle) *CountingOracle {
	return &CountingOracle{cache: c, scope: scope, oracle: o}
}

// Passes implements task.Oracle.
func (co *CountingOracle) Passes(ctx context.Context, program string) (bool, error) {
	v, err := co.Verdict(ctx, program)
	return v.Passed(), err
}

// Verdict implements task.VerdictOracle: the underlying oracle's verdict (Pass or Fail
// from Passes when it is a plain task.Oracle).
func (co *CountingOracle) Verdict(ctx context.Context, program string) (task.Verdict, error) {
	v, called, err := co.cache.verdict(ctx, co.scope, co.oracle, program)
	if called {
		co.calls.Add(1)
	}
	return v, err
}

// Calls returns the number of calls forwarded to the underlying oracle so far.
func (co *CountingOracle) Calls() int { return int(co.calls.Load()) }
