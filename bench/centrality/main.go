// Command centrality times callgraph's centrality measures on a graph read from an edge
// list, for comparison with networkx and igraph by peers.py in the same run (see
// README.md). It prints one JSON object: the best wall time in seconds of each measure
// over -runs runs (and, as NAME_cpu, the best process CPU time, all threads), and (with -values) writes the computed vectors for a correctness check.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

func main() {
	edgesPath := flag.String("edges", "", "edge list: first line n, then one `u v` pair per line (0-based)")
	runs := flag.Int("runs", 5, "runs per measure (the best is reported)")
	values := flag.String("values", "", "write the computed vectors as JSON to this file")
	flag.Parse()
	if err := run(*edgesPath, *runs, *values); err != nil {
		fmt.Fprintln(os.Stderr, "centrality:", err)
		os.Exit(1)
	}
}

func run(edgesPath string, runs int, valuesPath string) error {
	f, err := os.Open(edgesPath)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var n int
	if !sc.Scan() {
		return fmt.Errorf("%s: empty", edgesPath)
	}
	if _, err := fmt.Sscan(sc.Text(), &n); err != nil {
		return fmt.Errorf("%s: first line: %w", edgesPath, err)
	}
	id := func(i int) string { return fmt.Sprintf("g.py::n%06d", i) }
	a := &callgraph.Analysis{}
	for i := range n {
		a.Definitions = append(a.Definitions, callgraph.Definition{Function: task.Function{ID: id(i), Kind: task.KindFunction}})
	}
	for line := 2; sc.Scan(); line++ {
		var u, v int
		if _, err := fmt.Sscan(sc.Text(), &u, &v); err != nil {
			return fmt.Errorf("%s:%d: %w", edgesPath, line, err)
		}
		a.Calls = append(a.Calls, callgraph.Call{Caller: id(u), Callee: id(v), Line: line})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	g, err := callgraph.FromAnalyses(a)
	if err != nil {
		return err
	}
	ctx := context.Background()
	best := map[string]float64{}
	for _, m := range []struct {
		name string
		m    callgraph.Measure
	}{
		{"betweenness", callgraph.MeasureBetweenness},
		{"harmonic_discount", callgraph.MeasureHarmonic},
		{"pagerank", callgraph.MeasurePageRank},
	} {
		for range runs {
			start, cpu := time.Now(), cpuSeconds()
			if _, err := g.Centrality(ctx, callgraph.CentralityOptions{Measures: m.m}); err != nil {
				return err
			}
			s, cs := time.Since(start).Seconds(), cpuSeconds()-cpu
			if b, ok := best[m.name]; !ok || s < b {
				best[m.name] = s
			}
			if b, ok := best[m.name+"_cpu"]; !ok || cs < b {
				best[m.name+"_cpu"] = cs
			}
		}
	}
	last, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		return err
	}
	best["gomaxprocs"] = float64(runtime.GOMAXPROCS(0))
	if valuesPath != "" {
		b, err := json.Marshal(map[string][]float64{
			"harmonic": last.Harmonic, "betweenness": last.Betweenness, "pagerank": last.PageRank,
		})
		if err != nil {
			return err
		}
		if err := os.WriteFile(valuesPath, b, 0o644); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(best)
}
