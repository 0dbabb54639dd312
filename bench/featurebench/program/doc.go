// Package program holds the same-seed acceptance runs of the featurebench program: one
// subpackage per repository (pyflakes, humanize: Debian's python3-pyflakes and
// github.com/dustin/go-humanize v1.0.1, both held out while building the failure records
// and the CLI), each running the program twice with one seed, another TMPDIR, another path
// and another -jobs, and requiring byte-identical outputs (featurebench.ProgramDeterminism).
// They run when FAULTLINE_ACCEPTANCE is set.
package program
