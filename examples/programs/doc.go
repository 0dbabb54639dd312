// Package programs holds no code: its test builds every program under examples/ and checks
// the command-line convention they share (internal/cli) across all of them at once — -h
// exits 0 with the usage on stderr, an unknown flag exits 2 naming it, and a run with
// -out - (or -json) puts only the machine output on stdout. Each program's own tests check
// its flags in detail; this one catches a program that drifts from the others.
package programs
