// Command pycg measures the Python call graph of a large package against parsing it:
// the cost targets of issue 16 (the call graph of sympy within 2× the wall time of
// parsing the same files with go-tree-sitter alone, and within 500 MB of peak resident
// memory). See README.md.
//
//	go run ./bench/pycg [-root DIR] [-workers N] [-runs N]
//
// The driver runs this program twice more, as child processes, once per mode, so that
// each peak resident size (the child's ru_maxrss) belongs to one measurement:
//
//	-mode parse     parse every .py file under -root with go-tree-sitter (one parser,
//	                each tree closed), the baseline;
//	-mode analyze   build the call graph of the same files with callgraph/python.
//
// Each child prints one JSON line (best wall and CPU seconds over -runs runs, file and
// line counts, definitions and edges); the driver prints both and the ratios.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	tspython "github.com/smacker/go-tree-sitter/python"

	"github.com/faultline-dev/faultline/bench/internal/proc"
	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
)

// result is one child's measurement.
type result struct {
	Mode    string  `json:"mode"`
	Files   int     `json:"files"`
	Lines   int     `json:"lines"`
	Wall    float64 `json:"wall_s"`
	CPU     float64 `json:"cpu_s"`
	PeakMB  float64 `json:"peak_mb"`
	Defs    int     `json:"defs,omitempty"`
	Edges   int     `json:"edges,omitempty"`
	Errors  int     `json:"parse_errors,omitempty"`
	Workers int     `json:"workers,omitempty"`
}

func main() {
	root := flag.String("root", "/usr/lib/python3/dist-packages/sympy", "package directory whose .py files are measured")
	mode := flag.String("mode", "", "parse or analyze (a child run); empty: run both and compare")
	workers := flag.Int("workers", 1, "analyze: files parsed concurrently (0: GOMAXPROCS)")
	runs := flag.Int("runs", 1, "runs per mode (the best is reported)")
	flag.Parse()
	if err := run(*root, *mode, *workers, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "pycg:", err)
		os.Exit(1)
	}
}

func run(root, mode string, workers, runs int) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", runs)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return fmt.Errorf("-root %s: not a directory (for sympy: apt-get install -y python3-sympy)", root)
	}
	switch mode {
	case "":
		return compare(root, workers, runs)
	case "parse", "analyze":
		res, err := measure(root, mode, workers, runs)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	return fmt.Errorf("-mode %q: want parse or analyze", mode)
}

// compare runs both modes as children and prints their results and the ratios.
func compare(root string, workers, runs int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var res [2]result
	for k, mode := range []string{"parse", "analyze"} {
		cmd := exec.Command(self, "-root", root, "-mode", mode, "-workers", fmt.Sprint(workers), "-runs", fmt.Sprint(runs))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s run: %w", mode, err)
		}
		if err := json.Unmarshal(out.Bytes(), &res[k]); err != nil {
			return fmt.Errorf("%s run: %w", mode, err)
		}
		res[k].PeakMB = proc.PeakMB(cmd.ProcessState)
		line, _ := json.Marshal(res[k])
		fmt.Println(string(line))
	}
	p, a := res[0], res[1]
	fmt.Printf("%s: %d files, %d lines; call graph %d definitions, %d edges, %d files with syntax errors\n",
		root, a.Files, a.Lines, a.Defs, a.Edges, a.Errors)
	fmt.Printf("wall ratio %.2f (target <= 2), CPU ratio %.2f, peak %.0f MB (target <= 500; parse-only %.0f MB)\n",
		a.Wall/p.Wall, a.CPU/p.CPU, a.PeakMB, p.PeakMB)
	return nil
}

// measure runs one mode runs times and keeps the best times.
func measure(root, mode string, workers, runs int) (result, error) {
	files, lines, err := readFiles(root)
	if err != nil {
		return result{}, err
	}
	res := result{Mode: mode, Files: len(files), Lines: lines}
	if mode == "analyze" {
		res.Workers = workers
	}
	for i := 0; i < runs; i++ {
		if i > 0 {
			// Each run starts from what the first started from: without this the garbage
			// of the run before and the collector's target it left (twice its live heap)
			// add to this run's peak, and -runs 3 reported 1014 MB where one run peaks at
			// about 600.
			runtime.GC()
			debug.FreeOSMemory()
		}
		cpu0, t0 := proc.CPUSeconds(), time.Now()
		switch mode {
		case "parse":
			if err := parseOnly(files); err != nil {
				return result{}, err
			}
		case "analyze":
			a, err := python.New(python.Options{Workers: workers}).Analyze(context.Background(), files)
			if err != nil {
				return result{}, err
			}
			res.Defs, res.Edges, res.Errors = len(a.Definitions), len(a.Calls), len(a.Errors)
		}
		wall, cpu := time.Since(t0).Seconds(), proc.CPUSeconds()-cpu0
		if i == 0 || wall < res.Wall {
			res.Wall = wall
		}
		if i == 0 || cpu < res.CPU {
			res.CPU = cpu
		}
	}
	return res, nil
}

// parseOnly parses every file with go-tree-sitter's own API and closes each tree.
func parseOnly(files []callgraph.SourceFile) error {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(tspython.GetLanguage())
	for _, f := range files {
		t, err := p.ParseCtx(context.Background(), nil, f.Src)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		t.Close()
	}
	return nil
}

// readFiles reads every .py file under root, with paths relative to root's parent (so
// that the package keeps its name in module paths).
func readFiles(root string) ([]callgraph.SourceFile, int, error) {
	base := filepath.Dir(filepath.Clean(root))
	var files []callgraph.SourceFile
	lines := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		lines += bytes.Count(src, []byte("\n"))
		files = append(files, callgraph.SourceFile{Path: filepath.ToSlash(rel), Src: src})
		return nil
	})
	if err == nil && len(files) == 0 {
		err = errors.New("no .py files")
	}
	return files, lines, err
}
