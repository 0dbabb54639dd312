// Package task is faultline's shared data model: the definitions found in a repository
// (functions and their byte spans), line edits and edit blocks (the PDB edit model),
// unified diffs, overlays of changed files, test reports, and the instance formats the
// benchmarks exchange (SWE-bench / FeatureBench instances, Breakpoint problems, PDB
// examples), with streaming JSONL readers and writers.
//
// It also holds the small interfaces that connect producers and consumers: a Runner runs a
// repository's tests with an Overlay applied and returns a Report; an Oracle decides whether
// a program passes (OracleFunc adapts a function). Every implementation of these interfaces
// must be safe for concurrent use.
//
// The package depends on the standard library only (plus the module's internal difflib
// alignment, which itself uses the standard library only).
package task
