package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// shardFixture is a project and seven F2P candidates of which five are accepted, with
// Level 1 and Level 2 instances whose mirror states exercise what rebuildMirror reads
// back: a masked file, an executable file changed (its mode kept), a symbolic link
// replaced by a file, a new file, the F2P test file deleted, and a file outside the
// project (-repo's Include) that the base tree leaves out.
type shardFixture struct {
	root     string
	project  *repo.Project
	files    []string
	accepted map[int]bool
}

func newShardFixture(t *testing.T) *shardFixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("featurebench: git is not installed")
	}
	root := t.TempDir()
	f := &shardFixture{root: root, accepted: map[int]bool{0: true, 2: true, 3: true, 5: true, 6: true}}
	put := func(rel, data string, perm os.FileMode) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), perm))
		require.NoError(t, os.Chmod(p, perm))
	}
	put("pkg/a.py", "def a():\n    return 1\n", 0o644)
	put("pkg/run.sh", "#!/bin/sh\necho run\n", 0o755)
	require.NoError(t, os.Symlink("a.py", filepath.Join(root, "pkg", "link.py")))
	put("notes.txt", "not part of the project\n", 0o644)
	for k := range 7 {
		f.files = append(f.files, fmt.Sprintf("tests/test_%d.py", k))
		put(f.files[k], fmt.Sprintf("def test_%d():\n    pass\n", k), 0o644)
	}
	f.project = &repo.Project{Root: root, Target: ".", Include: []string{"pkg", "tests"}}
	return f
}

// artifacts makes candidate k's instance at level.
func (f *shardFixture) artifacts(k, level int) *artifact.Artifacts {
	id := fmt.Sprintf("acme__shapes.01234567.test_%d.%08x.lv%d", k, 0xabc000+k, level)
	a := &artifact.Artifacts{
		Instance: task.SWEInstance{Repo: "acme/shapes", InstanceID: id,
			FailToPass: task.TestList{f.files[k] + "::test_" + fmt.Sprint(k)}, PassToPass: task.TestList{"tests/test_1.py::test_1"}},
		ProblemStatement: fmt.Sprintf("Implement item %d at level %d.\n", k, level),
		Patch:            []byte(fmt.Sprintf("patch %d\n", k)),
		TestPatch:        []byte(fmt.Sprintf("test patch %d\n", k)),
	}
	if level == 2 {
		a.Env = &artifact.Environment{Kind: task.Pytest}
		a.EnvPatch = []byte(fmt.Sprintf("env %d\n", k))
		return a
	}
	a.Overlay = task.Overlay{}
	a.Overlay.Set("pkg/a.py", []byte(fmt.Sprintf("def a():\n    pass  # masked %d\n", k)))
	a.Overlay.Remove(f.files[k])
	switch (k / 2) % 3 { // the accepted 0, 2, 3, 5, 6 make each case
	case 0:
		a.Overlay.Set("pkg/run.sh", []byte(fmt.Sprintf("#!/bin/sh\necho masked %d\n", k)))
	case 1:
		a.Overlay.Set("pkg/link.py", []byte("a file now\n"))
	case 2:
		a.Overlay.Set(fmt.Sprintf("pkg/new_%d.py", k), nil)
	}
	return a
}

// build writes what a build with -n n (a shard's when shard is on) writes: the candidates
// are walked in order as extract.Pipeline walks them (the others' passed over, stopping at
// n accepted), and the accepted items' instances are written by write.
func (f *shardFixture) build(t *testing.T, out string, n int, shard cli.Shard) {
	t.Helper()
	c := config{project: f.project, out: out, n: n, levels: []int{1, 2}, sweLists: "json", sweIDs: "full", shard: shard,
		flags: map[string]string{"n": fmt.Sprint(n), "seed": "7", "level": "1,2"}}
	res := &extract.Result{}
	var arts []*artifact.Artifacts
	for k, file := range f.files {
		if n > 0 && len(res.Accepted()) >= n {
			res.Untried = len(f.files) - k
			break
		}
		if shard.On() && !shard.Owns(file) {
			res.PassedOver++
			continue
		}
		res.Items = append(res.Items, &extract.Item{TestFile: file, Candidate: k, Accepted: f.accepted[k]})
		if f.accepted[k] {
			arts = append(arts, f.artifacts(k, 1), f.artifacts(k, 2))
		}
	}
	require.NoError(t, write(context.Background(), c, f.root, res, arts, map[string]any{"seed": 7}))
}

// TestMergeMatchesUnsharded: the shards' output directories, merged (in any order), are the
// unsharded output byte for byte — instance directories, instances.jsonl and mirror.git —
// with every candidate kept (-n 0) and with -n cutting off items the shards found past
// the unsharded run's first n; a shard with no item is merged too.
func TestMergeMatchesUnsharded(t *testing.T) {
	f := newShardFixture(t)
	for _, n := range []int{0, 2} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			dir := t.TempDir()
			full := filepath.Join(dir, "full")
			f.build(t, full, n, cli.Shard{})
			var parts []string
			shardItems := 0
			for i := range 3 {
				part := filepath.Join(dir, fmt.Sprintf("part%d", i))
				f.build(t, part, n, cli.Shard{I: i, N: 3})
				shardItems += strings.Count(readTree(t, part)["instances.jsonl"], "\n")
				parts = append(parts, part)
			}
			merged := filepath.Join(dir, "merged")
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"-merge", "-out", merged, parts[2], parts[0], parts[1]}, &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			want := readTree(t, full)
			require.Equal(t, want, readTree(t, merged))
			require.NotContains(t, want, ShardFile)
			insts, err := task.ReadAllJSONL[task.SWEInstance](strings.NewReader(want["instances.jsonl"]))
			require.NoError(t, err)
			var ids []string
			mirror := filepath.Join(merged, MirrorDir)
			for _, inst := range insts {
				ids = append(ids, inst.InstanceID)
				// base_commit is the instance's state: the masked tree, or the empty tree.
				files := strings.Fields(git(t, merged, "--git-dir", mirror, "ls-tree", "-r", "--name-only", inst.BaseCommit))
				if strings.HasSuffix(inst.InstanceID, ".lv2") {
					require.Empty(t, files)
					continue
				}
				require.NotContains(t, files, "notes.txt")
				require.Contains(t, files, "pkg/run.sh")
				require.Contains(t, git(t, merged, "--git-dir", mirror, "show", inst.BaseCommit+":pkg/a.py"), "masked")
				test, _, _ := strings.Cut(inst.FailToPass[0], "::")
				require.NotContains(t, files, test)
				require.True(t, strings.HasPrefix(git(t, merged, "--git-dir", mirror, "ls-tree", inst.BaseCommit, "pkg/run.sh"), "100755 "))
			}
			require.Equal(t, strings.Join(ids, "\n")+"\n", stdout.String())
			if n > 0 {
				require.Len(t, insts, 2*n)
				require.Greater(t, shardItems, len(insts), "the shards found items past the first n, which the merge drops")
				require.Contains(t, stderr.String(), fmt.Sprintf("featurebench: %d of %d items asked; %d instances (levels [1 2]) from 3 shards", n, n, 2*n))
			} else {
				require.Len(t, insts, 2*len(f.accepted))
			}
		})
	}
}

// TestMergeRefuses: shards that do not make one split's output are refused with exit 1,
// naming the problem, and nothing is written.
func TestMergeRefuses(t *testing.T) {
	f := newShardFixture(t)
	dir := t.TempDir()
	var parts []string
	for i := range 3 {
		parts = append(parts, filepath.Join(dir, fmt.Sprintf("part%d", i)))
		f.build(t, parts[i], 2, cli.Shard{I: i, N: 3})
	}
	other := filepath.Join(dir, "other")
	f.build(t, other, 3, cli.Shard{I: 1, N: 3})
	split4 := filepath.Join(dir, "split4")
	f.build(t, split4, 2, cli.Shard{I: 1, N: 4})
	noDir := filepath.Join(dir, "nodir")
	require.NoError(t, os.CopyFS(noDir, os.DirFS(parts[0])))
	line, _, _ := strings.Cut(readTree(t, noDir)["instances.jsonl"], "\n")
	var head struct {
		ID string `json:"instance_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &head))
	require.NoError(t, os.RemoveAll(filepath.Join(noDir, head.ID)))
	for _, c := range []struct {
		name string
		dirs []string
		msg  string
	}{
		{"a shard missing", parts[:2], "2 directories for a split into 3 shards"},
		{"a shard twice", []string{parts[0], parts[1], parts[1]}, "shard 1/3 is also in " + parts[1]},
		{"another -n", []string{parts[0], other, parts[2]}, "written with -n 3, " + parts[0] + " with -n 2"},
		{"another split", []string{parts[0], split4, parts[2]}, "shard 1/4 is not of the same split"},
		{"an instance directory missing", []string{noDir, parts[1], parts[2]}, "no directory for instance " + head.ID},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"-merge", "-out", out}, c.dirs...), &stdout, &stderr)
			require.Equal(t, 1, code, stderr.String())
			require.Contains(t, stderr.String(), c.msg)
			require.Zero(t, stdout.Len())
			require.NoDirExists(t, out)
		})
	}
}
