package main

// Sharding: -shard i/n builds only the fail-to-pass candidates (test files) part i of n
// owns, and -merge joins the parts' output directories into the unsharded output.
//
// extract.Pipeline tries the candidates in one deterministic order and keeps the first -n
// it accepts; an item depends only on its test file, the traces and the seed. A shard
// walks the same order, passes over the candidates it does not own (extract.Options.Owns
// with cli.Shard.Owns) and keeps the first -n accepted among its own. Any of the first -n
// accepted items overall has fewer than -n accepted items before it in its own shard, so
// the shard kept it: the union of the shards' items, ordered by candidate, begins with
// exactly the unsharded run's -n items. The instances of an item do not depend on the
// others (ids, patches and base_commit are the item's own: every mirror commit is a child
// of the base commit, named by its instance), so the merge copies their files; only
// mirror.git, one pack of every kept instance, is written again (rebuildMirror).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// ShardFile is the file of a shard's output directory that -merge reads; a merged (or
// unsharded) output has none.
const ShardFile = "shard.json"

// outputFlags are the flags that decide which instances a build makes and how it writes
// them: the shards of one split must agree on them (shard.json records their values).
var outputFlags = []string{"n", "seed", "level", "package", "name", "commit", "after", "llm", "test-timeout", "swe-lists", "swe-test-ids"}

// manifest is shard.json: the part, its -n, the output flags, how many F2P candidates the
// whole order holds, and the shard's accepted items in candidate order with their
// instances (the order of instances.jsonl).
type manifest struct {
	Shard      string            `json:"shard"`
	Wanted     int               `json:"wanted"`
	Flags      map[string]string `json:"flags"`
	Candidates int               `json:"candidates"`
	Items      []shardItem       `json:"items"`
}

// shardItem is one accepted item of a shard: its position in the candidate order, its
// test file and its instance ids.
type shardItem struct {
	Candidate int      `json:"candidate"`
	TestFile  string   `json:"test_file"`
	Instances []string `json:"instances"`
}

// writeManifest writes a shard's shard.json for the build's result and instances (in the
// order build made them: by item, then level).
func writeManifest(path string, c config, res *extract.Result, arts []*artifact.Artifacts) error {
	m := manifest{Shard: c.shard.String(), Wanted: c.n, Flags: c.flags,
		Candidates: len(res.Items) + res.PassedOver + res.Untried, Items: []shardItem{}}
	k := 0
	for _, it := range res.Accepted() {
		si := shardItem{Candidate: it.Candidate, TestFile: it.TestFile}
		for range c.levels {
			si.Instances = append(si.Instances, arts[k].Instance.InstanceID)
			k++
		}
		m.Items = append(m.Items, si)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// parseMerge checks the flags of -merge: the shards' output directories (at least one,
// each with its shard.json) and -out (a directory outside them); the flags of a build are
// refused.
func parseMerge(fs *flag.FlagSet, c config, usage func(string, ...any) (config, int)) (config, int) {
	other := cli.SetExcept(fs, "merge", "out")
	if len(other) > 0 {
		return usage("-merge takes only -out and the shards' directories, not %s", strings.Join(other, ", "))
	}
	if fs.NArg() == 0 {
		return usage("-merge: name the shards' output directories (featurebench -merge -out DIR SHARDDIR...)")
	}
	for _, d := range fs.Args() {
		if st, err := os.Stat(filepath.Join(d, ShardFile)); err != nil || !st.Mode().IsRegular() {
			return usage("-merge: %s is not a shard's output directory (no %s; write shards with -shard i/n)", d, ShardFile)
		}
	}
	if err := cli.CheckOutputDir("out", c.out); err != nil {
		return usage("%v", err)
	}
	for _, d := range fs.Args() {
		if err := cli.Outside("out", c.out, d); err != nil {
			return usage("-out %s: the shard directory %s is an input of the merge; name another directory", c.out, d)
		}
	}
	c.merge = fs.Args()
	return c, -1
}

// shardOut is one shard's output directory as the merge reads it.
type shardOut struct {
	dir   string
	m     manifest
	lines map[string][]byte // instance id → its line of instances.jsonl
}

// kept is one instance of the merged output: which shard holds it, and its level.
type kept struct {
	shard *shardOut
	id    string
	level int
}

// readShards reads and checks the shards' directories: shard.json's of one split (each part
// once, every part there), with one -n and the same output flags and candidates, items
// owned by their part at distinct positions, and instances.jsonl holding exactly the
// items' instances, each with its directory. It returns the unsharded run's instances —
// the first -n items in candidate order —, how many items they are, and the first shard.
func readShards(dirs []string) ([]kept, int, *shardOut, error) {
	type item struct {
		shard *shardOut
		shardItem
	}
	var items []item
	var first *shardOut
	seenShard := map[string]string{}
	seenCand := map[int]string{}
	for _, d := range dirs {
		so := &shardOut{dir: d, lines: map[string][]byte{}}
		where := filepath.Join(d, ShardFile)
		b, err := os.ReadFile(where)
		if err != nil {
			return nil, 0, nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&so.m); err != nil {
			return nil, 0, nil, fmt.Errorf("%s: not a shard's manifest: %v", where, err)
		}
		s, err := cli.ParseShard(so.m.Shard)
		if err != nil || so.m.Wanted < 0 || so.m.Candidates < 0 {
			return nil, 0, nil, fmt.Errorf("%s: bad shard %q, wanted %d or candidates %d", where, so.m.Shard, so.m.Wanted, so.m.Candidates)
		}
		if first == nil {
			first = so
		}
		switch {
		case s.N != mustShard(first.m.Shard).N:
			return nil, 0, nil, fmt.Errorf("%s: shard %s is not of the same split as %s's (%s)", where, so.m.Shard, first.dir, first.m.Shard)
		case so.m.Wanted != first.m.Wanted:
			return nil, 0, nil, fmt.Errorf("%s: written with -n %d, %s with -n %d", where, so.m.Wanted, first.dir, first.m.Wanted)
		case so.m.Candidates != first.m.Candidates:
			return nil, 0, nil, fmt.Errorf("%s: %d fail-to-pass candidates, %s %d: the shards analysed different trees", where, so.m.Candidates, first.dir, first.m.Candidates)
		}
		for _, name := range outputFlags {
			if so.m.Flags[name] != first.m.Flags[name] {
				return nil, 0, nil, fmt.Errorf("%s: written with -%s %q, %s with -%s %q", where, name, so.m.Flags[name], first.dir, name, first.m.Flags[name])
			}
		}
		if other, ok := seenShard[so.m.Shard]; ok {
			return nil, 0, nil, fmt.Errorf("%s: shard %s is also in %s", where, so.m.Shard, other)
		}
		seenShard[so.m.Shard] = d
		var want []string
		for _, it := range so.m.Items {
			if other, ok := seenCand[it.Candidate]; ok {
				return nil, 0, nil, fmt.Errorf("%s: candidate %d (%s) is also in %s", where, it.Candidate, it.TestFile, other)
			}
			seenCand[it.Candidate] = where
			if !s.Owns(it.TestFile) || it.Candidate < 0 || it.Candidate >= so.m.Candidates || len(it.Instances) == 0 {
				return nil, 0, nil, fmt.Errorf("%s: candidate %d (%s) is not shard %s's", where, it.Candidate, it.TestFile, so.m.Shard)
			}
			want = append(want, it.Instances...)
			items = append(items, item{so, it})
		}
		got, err := readLines(so)
		if err != nil {
			return nil, 0, nil, err
		}
		if !slices.Equal(got, want) {
			return nil, 0, nil, fmt.Errorf("%s: instances.jsonl holds %v, %s names %v", d, got, ShardFile, want)
		}
		for _, id := range want {
			if st, err := os.Stat(filepath.Join(d, id)); err != nil || !st.IsDir() {
				return nil, 0, nil, fmt.Errorf("%s: no directory for instance %s", d, id)
			}
		}
	}
	if n := mustShard(first.m.Shard).N; len(dirs) != n {
		return nil, 0, nil, fmt.Errorf("%d directories for a split into %d shards: merge every shard's output (empty ones too)", len(dirs), n)
	}
	slices.SortFunc(items, func(a, b item) int { return a.Candidate - b.Candidate })
	if w := first.m.Wanted; w > 0 && len(items) > w {
		items = items[:w]
	}
	var out []kept
	for _, it := range items {
		for _, id := range it.Instances {
			level := 1
			if strings.HasSuffix(id, ".lv2") {
				level = 2
			}
			out = append(out, kept{it.shard, id, level})
		}
	}
	return out, len(items), first, nil
}

func mustShard(s string) cli.Shard {
	sh, _ := cli.ParseShard(s)
	return sh
}

// readLines reads a shard's instances.jsonl into so.lines and returns its instance ids in
// order.
func readLines(so *shardOut) ([]string, error) {
	f, err := os.Open(filepath.Join(so.dir, "instances.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var ids []string
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var head struct {
				ID string `json:"instance_id"`
			}
			if json.Unmarshal(line, &head) != nil || head.ID == "" || line[len(line)-1] != '\n' {
				return nil, fmt.Errorf("%s:%d: not an instance line", f.Name(), n)
			}
			if _, dup := so.lines[head.ID]; dup {
				return nil, fmt.Errorf("%s:%d: instance %s twice", f.Name(), n, head.ID)
			}
			so.lines[head.ID] = line
			ids = append(ids, head.ID)
		}
		if errors.Is(err, io.EOF) {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// merge is -merge: it writes to out the unsharded run's output from the shards' directories
// and prints the instance ids; no instance at all is a failure, as in an unsharded run.
func merge(ctx context.Context, dirs []string, out string, stdout, stderr io.Writer) error {
	insts, items, first, err := readShards(dirs)
	if err != nil {
		return err
	}
	wanted := first.m.Wanted
	if len(insts) == 0 {
		return fmt.Errorf("0 instances in %d shard directories; nothing written", len(dirs))
	}
	err = publish(out, func(tmp string) error {
		if err := rebuildMirror(ctx, filepath.Join(tmp, MirrorDir), insts); err != nil {
			return err
		}
		var lines []byte
		for _, k := range insts {
			if err := copyDir(filepath.Join(k.shard.dir, k.id), filepath.Join(tmp, k.id)); err != nil {
				return err
			}
			lines = append(lines, k.shard.lines[k.id]...)
		}
		return os.WriteFile(filepath.Join(tmp, "instances.jsonl"), lines, 0o644)
	})
	if err != nil {
		return err
	}
	for _, k := range insts {
		fmt.Fprintln(stdout, k.id)
	}
	msg := fmt.Sprintf("%d items (every test file tried)", items)
	short := wanted > 0 && items < wanted
	switch {
	case short:
		msg = fmt.Sprintf("%d of %d items asked: the fail-to-pass candidates ran out", items, wanted)
	case wanted > 0:
		msg = fmt.Sprintf("%d of %d items asked", items, wanted)
	}
	levels, _ := parseLevels(first.m.Flags["level"])
	fmt.Fprintf(stderr, "featurebench: %s; %d instances (levels %v) from %d shards written to %s\n", msg, len(insts), levels, len(dirs), out)
	if short {
		return errors.New(msg)
	}
	return nil
}

// copyDir copies an instance directory; anything but regular files and directories in it
// is an error.
func copyDir(src, dst string) error {
	return fstree.Copy(src, dst, fstree.Options{Strict: true})
}

// rebuildMirror writes mirror.git for the merged instances with the step a build uses
// (writeMirrorTasks), from what the shards' mirrors hold: the analysed tree (their base
// branch, the same commit in every shard) and each Level 1 instance's changes on it (its
// task branch against the base). A merge of the shards' repositories would hold the same
// commits but not the same bytes (git's packs depend on what was written together). Every
// instance's base_commit is checked against the commit written.
func rebuildMirror(ctx context.Context, dir string, insts []kept) error {
	var lv1, lv2 []repo.MirrorTask
	base, baseDir := "", ""
	for _, k := range insts {
		if k.level == 2 {
			lv2 = append(lv2, mirrorTask(k.id, 2, nil))
			continue
		}
		git := filepath.Join(k.shard.dir, MirrorDir)
		b, err := gitOutput(ctx, git, nil, "rev-parse", "--verify", "refs/heads/"+level1Branch+"^{commit}")
		if err != nil {
			return fmt.Errorf("%s: no base branch: %w", git, err)
		}
		if c := strings.TrimSpace(string(b)); base == "" {
			base, baseDir = c, git
		} else if c != base {
			return fmt.Errorf("%s: the analysed tree is commit %s, in %s %s: the shards analysed different trees", git, c, baseDir, base)
		}
		changes, err := taskChanges(ctx, git, k.id)
		if err != nil {
			return err
		}
		lv1 = append(lv1, mirrorTask(k.id, 1, changes))
	}
	root := ""
	if len(lv1) > 0 {
		tmp, err := os.MkdirTemp("", "faultline-merge-base-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := checkoutTree(ctx, baseDir, "refs/heads/"+level1Branch, tmp); err != nil {
			return err
		}
		root = tmp
	}
	commits, err := writeMirrorTasks(ctx, dir, root, nil, lv1, lv2)
	if err != nil {
		return err
	}
	for _, k := range insts {
		var head struct {
			BaseCommit string `json:"base_commit"`
		}
		if err := json.Unmarshal(k.shard.lines[k.id], &head); err != nil {
			return fmt.Errorf("%s: %s: %w", k.shard.dir, k.id, err)
		}
		if head.BaseCommit != commits[k.id] {
			return fmt.Errorf("%s: instance %s has base_commit %s, the merged mirror %s (its mirror does not hold what its instance was made from)", k.shard.dir, k.id, head.BaseCommit, commits[k.id])
		}
	}
	return nil
}

// gitOutput runs a git plumbing command on the bare repository dir and returns its
// output. Plumbing applies no attributes, filters or hooks: blobs come out as stored.
func gitOutput(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// blobs reads the named blobs of dir in one `git cat-file --batch`.
func blobs(ctx context.Context, dir string, ids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(ids) == 0 {
		return out, nil
	}
	b, err := gitOutput(ctx, dir, strings.NewReader(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("%s: git cat-file: a truncated answer", dir)
		}
		f := strings.Fields(string(b[:nl]))
		if len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("%s: git cat-file: %q is not a blob", dir, b[:nl])
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || nl+1+size+1 > len(b) {
			return nil, fmt.Errorf("%s: git cat-file: bad size in %q", dir, b[:nl])
		}
		out[f[0]] = b[nl+1 : nl+1+size]
		b = b[nl+1+size+1:]
	}
	return out, nil
}

// checkoutTree writes the files of ref's tree in dir into into, as stored: 100644 and
// 100755 files with their executable bit, 120000 as symbolic links.
func checkoutTree(ctx context.Context, dir, ref, into string) error {
	b, err := gitOutput(ctx, dir, nil, "ls-tree", "-r", "-z", "--full-tree", ref)
	if err != nil {
		return err
	}
	type entry struct{ mode, id, path string }
	var ents []entry
	var ids []string
	for _, rec := range strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("%s: %s: unexpected tree entry %q", dir, ref, rec)
		}
		ents = append(ents, entry{f[0], f[2], path})
		ids = append(ids, f[2])
	}
	data, err := blobs(ctx, dir, ids)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p, err := task.SafeJoin(into, e.path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		switch e.mode {
		case "120000":
			err = os.Symlink(string(data[e.id]), p)
		case "100644", "100755":
			perm := os.FileMode(0o644)
			if e.mode == "100755" {
				perm = 0o755
			}
			if err = os.WriteFile(p, data[e.id], perm); err == nil {
				err = os.Chmod(p, perm)
			}
		default:
			err = fmt.Errorf("%s: %s: %s has mode %s, not a file", dir, ref, e.path, e.mode)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// taskChanges reads a Level 1 instance's changes from a shard's mirror: its task branch
// against the base branch (files written, files deleted).
func taskChanges(ctx context.Context, dir, id string) (task.Overlay, error) {
	b, err := gitOutput(ctx, dir, nil, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id",
		"refs/heads/"+level1Branch, "refs/heads/task/"+id)
	if err != nil {
		return nil, err
	}
	recs := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	if len(recs)%2 != 0 {
		return nil, fmt.Errorf("%s: task %s: unexpected git diff-tree output", dir, id)
	}
	changes := task.Overlay{}
	var written []string
	ids := map[string]string{}
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 {
			return nil, fmt.Errorf("%s: task %s: unexpected git diff-tree line %q", dir, id, recs[i])
		}
		path := recs[i+1]
		switch {
		case f[4] == "D":
			changes.Remove(path)
		case f[1] == "100644" || f[1] == "100755":
			written = append(written, path)
			ids[path] = f[3]
		default:
			return nil, fmt.Errorf("%s: task %s: %s has mode %s, not a file", dir, id, path, f[1])
		}
	}
	var want []string
	for _, p := range written {
		want = append(want, ids[p])
	}
	data, err := blobs(ctx, dir, want)
	if err != nil {
		return nil, err
	}
	for _, p := range written {
		changes.Set(p, data[ids[p]])
	}
	return changes, nil
}
