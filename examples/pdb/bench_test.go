package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// hostOracle is the baseline: what score did before it used the sandbox — a fresh
// directory on the host with the repository's files and the program, the command run
// there by /bin/sh, the directory removed. No isolation, the full environment.
type hostOracle struct{ cfg oracleConfig }

func (h hostOracle) Passes(ctx context.Context, program string) (bool, error) {
	dir, err := os.MkdirTemp("", "pdb-host-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	ents, err := os.ReadDir(h.cfg.root)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(h.cfg.root, e.Name()))
		if err != nil {
			return false, err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return false, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, h.cfg.name), []byte(program), 0o644); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", h.cfg.script("bench"))
	cmd.Dir = dir
	return cmd.Run() == nil, nil
}

// BenchmarkOracleCall measures one oracle call — one candidate program tested — through
// the sandbox against the host baseline, for a trivial test command (grep: the sandbox's
// own cost dominates) and a real one (pytest on a small program, as PDB oracles are):
//
//	host        fresh directory on the host, /bin/sh, no isolation (the old oracle)
//	unsafe-host sandbox.Local with NoIsolation (-unsafe-host): private copy, scrubbed env
//	sandbox     sandbox.Local isolated (the default): namespaces, read-only host
//	cached      the sandbox behind sandbox.Cache, the same program every time (-cache)
//
// Each iteration tests a new program (a comment with the iteration number), so no cache
// answers except in "cached". Report the ratio of sandbox to host ns/op.
func BenchmarkOracleCall(b *testing.B) {
	repo := b.TempDir()
	os.WriteFile(filepath.Join(repo, "test_calc.py"), []byte("from calc import calc\n\n\ndef test_calc():\n    assert calc([1, 2, 3]) == (2.0, 2)\n"), 0o644)
	program := "def calc(xs):\n    mean = sum(xs) / len(xs)\n    return mean, max(xs) - min(xs)\n"
	cmds := map[string]string{
		"grep":   "grep -q 'def calc' {program}",
		"pytest": "{python} -m pytest -q -x -p no:cacheprovider >/dev/null 2>&1",
	}
	for _, name := range []string{"grep", "pytest"} {
		if name == "pytest" {
			if err := exec.Command(py, "-c", "import pytest").Run(); err != nil {
				b.Logf("skipping pytest: %v", err)
				continue
			}
		}
		cfg := oracleConfig{cmd: cmds[name], root: repo, name: "calc.py", python: py, timeout: time.Minute}
		isolated := sandbox.NewLocal(sandbox.Options{Jobs: 1})
		unsafe := sandbox.NewLocal(sandbox.Options{Jobs: 1, NoIsolation: true})
		oracles := []struct {
			name  string
			o     task.Oracle
			fixed bool
		}{
			{"host", hostOracle{cfg}, false},
			{"unsafe-host", &runOracle{cfg: cfg, runner: unsafe, taskID: "bench"}, false},
			{"sandbox", &runOracle{cfg: cfg, runner: isolated, taskID: "bench"}, false},
			{"cached", &runOracle{cfg: cfg, runner: sandbox.NewCache(isolated, sandbox.CacheOptions{}), taskID: "bench"}, true},
		}
		for _, o := range oracles {
			b.Run(name+"/"+o.name, func(b *testing.B) {
				ctx := context.Background()
				i := 0
				for b.Loop() {
					p := program
					if !o.fixed {
						p += "# " + strconv.Itoa(i) + "\n"
					}
					i++
					ok, err := o.o.Passes(ctx, p)
					if err != nil || !ok {
						b.Fatalf("verdict %v, %v", ok, err)
					}
				}
			})
		}
		for _, n := range isolated.Notes() {
			b.Logf("sandbox: %s", n)
		}
		isolated.Close()
		unsafe.Close()
	}
}
