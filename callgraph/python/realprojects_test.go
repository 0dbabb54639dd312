package python

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// realProject is a Debian python3-* package with a hand-made call-graph ground truth in
// testdata/realprojects/<name> (how each truth was made: README.md there).
type realProject struct {
	name, deb string
	// heldOut projects were not looked at while the front end was tuned. The goal for
	// them is precision ≥ .98 and recall ≥ .85 (issue 18); the floors below are what the
	// front end reached at the end of the round that held them out, less a small margin,
	// so that the test guards against regressions without claiming the goal (see
	// README.md).
	heldOut    bool
	minP, minR float64
}

var realProjects = []realProject{
	// Round 13's module __getattr__ on `from validators import ...` took jsonschema's
	// recall from .961 to .970.
	{name: "jsonschema", deb: "python3-jsonschema", minP: 0.98, minR: 0.96},
	// Round 11's truth-test narrowing took websocket's precision to 1.000.
	{name: "websocket", deb: "python3-websocket", minP: 0.99, minR: 0.98},
	// toolz and ecdsa were held out in the first round; their misses and extras were
	// looked at in the second, which makes them tuning projects.
	{name: "toolz", deb: "python3-toolz", minP: 0.98, minR: 0.83},
	// Round 17's re-evaluation of a body cut short by a cycle through it took ecdsa to
	// R .941 (7 more Weierstrass-curve edges found) and P .868 (4 more Edwards-curve
	// ones: Curve.curve holds both kinds, README.md round 1): its precision floor is
	// .86 since.
	{name: "ecdsa", deb: "python3-ecdsa", minP: 0.86, minR: 0.94},
	// icalendar and hyperlink were held out in the second round (chosen, traced and
	// reviewed before any change); the third looked at their misses and extras.
	// Round 16's comprehension of class calls took icalendar's recall to .706.
	{name: "icalendar", deb: "python3-icalendar", minP: 0.99, minR: 0.70},
	// Round 11's isinstance_rebind (DecodedURL.click unwrapping href) took hyperlink's
	// precision from .963 to .990; round 14's self.__class__ calls took it to P .981
	// R .967 (DecodedURL._clone, README.md).
	{name: "hyperlink", deb: "python3-hyperlink", minP: 0.98, minR: 0.96},
	// webencodings was held out in the third round; isodate and voluptuous were chosen,
	// traced and reviewed in the fourth before the front end ran on them, and scored
	// once as held out (README.md has those numbers). The fourth round then looked at
	// the missing and extra edges of all three, which makes them tuning projects.
	{name: "webencodings", deb: "python3-webencodings", minP: 0.99, minR: 0.80},
	// Round 13's __getattr__ fallback (Duration forwarding to its timedelta) took isodate's
	// recall from .789 to .842.
	{name: "isodate", deb: "python3-isodate", minP: 0.99, minR: 0.84},
	// Round 16's comprehension of class calls took voluptuous to P .896 R .531.
	{name: "voluptuous", deb: "python3-voluptuous", minP: 0.89, minR: 0.53},
	// qrcode and cerberus were chosen, traced and reviewed in the fifth round before the
	// front end ran on them, and scored once as held out (README.md); the fifth round
	// then looked at their missing and extra edges, which makes them tuning projects.
	{name: "qrcode", deb: "python3-qrcode", minP: 0.96, minR: 0.86},
	// Round 10's handler lookup by formatted name (getattr_format_per_site) took
	// cerberus's recall from .709 to .762; round 14's self.__class__ calls to .807; round
	// 17's cycle re-evaluation and special methods on subclass instances to .811.
	{name: "cerberus", deb: "python3-cerberus", minP: 0.99, minR: 0.81},
	// fixtures and transaction were chosen, traced and reviewed in the sixth round and
	// their truths committed before the front end ran on them; scored once, with the
	// front end unchanged (fixtures P .950 R .927, transaction P .945 R .972). The
	// seventh round tuned on their misses and extras, which makes them tuning projects.
	{name: "fixtures", deb: "python3-fixtures", minP: 0.97, minR: 0.98},
	{name: "transaction", deb: "python3-transaction", minP: 0.97, minR: 0.98},
	// debtcollector and zope.schema were chosen, traced and reviewed in the seventh round
	// and their truths committed before the front end (with the round's rules in) ran
	// on them; scored once (debtcollector P .949 R 1.000, zope.schema P .978 R .761). The
	// eighth round tuned on their misses and extras, which makes them tuning projects.
	// zope.schema sits in the zope namespace package.
	{name: "debtcollector", deb: "python3-debtcollector", minP: 0.94, minR: 0.99},
	// Round 13's hashed subscript keys took zope.schema's recall from .809 to .813.
	{name: "zope/schema", deb: "python3-zope.schema", minP: 0.97, minR: 0.81},
	// h11 and automaton were chosen, traced and reviewed in the eighth round and their
	// truths committed before the front end ran on them; scored once with the front end
	// of the end of round 7 (h11 P .920 R .939, automaton P .974 R .925). Their misses
	// and extras were read at the end of round 8, which makes them tuning projects.
	// The ninth round's rules brought h11 to P 1.000 R .980 and automaton to R .950.
	{name: "h11", deb: "python3-h11", minP: 0.99, minR: 0.97},
	{name: "automaton", deb: "python3-automaton", minP: 0.96, minR: 0.94},
	// sievelib and testresources were chosen, traced and reviewed in the ninth round and
	// their truths committed before the front end ran on them; scored with the front end
	// of the end of round 8 (sievelib P .993 R .749, testresources P .883 R .914) and at
	// the end of round 9 (sievelib P .994 R .754, testresources unchanged): held out
	// until then. Their misses and extras were read after that (README.md), which makes
	// them tuning projects in round 10. Round 10's globals() rule found 32 of sievelib's
	// misses and added 10 extras (commands the parser and the factory build by name
	// reach methods the tests never ran at those sites): P .994 → .944, R .754 → .911;
	// catching the subclasses of a never-instantiated except class then found 4 more
	// (P .945, R .931), and getattr with a formatted name 3 more (R .946).
	{name: "sievelib", deb: "python3-sievelib", minP: 0.94, minR: 0.94},
	{name: "testresources", deb: "python3-testresources", minP: 0.87, minR: 0.90},
	// oslo.i18n and pycadf were chosen, traced and reviewed in the eleventh round and their
	// truths committed before the front end ran on them; scored once with the front end
	// of the end of round 10 (oslo.i18n P .974 R .927, pycadf P .982 R .797), held out
	// while round 11 tuned on the others, and scored again at its end: unchanged. The
	// floors are those scores, truncated. Their misses and extras were read after that
	// (README.md), which makes them tuning projects in round 12. Round 12 added to
	// oslo.i18n's truth the one edge the front end found and the trace missed (the tests
	// had mocked its callee): P .974 → 1.000, R .927 → .929; the round's store into an
	// outside module's attribute (gettext.find = cached_find) took R to .952. Its
	// setattr-with-constant descriptor store and and-narrowing took pycadf from P .982
	// R .797 to P 1.000 R 1.000.
	{name: "oslo_i18n", deb: "python3-oslo.i18n", minP: 0.99, minR: 0.95},
	{name: "pycadf", deb: "python3-pycadf", minP: 0.99, minR: 0.99},
	// zope.deprecation and repoze.lru were chosen, traced and reviewed in the twelfth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 12 start (the front end of the end of round 11): zope.deprecation P 1.000
	// R .577 (15 of 26), repoze.lru P 1.000 R 1.000 (24 of 24); the same at the round's
	// end (its three rules changed neither). The floors are those scores, truncated;
	// their misses were read after the end scores were taken (README.md), which makes
	// them tuning projects in round 13, whose attribute hooks and sys.modules stores took
	// zope.deprecation to P 1.000 R 1.000.
	{name: "zope/deprecation", deb: "python3-zope.deprecation", minP: 0.99, minR: 0.99},
	{name: "repoze/lru", deb: "python3-repoze.lru", minP: 0.99, minR: 0.99},
	// statsd and pymemcache were chosen, traced and reviewed in the thirteenth round and
	// their truths committed before the front end ran on them (README.md). Round 13 start
	// (the front end of the end of round 12): statsd P 1.000 R .907 (39 of 43),
	// pymemcache P .946 R .735 (158 of 215, 9 extras); the same at the round's end (its
	// four rules changed neither). Their misses and extras were read after that; two of
	// pymemcache's extras were real calls the tests had mocked (client._connect), added
	// to its truth: P .958 R .737 (160 of 217). The floors are those scores, truncated.
	// Two rules added after that (an instance's __getattr__ fallback, and what a
	// @contextmanager generator yields in `with g() as x`, found in pymemcache's misses)
	// took the then-seen pymemcache to P .963 R .848. Both are tuning projects in
	// round 14, whose self.__class__ calls took statsd to P 1.000 R 1.000.
	{name: "statsd", deb: "python3-statsd", minP: 0.99, minR: 0.99},
	{name: "pymemcache", deb: "python3-pymemcache", minP: 0.95, minR: 0.84},
	// oslo.rootwrap and oslo.policy were chosen, traced and reviewed in the fourteenth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 14 start (the front end of the end of round 13): oslo.rootwrap P .985 R .903
	// (65 of 72, 1 extra), oslo.policy P .920 R .679 (161 of 237, 14 extras); the same at
	// the round's end (its self.__class__ rule changed neither). Their extras were read
	// after that; four were real calls the tests had mocked, added to the truths:
	// oslo.rootwrap P 1.000 R .904 (66 of 73), oslo.policy P .937 R .683 (164 of 240).
	// The floors are those scores, truncated. Their misses and extras having been read,
	// both are tuning projects from round 15 on; round 15's copy.deepcopy(x) rule took
	// oslo.policy to P .939 R .767 (the rule defaults Enforcer.register_default stores).
	{name: "oslo_rootwrap", deb: "python3-oslo.rootwrap", minP: 0.99, minR: 0.90},
	{name: "oslo_policy", deb: "python3-oslo.policy", minP: 0.94, minR: 0.76},
	// lazr.config and wadllib were chosen, traced and reviewed in the fifteenth round and
	// their truths committed before the front end ran on them (README.md). Round 15
	// start (the front end of the end of round 14): lazr.config P .882 R .968 (60 of
	// 62, 8 extras), wadllib P .991 R .932 (110 of 118, 1 extra); the same at the
	// round's end (its copy.deepcopy rule changed neither). lazr.config's extras were
	// read after that; one was a real self.__class__ call the review tool listed no
	// candidate for, added to its truth: P .897 R .968 (61 of 63). Their edges having
	// been read, both are tuning projects from round 16 on. A rule added after that
	// (self.__dict__['name'] = v stores an instance attribute, from lazr.config's
	// Section) took lazr.config to P 1.000 R .968. Round 16 tuned on both: its
	// comprehension of class calls took wadllib to R 1.000 (the Parameter properties
	// read on `self.params(resource)`), and its x[key] through a project __getitem__
	// took lazr.config to R .984 (`self.schema[master_name]`), and round 17's
	// re-evaluation of a body cut short by a cycle to R 1.000.
	{name: "lazr/config", deb: "python3-lazr.config", minP: 0.99, minR: 1.0},
	{name: "wadllib", deb: "python3-wadllib", minP: 0.99, minR: 0.99},
	// oslo.reports and multipledispatch were chosen, traced and reviewed in the sixteenth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 16 start (the front end of the end of round 15): oslo.reports P .933 R .915
	// (97 of 106, 7 extras), multipledispatch P .981 R .785 (51 of 65, 1 extra); the same
	// at the round's end (its two rules changed neither). Their edges were read after
	// that; one oslo.reports extra was a real call the tests had mocked
	// (setup_autorun -> _setup_file_watcher), added to its truth: P .942 R .916 (98 of
	// 107). The floors are those scores, truncated. Their edges having been read, both
	// are tuning projects from round 17 on: its isinstance against collections.abc
	// classes and special methods run on subclass instances took oslo.reports to P .962
	// R .935, its six.with_metaclass bases multipledispatch to R .800, and round 20's
	// empty dict() multipledispatch to R .815.
	{name: "oslo_reports", deb: "python3-oslo.reports", minP: 0.96, minR: 0.93},
	{name: "multipledispatch", deb: "python3-multipledispatch", minP: 0.98, minR: 0.81},
	// oslo.limit and oslo.middleware were chosen, traced and reviewed in the seventeenth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 17 start (the front end of the end of round 16): oslo.limit P .812 R .963
	// (26 of 27, 6 extras), oslo.middleware P .972 R .897 (70 of 78, 2 extras); the same
	// at the round's end (its five rules changed neither). Their edges were read after
	// that; two extras were real calls (one the tests had mocked, one a cls(...) call
	// the review tool lists no candidate for), added to the truths: oslo.limit P .844
	// R .964 (27 of 28), oslo.middleware P .986 R .899 (71 of 79). The floors are those
	// scores, truncated. Their edges having been read, both are tuning projects from
	// round 18 on: OrderedDict dispatch tables and middleware instances handed to webob
	// took oslo.middleware to R .962.
	{name: "oslo_limit", deb: "python3-oslo.limit", minP: 0.84, minR: 0.96},
	{name: "oslo_middleware", deb: "python3-oslo.middleware", minP: 0.98, minR: 0.96},
	// castellan and oslo.context were chosen, traced and reviewed in the eighteenth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 18 start (the front end of the end of round 17): castellan P .912 R .705
	// (134 of 190, 13 extras), oslo.context P 1.000 R .895 (17 of 19, no extra); at the
	// round's end castellan P .944 R .705 (8 extras: the abstract-method rule), oslo.context
	// unchanged. The floors are the end scores, truncated. Their edges having been read,
	// both are tuning projects from round 19 on: the class-name narrowing took castellan
	// to P .952 R .832, round 20's dict comprehension over a literal to P .953 R .863,
	// and round 20's property factories oslo.context to R 1.000.
	{name: "castellan", deb: "python3-castellan", minP: 0.95, minR: 0.86},
	{name: "oslo_context", deb: "python3-oslo.context", minP: 1.0, minR: 1.0},
	// mistral-lib and zake were chosen, traced and reviewed in the nineteenth round and
	// their truths committed before the front end ran on them (README.md). Round 19
	// start (the front end of the end of round 18): mistral-lib P .914 R .985 (64 of 65,
	// 6 extras), zake P .993 R .978 (136 of 139, 1 extra); the same at the round's end
	// (its rule changed neither). The floors are those scores, truncated. Their edges
	// were read at the end of round 19, which makes them tuning projects from round 20 on:
	// its empty set() and builtins beside a method of the same name took zake to R .993.
	{name: "mistral_lib", deb: "python3-mistral-lib", minP: 0.91, minR: 0.98},
	{name: "zake", deb: "python3-zake", minP: 0.99, minR: 0.99},
	// parameterized and wsgi-intercept were chosen, traced and reviewed in the twentieth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 20 start (the front end of the end of round 19): parameterized P .865 R .970
	// (32 of 33, 5 extras), wsgi-intercept P 1.000 R .625 (15 of 24); the same at the
	// round's end (its four rules changed neither). Their edges were read after that; two
	// parameterized extras were real calls the review tool lists no candidate for (a
	// cls(...) call, a call through an attribute holding a module function), added to its
	// truth: P .919 R .971 (34 of 35). Their edges having been read, both are tuning
	// projects from round 21 on: its formatting of a tuple subclass's items and elif
	// guard narrowing took parameterized to P .971, its import_module of a module named
	// by a prefix and suffix wsgi-intercept to R .958.
	{name: "parameterized", deb: "python3-parameterized", minP: 0.97, minR: 0.97},
	{name: "wsgi_intercept", deb: "python3-wsgi-intercept", minP: 1.0, minR: 0.95},
	// doc8 and async_generator were chosen, traced and reviewed in the twenty-first round
	// and their truths committed before the front end ran on them (README.md). Round 21
	// start (the front end of the end of round 20): doc8 P 1.000 R .918 (78 of 85),
	// async_generator P 1.000 R .929 (39 of 42); the same at the round's end (its three
	// rules changed neither). The floors are those scores, truncated. Their edges were
	// read at the end of round 21: tuning projects from round 22 on. Round 22's await
	// protocol (ANextIter.__await__) took async_generator to R .952.
	{name: "doc8", deb: "python3-doc8", minP: 1.0, minR: 0.91},
	{name: "async_generator", deb: "python3-async-generator", minP: 1.0, minR: 0.95},
	// fastimport and automat were chosen, traced and reviewed in the twenty-second round
	// and their truths committed before the front end ran on them (README.md). Round 22
	// start and end (its await rule changed neither): fastimport P .973 R .939 (214 of
	// 228, 6 extras), automat P 1.000 R .882 (45 of 51). Their edges were read at the end
	// of round 22: tuning projects from round 23 on. Round 23 corrected fastimport's truth
	// (twelve real calls at executed sites, 240 edges) and its special-method self and
	// getattr handler-dispatch rules took it to P 1.000 R .979.
	{name: "fastimport", deb: "python3-fastimport", minP: 1.0, minR: 0.97},
	{name: "automat", deb: "python3-automat", minP: 1.0, minR: 0.88},
	// masakariclient and pankoclient were chosen, traced and reviewed in the twenty-third
	// round and their truths committed before the front end ran on them (README.md).
	// Round 23 start and end (its rules changed neither): masakariclient P 1.000 R 1.000
	// (48 of 48), pankoclient P .910 R .884 (61 of 69, 6 extras). Five of pankoclient's
	// extras were real calls the trace could not see (mocked methods); with them added
	// after the end scores (74 edges) it scores P .985 R .892. The floors are those,
	// truncated. Their edges were read at the end of round 23: tuning projects from round
	// 24 on.
	{name: "masakariclient", deb: "python3-masakariclient", minP: 1.0, minR: 1.0},
	{name: "pankoclient", deb: "python3-pankoclient", minP: 0.98, minR: 0.89},
	// magnumclient and watcherclient were chosen, traced and reviewed in the twenty-fourth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 24 start and end (no rule was added): magnumclient P .920 R .722 (231 of 320,
	// 20 extras), watcherclient P .881 R .824 (238 of 289, 32 extras). Reading the extras
	// after the end scores showed 19 and 31 of them to be real calls the trace could not
	// see (managers given a fake HTTP client, the @with_retries wrapper of code the tests
	// never ran); with the truths corrected (339 and 314 edges) they score P .996 R .737
	// and P .996 R .857. The floors are those, truncated. Their edges were read at the end
	// of round 24: tuning projects from round 25 on. Round 25's inherited metaclass calls
	// (CommandMeta.__new__ at the command classes) took watcherclient to R .889. Round
	// 26's decorator-package wrappers (cliutils.deprecated's wrapper calls the do_*
	// command it decorates) took magnumclient to R .796.
	{name: "magnumclient", deb: "python3-magnumclient", minP: 0.99, minR: 0.79},
	{name: "watcherclient", deb: "python3-watcherclient", minP: 0.99, minR: 0.88},
	// aodhclient and blazarclient were chosen, traced and reviewed in the twenty-fifth
	// round and their truths committed before the front end ran on them (README.md).
	// Round 25 start (the front end of the end of round 24): aodhclient P 1.000 R .822
	// (83 of 101, no extra), blazarclient P .991 R .642 (106 of 165, 1 extra). The floors
	// are those, truncated. Their edges are read from round 26 on: tuning projects.
	// Round 26's stub hooks (self.get_data and self.args2body of the command bases reach
	// the subclasses' overrides) took blazarclient to R .691.
	{name: "aodhclient", deb: "python3-aodhclient", minP: 1.0, minR: 0.82},
	{name: "blazarclient", deb: "python3-blazarclient", minP: 0.99, minR: 0.69},
	// oslo_concurrency and os_client_config were chosen, traced and reviewed in the
	// twenty-sixth round and their truths committed before the front end ran on them
	// (README.md). Round 26 start (the front end of the end of round 25):
	// oslo_concurrency P 1.000 R .967 (29 of 30, no extra), os_client_config P 1.000
	// R .733 (11 of 15, no extra). The floors are those, truncated.
	{name: "oslo_concurrency", deb: "python3-oslo.concurrency", heldOut: true, minP: 1.0, minR: 0.96},
	{name: "os_client_config", deb: "python3-os-client-config", heldOut: true, minP: 1.0, minR: 0.73},
}

// TestRealProjects scores the front end (default options) against the ground truth of
// each real project: edges from functions, methods and module bodies of the project's
// own files (tests excluded) to its functions and methods, call-site lines ignored. It
// logs precision and recall per project and fails when a project is under its floors.
// With PYCG_REALPROJECTS_DETAIL=1 it logs every missing and extra edge; with
// PYCG_REALPROJECTS_DUMP=DIR it writes the front end's in-scope edges to DIR/<name>.txt
// (make_truth.py review reads them). PYCG_TUNING=1 skips the held-out projects (for
// tuning sessions, which must not look at them).
func TestRealProjects(t *testing.T) {
	for _, p := range realProjects {
		t.Run(p.name, func(t *testing.T) {
			if p.heldOut && os.Getenv("PYCG_TUNING") != "" {
				t.Skip("held out: PYCG_TUNING is set")
			}
			s := scoreRealProject(t, p, Options{})
			role := "tuned"
			if p.heldOut {
				role = "held out"
			}
			t.Logf("%s (%s): precision %.3f recall %.3f (tp=%d fp=%d fn=%d, truth %d edges)",
				p.name, role, s.precision(), s.recall(), s.tp, len(s.extra), len(s.missing), s.tp+len(s.missing))
			if os.Getenv("PYCG_REALPROJECTS_DETAIL") != "" {
				for _, e := range s.extra {
					t.Logf("extra   %s", e)
				}
				for _, e := range s.missing {
					t.Logf("missing %s", e)
				}
			}
			if s.precision() < p.minP {
				t.Errorf("%s: precision %.3f below %.2f", p.name, s.precision(), p.minP)
			}
			if s.recall() < p.minR {
				t.Errorf("%s: recall %.3f below %.2f", p.name, s.recall(), p.minR)
			}
		})
	}
}

type realScore struct {
	tp             int
	extra, missing []string
}

func (s realScore) precision() float64 {
	if s.tp+len(s.extra) == 0 {
		return 0
	}
	return float64(s.tp) / float64(s.tp+len(s.extra))
}

func (s realScore) recall() float64 {
	if s.tp+len(s.missing) == 0 {
		return 0
	}
	return float64(s.tp) / float64(s.tp+len(s.missing))
}

// realProjectFiles reads the files a project's files.txt lists from the installed
// package, skipping the test when the package is missing or differs from the version
// the truth was made for. scope holds the paths whose definitions the truth covers.
func realProjectFiles(t testing.TB, p realProject) (files []callgraph.SourceFile, scope map[string]bool) {
	t.Helper()
	dir := filepath.Join("testdata", "realprojects", p.name)
	if _, err := os.Stat(filepath.Join(distPackages, p.name)); err != nil {
		t.Skipf("%s not installed (apt-get install -y %s): %v", p.name, p.deb, err)
	}
	list, err := os.ReadFile(filepath.Join(dir, "files.txt"))
	if err != nil {
		t.Fatal(err)
	}
	scope = map[string]bool{}
	for n, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("%s/files.txt:%d: want `sha256 path role`, got %q", p.name, n+1, line)
		}
		src, err := os.ReadFile(filepath.Join(distPackages, filepath.FromSlash(f[1])))
		if err != nil {
			t.Skipf("%s: the installed %s differs from the one the truth was made for: %v", p.name, p.deb, err)
		}
		if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != f[0] {
			t.Skipf("%s: the installed %s differs from the one the truth was made for (%s changed)", p.name, p.deb, f[1])
		}
		files = append(files, callgraph.SourceFile{Path: f[1], Src: src})
		if f[2] == "scope" {
			scope[f[1]] = true
		}
	}
	return files, scope
}

// readTruth reads `caller -> callee  # note` lines.
func readTruth(t testing.TB, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if k := strings.Index(line, "#"); k >= 0 {
			line = line[:k]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		a, b, ok := strings.Cut(line, " -> ")
		if !ok {
			t.Fatalf("%s:%d: want `caller -> callee`, got %q", path, n, line)
		}
		out[strings.TrimSpace(a)+" -> "+strings.TrimSpace(b)] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func scoreRealProject(t *testing.T, p realProject, opts Options) realScore {
	t.Helper()
	files, scope := realProjectFiles(t, p)
	truth := readTruth(t, filepath.Join("testdata", "realprojects", p.name, "truth.txt"))
	a, err := New(opts).Analyze(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	fileOf := func(id string) string { f, _, _ := strings.Cut(id, "::"); return f }
	got := map[string]bool{}
	for _, c := range a.Calls {
		if scope[fileOf(c.Caller)] && scope[fileOf(c.Callee)] {
			got[c.Caller+" -> "+c.Callee] = true
		}
	}
	var s realScore
	for e := range got {
		if truth[e] {
			s.tp++
		} else {
			s.extra = append(s.extra, e)
		}
	}
	for e := range truth {
		if !got[e] {
			s.missing = append(s.missing, e)
		}
	}
	sort.Strings(s.extra)
	sort.Strings(s.missing)
	if dir := os.Getenv("PYCG_REALPROJECTS_DUMP"); dir != "" {
		var sb strings.Builder
		keys := make([]string, 0, len(got))
		for e := range got {
			keys = append(keys, e)
		}
		sort.Strings(keys)
		for _, e := range keys {
			fmt.Fprintln(&sb, e)
		}
		if err := os.WriteFile(filepath.Join(dir, p.name+".txt"), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}
