package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// Keyer is implemented by runners whose configuration changes their reports (Local does):
// RunKey returns a string that identifies the runner's configuration and everything in req
// except the tree's contents. Cache uses it in its key; runners without it are keyed by the
// request alone.
type Keyer interface {
	RunKey(req task.RunRequest) string
}

// CacheOptions configure a Cache. The zero value works.
type CacheOptions struct {
	// Dir, when set, persists reports as JSON files (one per key) so other processes, and
	// a run started again after being killed, reuse them. Without it the cache lives in
	// memory only. ResultsDir is the programs' default.
	Dir string
	// Jobs bounds the runs of the underlying runner in flight (default
	// runtime.GOMAXPROCS(0)). Jobs is the name of this bound in every package: concurrent
	// test runs or oracle calls.
	Jobs int
}

// Stats are a Cache's counters.
type Stats struct {
	Runs      int           // runs of the underlying runner
	CacheHits int           // requests served from memory or disk
	Coalesced int           // requests that waited for an identical run in flight
	RunTime   time.Duration // total wall time of the underlying runs
}

// Cache wraps a runner with a content-addressed result cache, a bounded worker pool and
// coalescing of identical concurrent requests. The key is a SHA-256 of the faultline build
// (stampOf), the runner's RunKey (or the request's kind, selection, args and limits) and
// every input file's content after the overlay (see TreeHasher), so the same program is
// never run twice by one build. Reports whose run
// broke for a reason outside the program (RunSetupFailed) and errors are not cached.
//
// The time limit (Limits.Timeout) is not in the key: a program that finished in less than
// the limit asked for would have finished under it, and one that was stopped at a limit
// would be stopped at any shorter one. A report serves a request when it was made under the
// same limit, or under another one and either finished (no timeout, run or test) in less
// than the limit asked for or timed out under a limit at least as long; otherwise the
// program runs again and its report replaces the old one. So a limit derived from a measured
// baseline (TimeoutRule), which differs a little from run to run, does not make a program
// run again when the run is started again. A zero limit (the runner's default) is only
// equal to itself.
//
// Cache implements task.Runner, and task.Lister when the wrapped runner does. It is safe for
// concurrent use.
type Cache struct {
	r      task.Runner
	opts   CacheOptions
	hasher *TreeHasher
	stamp  string // the faultline build (buildStamp), part of every key
	sem    chan struct{}

	mu     sync.Mutex
	mem    map[string]stored
	flight map[string]*flight
	stats  Stats
}

// stored is a report with the time limit it was made under.
type stored struct {
	rep     *task.Report
	timeout time.Duration
}

// serves reports whether s answers a request with time limit t (see Cache).
func (s stored) serves(t time.Duration) bool {
	switch {
	case s.rep == nil:
		return false
	case s.timeout == t:
		return true
	case s.timeout == 0 || t == 0:
		return false
	case timedOut(s.rep):
		return t <= s.timeout
	}
	return s.rep.Wall < t
}

// timedOut reports whether the run, or a test of it, was stopped by a time limit.
func timedOut(r *task.Report) bool {
	if r.State == task.RunTimeout {
		return true
	}
	for _, t := range r.Tests {
		if t.Outcome == task.Timeout {
			return true
		}
	}
	return false
}

type flight struct {
	done chan struct{}
	rep  *task.Report
	err  error
}

// cacheFormat names the key scheme and the layout of an entry on disk; it changes whenever
// either changes (or task.Report changes in a way an old entry would decode wrongly), so an
// old entry is never read as a new one.
const cacheFormat = "faultline-sandbox-cache/v2"

// module is faultline's module path, looked up in the build information.
const module = "github.com/faultline-dev/faultline"

// buildStamp is the faultline build that Cache keys hold, so a report is read back only by
// the build that made it: a fix to how verdicts are read invalidates the entries made
// before it without a format change. It is computed once per process (see stampOf).
var buildStamp = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return stampOf(bi)
})

// stampOf names the faultline build of a program from its build information: the module
// version when faultline is a dependency (with its checksum, or the replacement's path or
// version when replaced), and when faultline is the main module its version, or for a
// development build the VCS revision the go command stamped (with "+dirty" for a modified
// tree). Test binaries and builds made with -buildvcs=false carry neither: their stamp is
// empty, and entries are shared between such builds (remove the cache directory when
// testing a change to verdicts by hand).
func stampOf(bi *debug.BuildInfo) string {
	if bi.Main.Path == module {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if rev == "" {
			return ""
		}
		return rev + dirty
	}
	for _, d := range bi.Deps {
		if d.Path != module {
			continue
		}
		if r := d.Replace; r != nil {
			return "replaced:" + r.Path + "@" + r.Version + " " + r.Sum
		}
		return d.Version + " " + d.Sum
	}
	return ""
}

// ResultsDir is the default directory of the programs' on-disk result cache,
// $XDG_CACHE_HOME/faultline/results (os.UserCacheDir: ~/.cache/faultline/results on Linux),
// beside faultline's Go build cache (FaultlineGoCache) and prepare markers.
func ResultsDir() (string, error) {
	d, err := faultlineCacheDir("results")
	if err != nil {
		return "", fmt.Errorf("sandbox: no cache directory for the results: %w", err)
	}
	return d, nil
}

// NewCache wraps r.
func NewCache(r task.Runner, opts CacheOptions) *Cache {
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	return &Cache{
		r: r, opts: opts, hasher: NewTreeHasher(), stamp: buildStamp(),
		sem:    make(chan struct{}, opts.Jobs),
		mem:    map[string]stored{},
		flight: map[string]*flight{},
	}
}

type noCacheKey struct{}

// WithoutCache returns a context that makes a Cache run the request even when it has a
// report for it (the fresh report replaces the cached one).
func WithoutCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, noCacheKey{}, true)
}

// Key returns the cache key of req: everything but the time limit (see Cache), and the
// faultline build (see stampOf).
func (c *Cache) Key(req task.RunRequest) (string, error) {
	tree, err := c.hasher.Hash(req.Root, req.Overlay)
	if err != nil {
		return "", err
	}
	// One fixed limit stands for every limit (non-zero, so that no runner replaces it by
	// its default).
	req.Limits.Timeout = time.Nanosecond
	var runKey string
	if k, ok := c.r.(Keyer); ok {
		runKey = k.RunKey(req)
	} else {
		b, _ := json.Marshal([]any{req.Kind, req.Select, req.Args, req.Limits})
		runKey = string(b)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", cacheFormat, c.stamp, runKey, tree)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Stats returns a snapshot of the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func cloneReport(r *task.Report, cached bool) *task.Report {
	cp := *r
	cp.Tests = append([]task.TestResult(nil), r.Tests...)
	cp.Notes = append([]string(nil), r.Notes...)
	cp.Cached = cached
	return &cp
}

// Run serves req from the cache or runs it.
func (c *Cache) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	key, err := c.Key(req)
	if err != nil {
		return nil, err
	}
	if n := task.RepeatOf(ctx); n > 0 {
		// A repeat (task.WithRepeat) is cached on its own.
		h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00repeat %d", key, n)))
		key = hex.EncodeToString(h[:])
	}
	limit := req.Limits.Timeout
	// Identical requests in flight are those with the same key and limit.
	fkey := key + "\x00" + limit.String()
	bypass := ctx.Value(noCacheKey{}) != nil
	c.mu.Lock()
	if !bypass {
		if s := c.mem[key]; s.serves(limit) {
			c.stats.CacheHits++
			c.mu.Unlock()
			return cloneReport(s.rep, true), nil
		}
		if f, ok := c.flight[fkey]; ok {
			c.stats.Coalesced++
			c.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return nil, fmt.Errorf("sandbox: waiting for an identical run: %w", ctx.Err())
			}
			if f.err != nil {
				return nil, f.err
			}
			return cloneReport(f.rep, true), nil
		}
	}
	c.mu.Unlock()
	if !bypass {
		if s, ok := c.load(key); ok && s.serves(limit) {
			c.mu.Lock()
			c.mem[key] = s
			c.stats.CacheHits++
			c.mu.Unlock()
			return cloneReport(s.rep, true), nil
		}
	}
	f := &flight{done: make(chan struct{})}
	c.mu.Lock()
	if !bypass {
		if g, ok := c.flight[fkey]; ok { // lost a race with an identical request
			c.stats.Coalesced++
			c.mu.Unlock()
			<-g.done
			if g.err != nil {
				return nil, g.err
			}
			return cloneReport(g.rep, true), nil
		}
		c.flight[fkey] = f
	}
	c.mu.Unlock()

	f.rep, f.err = c.runBounded(ctx, req)
	c.mu.Lock()
	if !bypass {
		delete(c.flight, fkey)
	}
	if f.err == nil {
		c.stats.Runs++
		c.stats.RunTime += f.rep.Wall
		if f.rep.State != task.RunSetupFailed {
			c.mem[key] = stored{cloneReport(f.rep, false), limit}
		}
	}
	c.mu.Unlock()
	close(f.done)
	if f.err != nil {
		return nil, f.err
	}
	if f.rep.State != task.RunSetupFailed {
		if err := c.store(key, stored{f.rep, limit}); err != nil {
			return nil, err
		}
	}
	return cloneReport(f.rep, false), nil
}

func (c *Cache) runBounded(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("sandbox: waiting for a worker: %w", ctx.Err())
	}
	defer func() { <-c.sem }()
	rep, err := c.r.Run(ctx, req)
	if err == nil && rep == nil {
		err = errors.New("sandbox: runner returned no report and no error")
	}
	return rep, err
}

// List delegates to the wrapped runner when it is a task.Lister (lists are not cached).
func (c *Cache) List(ctx context.Context, req task.RunRequest) ([]string, error) {
	l, ok := c.r.(task.Lister)
	if !ok {
		return nil, fmt.Errorf("sandbox: %T cannot list tests: %w", c.r, errors.ErrUnsupported)
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("sandbox: waiting for a worker: %w", ctx.Err())
	}
	defer func() { <-c.sem }()
	return l.List(ctx, req)
}

// Notes delegates to the wrapped runner when it has notes (Local's on its isolation), so a
// Cache can stand for its runner in Check.
func (c *Cache) Notes() []string {
	if n, ok := c.r.(interface{ Notes() []string }); ok {
		return n.Notes()
	}
	return nil
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.opts.Dir, key[:2], key+".json")
}

// entry is a report on disk with its key and format: a file that is not a whole entry for
// this key (cut short by a crash, written by another version, copied to the wrong name)
// is a miss.
type entry struct {
	Format  string        `json:"format"`
	Key     string        `json:"key"`
	Timeout time.Duration `json:"timeout"` // the limit the report was made under
	Report  *task.Report  `json:"report"`
}

func (c *Cache) load(key string) (stored, bool) {
	if c.opts.Dir == "" {
		return stored{}, false
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return stored{}, false
	}
	var e entry
	if json.Unmarshal(b, &e) != nil || e.Format != cacheFormat || e.Key != key || e.Report == nil {
		return stored{}, false // a damaged entry is a miss; the next store replaces it
	}
	return stored{e.Report, e.Timeout}, true
}

// store writes the entry to a temporary file in the entry's directory and renames it into
// place, so a reader (or a run started after a kill) sees the whole entry or none.
func (c *Cache) store(key string, s stored) error {
	if c.opts.Dir == "" {
		return nil
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("sandbox: cache: %w", err)
	}
	b, err := json.Marshal(entry{Format: cacheFormat, Key: key, Timeout: s.timeout, Report: s.rep})
	if err != nil {
		return fmt.Errorf("sandbox: cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if err != nil {
		return fmt.Errorf("sandbox: cache: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("sandbox: cache: %w", err)
	}
	return nil
}
