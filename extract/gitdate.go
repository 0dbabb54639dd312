package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// ErrNotGitCheckout is wrapped when a date filter needs the history of a repository that is
// not (inside) a git checkout, or git cannot read it.
var ErrNotGitCheckout = errors.New("extract: not a git checkout")

// FirstCommitted returns, for each file of files (slash paths relative to root) that the
// history of the git checkout holding root adds, the committer date of the earliest commit
// that added it (`git log --diff-filter=A`, renames not followed: a renamed file counts
// from its rename). Files that no commit adds (untracked, or beyond a shallow clone's
// history) are absent from the map. The repository is only read: git runs with root as
// its working directory (-C) and writes nothing. A root outside any git checkout, or a git
// that cannot be run, gives an error wrapping ErrNotGitCheckout.
func FirstCommitted(ctx context.Context, root string, files []string) (map[string]time.Time, error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(cmd.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w: %s: git %s: %v: %s", ErrNotGitCheckout, root, args[0], err, firstLine(stderr.String()))
		}
		return out, nil
	}
	out, err := git("rev-parse", "--is-inside-work-tree")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(out)) != "true" {
		return nil, fmt.Errorf("%w: %s is not inside a work tree", ErrNotGitCheckout, root)
	}
	// One log of every addition under root: NUL-separated, a \x01-prefixed committer date
	// before the paths (relative to root) each commit adds. Newest commits come first.
	out, err = git("log", "--diff-filter=A", "--no-renames", "--relative", "--name-only", "-z",
		"--format=%x01%cI", "--", ".")
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(files))
	for _, f := range files {
		want[f] = true
	}
	dates := map[string]time.Time{}
	var cur time.Time
	for tok := range strings.SplitSeq(string(out), "\x00") {
		tok = strings.TrimLeft(tok, "\n")
		if tok == "" {
			continue
		}
		if d, ok := strings.CutPrefix(tok, "\x01"); ok {
			if cur, err = time.Parse(time.RFC3339, strings.TrimSpace(d)); err != nil {
				return nil, fmt.Errorf("extract: %s: git log date %q: %w", root, d, err)
			}
			continue
		}
		if want[tok] {
			// Later entries are older commits: the last one seen is the first addition.
			dates[tok] = cur
		}
	}
	return dates, nil
}

// filterCommittedAfter splits candidate test files into those first committed strictly
// after after and the rest, each with the reason it was left out.
func filterCommittedAfter(ctx context.Context, root string, after time.Time, files []*testFileInfo) (kept []*testFileInfo, out []Exclusion, err error) {
	names := make([]string, len(files))
	for i, tf := range files {
		names[i] = tf.file
	}
	dates, err := FirstCommitted(ctx, root, names)
	if err != nil {
		return nil, nil, err
	}
	for _, tf := range files {
		d, ok := dates[tf.file]
		switch {
		case !ok:
			out = append(out, Exclusion{File: tf.file, Cause: "never committed", Reason: "never committed (the date filter needs a first commit)"})
		case !d.After(after):
			out = append(out, Exclusion{File: tf.file, Cause: "first committed too early", Reason: fmt.Sprintf("first committed %s, not after %s",
				d.UTC().Format(time.RFC3339), after.UTC().Format(time.RFC3339))})
		default:
			kept = append(kept, tf)
		}
	}
	return kept, out, nil
}
