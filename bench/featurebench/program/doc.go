// Package program holds the same-seed acceptance runs of the featurebench program: one
// subpackage per repository (pyflakes, humanize: Debian's python3-pyflakes and
// github.com/dustin/go-humanize v1.0.1, both held out while building the failure records
// and the CLI), each running the program twice with one seed, another TMPDIR, another path
// and another -jobs, and requiring byte-identical outputs (featurebench.ProgramDeterminism).
// colorama and patsy (Debian's python3-colorama and python3-patsy, held out from all
// tuning) do the same with -repo pointed at the package directory itself, as it sits in
// dist-packages, and also check that every instance's patches apply at its base_commit in
// the output's mirror (featurebench.PackageDirDeterminism). They run when
// FAULTLINE_ACCEPTANCE is set; give go test a generous -timeout (30m).
package program
