// Package callgraph turns source code into a call graph with per-function complexity and
// centrality (docs/callgraph.md).
//
// # Terms
//
// A node is a function-like definition: a function, a method, a nested function, a class
// (Python classes stand for their constructor), or a file's module pseudo-definition
// `path::<module>` holding module-level code. A node's ID is `path::Qualified.Name`, the
// path relative to the directory the graph was built for, with slashes; when one file defines the same
// qualified name twice, the front end disambiguates by definition line (`@<line>`), so
// nothing is ever merged silently. Nodes are sorted by ID and numbered densely from 0.
//
// An edge (f, g) means f contains a call site that the front end resolved to g; it keeps
// the sorted, de-duplicated call-site lines. Recursion gives a self-loop, which stays in
// the graph but is dropped from the gonum view (Graph.Directed), chain distances and
// centrality. Module pseudo-nodes stay in the graph (extraction needs them) but are left
// out of centrality unless CentralityOptions.IncludeModules is set.
//
// The graph is built from syntax by language front ends (subpackages python, golang,
// javascript; see Language). Calls through function values, reflection, dynamic dispatch
// or dynamically computed attributes may be missed, and name-based fallbacks may add
// edges that never execute: the graph is neither sound nor complete.
//
// # Building
//
// Build analyses a directory as part of its project: it finds the project's root with
// task/repo's rules (the Go module or workspace, the Python import root of the package, the
// JavaScript package), analyses from there so imports resolve as the project's own do, and
// keeps the graph of the directory: its definitions, the calls between them, IDs relative
// to it. Graph.Project says which root was analysed and why; BuildOptions.Standalone
// analyses the directory alone. Build walks in sorted order, hands each file to the first
// Language whose Match claims it and runs the languages concurrently; FromAnalyses
// assembles a graph from front-end output directly. Test files are analysed unless
// BuildOptions.SkipTests is set, for every language alike (front ends claim them; Build
// decides). Skipped files (tests when skipped, too large, binary, unreadable, symlinks
// leaving the root, paths that are not valid UTF-8) are listed in Stats.Skipped with the
// reason.
//
// # Centrality
//
// For the centrality graph (self-loops and, by default, module pseudo-nodes removed) with
// n nodes and d(f,g) the unweighted shortest-path length along calls:
//
//   - Harmonic: HC(f) = 1/(n−1) · Σ_{g≠f} 1/d(f,g), unreachable pairs contributing 0. This
//     is outgoing harmonic centrality, which is networkx.harmonic_centrality(G.reverse())
//     ÷ (n−1) and igraph harmonic_centrality(mode="out", normalized=True); networkx's and
//     gonum's own Harmonic use incoming distances and do not normalise.
//   - Distance discount: DD(f) = Σ_{g reachable, g≠f} α^d(f,g), α = 0.5 by default. The
//     released Breakpoint code used α = 0.8 (CompatBreakpoint).
//   - PageRank: damping 0.85, uniform start, dangling nodes' mass spread uniformly,
//     stopping when the L1 change is below n·1e-6 as networkx does, capped at 100
//     iterations. Unlike gonum's PageRankSparse it starts from the uniform vector, so it
//     is deterministic; it is networkx's iteration, so it matches networkx.pagerank to
//     floating-point rounding. Reaching the cap is reported, not an error.
//   - Betweenness: Brandes' algorithm over ordered pairs with path counts in float64, raw
//     (networkx betweenness_centrality(G, normalized=False)); optionally ÷ (n−1)(n−2).
//   - Degrees: in-degree (callers) and out-degree (callees) in the centrality graph.
//
// Path measures run on a compact CSR adjacency, in parallel over sources: harmonic
// centrality and the distance discount by a bit-parallel breadth-first search from 64
// sources at a time (each source's sums are its own), betweenness by one Brandes search
// per source with per-block partial sums added in a fixed block order. Results are
// bit-for-bit identical for any GOMAXPROCS. CentralityOptions.Measures selects a subset
// (betweenness dominates the cost); a measure not computed is absent (nil slices, nil
// fields of Centrality.Node, no key in the report), never 0. Centrality.Node is one node's
// view, Centrality.Value one score and Centrality.Ranked the nodes ordered by a score.
//
// # Breakpoint compatibility
//
// CompatBreakpoint reproduces the released Breakpoint code (docs/breakpoint.md, Where the
// released code differs) where it departs from the paper: α = 0.8; betweenness without path
// counts — our reading is that each source's breadth-first search keeps only the first
// parent that discovers a node (successors in node order, i.e. ID order here where the
// reference used its dictionary order), every reachable target credits each interior node
// of that single tree path with 1, and the sum is divided by (n−1)(n−2). It thus differs
// from Brandes only where a pair has several shortest paths: all the credit goes to the
// path first in node order instead of being shared σ_st(v)/σ_st, so it depends on node
// order (exact agreement with the reference needs the reference's order, which came from
// code2flow's output). PageRank runs without dangling redistribution (mass leaks out
// through functions that call nothing), stops by the same L1 rule and returns the iterate
// before the one that met it; and code lines plus one for the tokenizer's end marker
// (Metrics.CompatCodeLines). Harmonic centrality is the same in both modes. The reference's
// function inventory and code2flow graph quirks are front-end matters and are not
// reproduced here.
//
// The mode is chosen once, in CentralityOptions.Compat: the Centrality records it
// (Centrality.Compat) and Graph.Report counts code lines by it.
//
// # Chain distance
//
// Graph.Distance and Graph.Within measure call chains, either along calls (directed) or
// ignoring direction (undirected: callers ∪ callees), as multi-function corruption groups
// need. A module pseudo-node may end a chain but is never passed through.
package callgraph
