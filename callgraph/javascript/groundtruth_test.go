package javascript

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

// groundTruth is an edge list written by testdata/gtgen (the TypeScript checker's view of
// a package, see testdata/groundtruth/README.md).
type groundTruth struct {
	pkg, version string
	files        []string
	defs         map[string]bool
	edges        map[[2]string]bool
}

func readGroundTruth(t testing.TB, name string) groundTruth {
	t.Helper()
	p := filepath.Join("testdata", "groundtruth", name)
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	gt := groundTruth{defs: map[string]bool{}, edges: map[[2]string]bool{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "package":
			gt.pkg, gt.version = fields[1], fields[2]
		case len(fields) >= 1 && fields[0] == "source":
		case len(fields) == 2 && fields[0] == "file":
			gt.files = append(gt.files, fields[1])
		case len(fields) == 2 && fields[0] == "def":
			gt.defs[fields[1]] = true
		case len(fields) == 3 && fields[0] == "edge":
			gt.edges[[2]string{fields[1], fields[2]}] = true
		default:
			t.Fatalf("%s:%d: unexpected line %q", p, line, sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, gt.pkg, "%s: no package line", p)
	return gt
}

// debianDir returns the installed package's directory, skipping the test when the Debian
// package is absent or installed in another version than the ground truth was made from.
func debianDir(t testing.TB, gt groundTruth, deb string) string {
	t.Helper()
	dir := filepath.Join("/usr/share/nodejs", gt.pkg)
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Skipf("%s is not installed (apt-get install -y %s): %v", gt.pkg, deb, err)
	}
	var meta struct{ Version string }
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Skipf("%s/package.json: %v", dir, err)
	}
	if meta.Version != gt.version {
		t.Skipf("%s %s is installed, the ground truth is for %s: regenerate it (testdata/groundtruth/README.md)",
			gt.pkg, meta.Version, gt.version)
	}
	return dir
}

func loadPackage(t testing.TB, dir string, gt groundTruth) []callgraph.SourceFile {
	t.Helper()
	var files []callgraph.SourceFile
	for _, p := range gt.files {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		require.NoError(t, err)
		files = append(files, callgraph.SourceFile{Path: p, Src: src})
	}
	return files
}

// comparison is the front end's result measured against a ground truth.
type comparison struct {
	p, r               float64
	fp, fn             [][2]string
	onlyOurs, onlyGT   []string // definitions named by one side only
	gotEdges, gtEdges  int
	callSites, unknown int
}

func compareGroundTruth(a *callgraph.Analysis, gt groundTruth) comparison {
	var c comparison
	got := map[[2]string]bool{}
	for _, call := range a.Calls {
		got[[2]string{call.Caller, call.Callee}] = true
	}
	tp := 0
	for e := range got {
		if gt.edges[e] {
			tp++
		} else {
			c.fp = append(c.fp, e)
		}
	}
	for e := range gt.edges {
		if !got[e] {
			c.fn = append(c.fn, e)
		}
	}
	sortEdges := func(l [][2]string) {
		sort.Slice(l, func(i, j int) bool { return l[i][0]+" "+l[i][1] < l[j][0]+" "+l[j][1] })
	}
	sortEdges(c.fp)
	sortEdges(c.fn)
	c.gotEdges, c.gtEdges = len(got), len(gt.edges)
	if len(got) > 0 {
		c.p = float64(tp) / float64(len(got))
	}
	if len(gt.edges) > 0 {
		c.r = float64(tp) / float64(len(gt.edges))
	}
	ours := map[string]bool{}
	for _, d := range a.Definitions {
		if d.Kind == task.KindModule {
			continue
		}
		ours[d.ID] = true
		if !gt.defs[d.ID] {
			c.onlyOurs = append(c.onlyOurs, d.ID)
		}
	}
	for id := range gt.defs {
		if !ours[id] {
			c.onlyGT = append(c.onlyGT, id)
		}
	}
	sort.Strings(c.onlyOurs)
	sort.Strings(c.onlyGT)
	c.callSites, c.unknown = a.CallSites, a.Unresolved
	return c
}

// TestGroundTruth compares the front end's edges with the TypeScript checker's call graph
// (testdata/groundtruth, written by testdata/gtgen) on Debian's node packages, read from
// /usr/share/nodejs (the test skips when a package is absent). The checker's graph is a
// lower bound of the real calls (it has no edge where a value's type is unknown), so a
// "false positive" may still be a real call; see the README for what each side counts.
// Targets: precision ≥ 0.95, recall ≥ 0.80. The floors are the measured values, rounded
// down to two decimals.
//
// semver, commander, marked and js-yaml guided the resolver's rules (their misses were
// studied and fixed where the fix generalises); argparse and lru-cache were measured
// first with those rules in place, as held-out subjects (argparse P 1.000 / R 0.996,
// lru-cache P 0.828 / R 0.812), and then gave two more rules. minimatch, yargs, ws,
// escodegen and diff are a second held-out round, measured with every rule in place.
//
// What remains: commander's two "false positives" are real calls the checker does not
// type (this._exitCallback is null in the constructor and set to a function later), and
// so are ws's four (zlibLimiter.add(): a module-level `let zlibLimiter;` assigned
// new Limiter() in a constructor, which the checker's flow typing does not carry into
// other functions; perMessageDeflate.accept() in a callback; duplex._final calling itself
// again, where the checker sees the library's Duplex method). The misses are listed in
// the README.
//
// GROUNDTRUTH_DIFF=1 logs every false positive, missed edge and naming difference.
func TestGroundTruth(t *testing.T) {
	cases := []struct {
		file, deb  string
		minP, minR float64
		// syntax errors tree-sitter reports on valid code (file:line)
		knownErrors []string
	}{
		{file: "semver.txt", deb: "node-semver", minP: 1.00, minR: 0.97},
		{file: "commander.txt", deb: "node-commander", minP: 0.99, minR: 1.00},
		{file: "marked.txt", deb: "node-marked", minP: 1.00, minR: 1.00},
		{file: "js-yaml.txt", deb: "node-js-yaml", minP: 1.00, minR: 1.00},
		// `let subnamespace` followed by a line starting with `[`: valid by automatic
		// semicolon insertion, an error for the tree-sitter grammar (partial results).
		{file: "argparse.txt", deb: "node-argparse", minP: 1.00, minR: 1.00, knownErrors: []string{"argparse.js:1822"}},
		{file: "lru-cache.txt", deb: "node-lru-cache", minP: 1.00, minR: 0.98},
		// A second held-out round, measured with all the rules above in place.
		{file: "minimatch.txt", deb: "node-minimatch", minP: 1.00, minR: 0.84},
		{file: "yargs.txt", deb: "node-yargs", minP: 1.00, minR: 0.99},
		{file: "ws.txt", deb: "node-ws", minP: 0.95, minR: 0.98},
		{file: "escodegen.txt", deb: "node-escodegen", minP: 1.00, minR: 1.00},
		{file: "diff.txt", deb: "node-diff", minP: 1.00, minR: 1.00},
	}
	for _, tc := range cases {
		t.Run(strings.TrimSuffix(tc.file, ".txt"), func(t *testing.T) {
			gt := readGroundTruth(t, tc.file)
			dir := debianDir(t, gt, tc.deb)
			a, err := New(Options{}).Analyze(context.Background(), loadPackage(t, dir, gt))
			require.NoError(t, err)
			var errs []string
			for _, e := range a.Errors {
				var se *callgraph.SyntaxError
				require.ErrorAs(t, e, &se)
				errs = append(errs, fmt.Sprintf("%s:%d", se.Path, se.Line))
			}
			assert.Equal(t, tc.knownErrors, errs, "syntax errors in %s", gt.pkg)
			c := compareGroundTruth(a, gt)
			t.Logf("%s %s: precision %.3f recall %.3f (%d edges, %d in the ground truth, %d false positives, %d missed); "+
				"%d definitions named by us only, %d by the ground truth only; %d call sites, %d unresolved",
				gt.pkg, gt.version, c.p, c.r, c.gotEdges, c.gtEdges, len(c.fp), len(c.fn),
				len(c.onlyOurs), len(c.onlyGT), c.callSites, c.unknown)
			if os.Getenv("GROUNDTRUTH_DIFF") != "" {
				for _, e := range c.fp {
					t.Logf("  FP %s -> %s", e[0], e[1])
				}
				for _, e := range c.fn {
					t.Logf("  FN %s -> %s", e[0], e[1])
				}
				for _, id := range c.onlyOurs {
					t.Logf("  def only ours %s", id)
				}
				for _, id := range c.onlyGT {
					t.Logf("  def only ground truth %s", id)
				}
			}
			// Both sides name the same definitions: a difference would turn into false
			// positives and misses that say nothing about resolution.
			assert.Empty(t, c.onlyOurs, "definitions the ground truth does not name")
			assert.Empty(t, c.onlyGT, "definitions the front end does not name")
			assert.GreaterOrEqual(t, c.p, tc.minP, "precision")
			assert.GreaterOrEqual(t, c.r, tc.minR, "recall")
		})
	}
}

// TestFixturesAgainstChecker compares the front end on its own fixtures (testdata/app,
// testdata/tsapp, whose edges are also hand-checked in TestAppEdges and
// TestTypeScriptEdges) with the TypeScript checker's graph of them: every checker edge is
// found, and the only extra edges are the two calls through main.mjs's default import of
// the CommonJS counter.js, which the checker does not type.
func TestFixturesAgainstChecker(t *testing.T) {
	cases := []struct {
		file, dir string
		extra     [][2]string
	}{
		{"fixture-app.txt", "app", [][2]string{
			{"main.mjs::<module>", "lib/counter.js::Counter.constructor"},
			{"main.mjs::<module>", "lib/counter.js::Counter.inc"},
		}},
		{"fixture-tsapp.txt", "tsapp", nil},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			gt := readGroundTruth(t, tc.file)
			a, err := New(Options{}).Analyze(context.Background(), loadPackage(t, filepath.Join("testdata", tc.dir), gt))
			require.NoError(t, err)
			require.Empty(t, a.Errors)
			c := compareGroundTruth(a, gt)
			assert.Empty(t, c.fn, "checker edges the front end misses")
			assert.Equal(t, tc.extra, c.fp, "edges the checker does not have")
			assert.Empty(t, c.onlyOurs, "definitions the checker's naming pass does not name")
			assert.Empty(t, c.onlyGT, "definitions the front end does not name")
		})
	}
}

// TestGroundTruthReproducible regenerates the fixtures' ground truth and semver's with
// testdata/gtgen and compares them with the stored files, so the stored edge lists stay
// those the committed generator writes. It needs node and Debian's node-typescript (and
// node-semver for semver's).
func TestGroundTruthReproducible(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed (apt-get install -y nodejs): %v", err)
	}
	if _, err := os.Stat("/usr/share/nodejs/typescript/package.json"); err != nil {
		t.Skipf("the TypeScript compiler is not installed (apt-get install -y node-typescript): %v", err)
	}
	gen, err := filepath.Abs(filepath.Join("testdata", "gtgen", "gtgen.js"))
	require.NoError(t, err)
	cases := []struct{ stored, dir, pkg, version, source string }{
		{"fixture-app.txt", filepath.Join("testdata", "app"), "app", "0", ""},
		{"fixture-tsapp.txt", filepath.Join("testdata", "tsapp"), "tsapp", "0", ""},
		{"semver.txt", "/usr/share/nodejs/semver", "semver", "7.3.5", "debian node-semver 7.3.5+~7.3.9-2"},
	}
	for _, tc := range cases {
		t.Run(tc.pkg, func(t *testing.T) {
			gt := readGroundTruth(t, tc.stored)
			if tc.source != "" {
				debianDir(t, gt, "node-semver")
			}
			args := []string{gen, "-root", tc.dir, "-package", tc.pkg, "-version", tc.version}
			if tc.source != "" {
				args = append(args, "-source", tc.source)
			}
			args = append(args, gt.files...)
			cmd := exec.Command(node, args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, stderr.String())
			want, err := os.ReadFile(filepath.Join("testdata", "groundtruth", tc.stored))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(out))
		})
	}
}
