// Package determinism holds the same-seed acceptance runs of the breakpoint program: one
// subpackage per repository (godiff, humanize, cast, simplejson, pyflakes, colorama, strcase,
// debtcollector; each its own test binary and go test time limit), each running REMOVE and DISCOVERY twice with one seed, another
// TMPDIR, another path and another -jobs, and requiring byte-identical task records and
// SWE instances (see breakpoint.Determinism). go-diff and simplejson are the repositories
// on which the records used to differ (durations, repr truncation of addresses and temp
// paths); go-humanize and pyflakes were held out while building the failure records, and
// spf13/cast (fetched fresh from the module proxy, its test dependencies downloaded by the
// program into a private module cache) and colorama (its package directory given as -repo)
// while building the intake; iancoleman/strcase (fresh from the module proxy) and Debian's
// python3-debtcollector (a package directory) were held out in the audit of issue 12. They
// run when FAULTLINE_ACCEPTANCE is set; humanize, cast, pyflakes and colorama only when it
// is "full" (the extended set: CI's time does not allow all eight), and go-diff's DISCOVERY
// run too.
package determinism
