package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotGit is wrapped when a directory is not inside a git work tree (or git cannot be run).
var ErrNotGit = errors.New("not a git checkout")

// Provenance says where a directory's contents came from.
type Provenance struct {
	// Commit is the HEAD commit of the git work tree holding the directory.
	Commit string `json:"commit"`
	// Subdir is the directory's slash path relative to the work tree's top ("." for the top):
	// paths in records are relative to the directory, so a reader of Commit needs Subdir to
	// find them.
	Subdir string `json:"subdir"`
	// Dirty reports uncommitted changes (tracked or untracked, ignored files aside) under the
	// directory: its contents are then not exactly Commit's.
	Dirty bool `json:"dirty,omitempty"`
	// Remote is the origin remote as owner/name ("" when there is none or it has no such
	// form), RemoteURL the URL itself.
	Remote    string `json:"remote,omitempty"`
	RemoteURL string `json:"remote_url,omitempty"`
}

// Git returns the provenance of dir. It only reads: git runs with optional locks off, so not
// even the index is refreshed. A directory outside any work tree gives an error wrapping
// ErrNotGit.
func Git(ctx context.Context, dir string) (Provenance, error) {
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(cmd.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("repo: %s: git %s: %w: %v: %s", dir, args[0], ErrNotGit, err, strings.TrimSpace(firstLine(stderr.String())))
		}
		return strings.TrimSpace(string(out)), nil
	}
	var p Provenance
	inside, err := run("rev-parse", "--is-inside-work-tree")
	if err != nil {
		return p, err
	}
	if inside != "true" {
		return p, fmt.Errorf("repo: %s is not inside a git work tree: %w", dir, ErrNotGit)
	}
	if p.Commit, err = run("rev-parse", "--verify", "-q", "HEAD"); err != nil {
		return p, fmt.Errorf("repo: %s: the work tree has no commit yet: %w", dir, ErrNotGit)
	}
	prefix, err := run("rev-parse", "--show-prefix")
	if err != nil {
		return p, err
	}
	p.Subdir = strings.TrimSuffix(prefix, "/")
	if p.Subdir == "" {
		p.Subdir = "."
	}
	status, err := run("status", "--porcelain", "--untracked-files=normal", "--", ".")
	if err != nil {
		return p, err
	}
	p.Dirty = status != ""
	if url, err := run("remote", "get-url", "origin"); err == nil {
		p.RemoteURL = url
		p.Remote = OwnerName(url)
	}
	return p, nil
}

// OwnerName returns "owner/name" from a git remote URL (https://host/owner/name.git,
// git@host:owner/name.git, ssh://git@host/owner/name, a local path ending in owner/name),
// or "" when the URL has fewer than two path elements.
func OwnerName(url string) string {
	u := strings.TrimSpace(url)
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j+1:] // drop the host
		} else {
			return ""
		}
	} else if i := strings.IndexByte(u, ':'); i >= 0 && !strings.Contains(u[:i], "/") {
		u = u[i+1:] // scp-like git@host:owner/name
	}
	u = filepath.ToSlash(u)
	parts := strings.Split(strings.Trim(u, "/"), "/")
	if len(parts) < 2 || parts[len(parts)-2] == "" || parts[len(parts)-1] == "" {
		return ""
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
