// Package container runs a repository's tests in Docker containers through
// testcontainers-go, with the same commands, re-run rule, cross-checks and reports as
// sandbox.Local.
//
// Terms: an image is a locally built test image (no registry is reachable in our environments,
// and nothing is ever pulled): faultline/python:bookworm (a debootstrap root filesystem with
// python3-pytest) and faultline/go:bookworm (that plus the host's Go toolchain), both made by
// build-images.sh beside this file or by BuildImages (the same script, embedded). A box is one
// running container per (repository tree, test kind, image): the tree is copied in once, with
// our own tar stream (modes and symbolic links preserved; testcontainers' CopyDirToContainer
// flattens modes and skips links), as /work/pristine; each attempt resets /work/tree from it
// with `cp -a`, writes the overlay, and runs the test command under `timeout -s KILL N` (an
// exec is not killed when its context ends), after killing whatever the previous attempt left
// running. Reusing a box is much cheaper than a container per run.
//
// Go runs build before they run, and untrusted code never writes a cache another run reads.
// A Go box has a second container, the builder, that holds the shared build cache (the
// Docker volume Options.GoCacheVolume, mounted writable there only) and runs nothing but the
// go command's `go list` and `go test -c -vet=off` on the tree with the overlay: compiling
// runs no repository code (the images disable cgo). The test binaries (and a test2json built
// from the toolchain) go to a volume of the box's own, mounted read-only in the test
// container, which has no shared cache at all (GOCACHE is a private directory in /tmp;
// TestDockerCacheNotPoisoned checks that a test cannot reach the volume). Go flags that would
// make the builder run a program of the request's (-toolexec, -exec, an external linker) are
// refused before anything runs (sandbox.CheckGoArgs). Each
// binary runs with -test.v=test2json in its package's directory, its output is converted by
// test2json after go's own summary line ("ok" or "FAIL"), and its exit status is reported
// on a separate line: one more channel for the cross-check (status 0 if and only if its
// package passed). Binaries are built once per (tree, overlay): re-runs only run them.
// go test flags in RunRequest.Args that belong to the test binary (-run, -timeout, -v,
// -short, -count, -cpu, -parallel, -failfast, -skip, ...) are passed to it as -test.X; the
// others (-tags, -race, -gcflags, ...) go to the build. Packages run one after another.
//
// Pytest runs execute sandbox's bootstrap (testrun.PytestAttemptArgs) with its files in
// /work/run; the JUnit file and the reporter's events are streamed out of the container
// within the sandbox package's bounds. Command runs (task.Command) run RunRequest.Args in the
// tree in the Python image (Options.CommandImage).
//
// Every attempt, re-run and verdict follows the rule of the sandbox package doc (Verdicts);
// every report is cross-checked (Evidence, same doc).
//
// Containers run with NetworkMode none and memory, CPU and pids limits. The root filesystem
// stays writable: the Docker copy API cannot write into a read-only root or a tmpfs. Runs in
// one box are serialised; different repositories run in parallel.
//
// Every container and volume a Runner creates carries labels naming its owner (LabelPID,
// LabelStart, LabelHost, LabelRun). Close removes them; New reaps those whose owning process
// on this host is gone (see Reap), so a process that dies without Close leaves nothing
// running past the next runner. The shared cache volume carries no owner and is kept.
// TESTCONTAINERS_RYUK_DISABLED=true is set before the first testcontainers call (the reaper
// image cannot be pulled). DOCKER_HOST is honoured, so a remote engine works, except for
// Options.GoModCache, which is a bind mount of a host directory.
//
// Nothing but examples and tests should import this package (the dependency policy,
// deps_test.go at the module root, checks it).
package container

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
	mcontainer "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

// Default images, built by build-images.sh.
const (
	PythonImage = "faultline/python:bookworm"
	GoImage     = "faultline/go:bookworm"
)

// ErrNoImage is wrapped when the image is not in the engine; the message names the build
// command.
var ErrNoImage = errors.New("image not found (build it with sandbox/container/build-images.sh)")

// Options configure a Runner. The zero value works.
type Options struct {
	// PythonImage and GoImage override the default images; CommandImage is the image of
	// Command runs (default: the Python image).
	PythonImage, GoImage, CommandImage string
	// Memory (bytes, default 4 GiB), CPUs (default 2) and PIDs (default 1024) limit each
	// container.
	Memory int64
	CPUs   float64
	PIDs   int64
	// GoModCache, when set, is a host module cache bind-mounted read-only at /gomodcache in
	// the builder and used as GOMODCACHE (GOPROXY=off in the image: dependencies must be
	// there). Needs an engine on this host.
	GoModCache string
	// GoCacheVolume is the Docker volume mounted at /gocache as GOCACHE in the builders,
	// shared by them so builds stay warm across boxes (default "faultline-gocache"; "-" for
	// none: each builder then starts with a cold cache). No test container mounts it.
	GoCacheVolume string
	// Env holds extra KEY=VALUE pairs for the test command (and the build).
	Env []string
	// Limits fill the zero fields of each request's limits (then the sandbox defaults).
	Limits task.Limits
	// Reruns bounds the re-runs of a run (the sandbox package doc's Verdicts).
	Reruns sandbox.Reruns
}

// Runner runs tests in reused containers. It implements task.Runner and task.Lister and is
// safe for concurrent use.
type Runner struct {
	opts   Options
	hasher *sandbox.TreeHasher
	owner  owner
	runID  string

	mu      sync.Mutex
	cli     *tc.DockerClient
	boxes   map[string]*box
	stats   Stats
	reaped  Reaped
	reapErr error
	volSeq  int
}

// Stats count containers started and runs.
type Stats struct {
	Containers int
	Runs       int
}

type box struct {
	mu  sync.Mutex
	c   tc.Container
	id  string
	seq int // overlay directories copied in

	// Go: the builder and the binaries' volume.
	b        tc.Container
	bid      string
	bins     string
	key      string              // the build whose binaries /bins holds
	built    map[string]goBin    // import path → binary
	resolved map[string][]string // package patterns → import paths with binaries (no build failed)
	none     map[string]string   // import path → why there is no binary ("" for no test files)
}

// goBin is a test binary in a box's volume.
type goBin struct {
	rel  string // the package's directory in the tree
	name string // file name under /bins/<key>/
}

// New returns a runner. It reaps the containers and volumes of runners whose process is
// gone (Reap; an engine that does not answer is left to the first run) and contacts the
// engine again on first use.
func New(opts Options) *Runner {
	if opts.PythonImage == "" {
		opts.PythonImage = PythonImage
	}
	if opts.GoImage == "" {
		opts.GoImage = GoImage
	}
	if opts.CommandImage == "" {
		opts.CommandImage = opts.PythonImage
	}
	if opts.Memory <= 0 {
		opts.Memory = 4 << 30
	}
	if opts.CPUs <= 0 {
		opts.CPUs = 2
	}
	if opts.PIDs <= 0 {
		opts.PIDs = 1024
	}
	if opts.GoCacheVolume == "" {
		opts.GoCacheVolume = "faultline-gocache"
	}
	r := &Runner{opts: opts, hasher: sandbox.NewTreeHasher(), boxes: map[string]*box{}, owner: self(), runID: newRunID()}
	r.reaped, r.reapErr = reapOnNew()
	return r
}

// Reaped returns what New's reaping removed, and its error (an engine that did not answer).
func (r *Runner) Reaped() (Reaped, error) { return r.reaped, r.reapErr }

// disableReaper must run before the first testcontainers call.
func disableReaper() {
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
}

func (r *Runner) client(ctx context.Context) (*tc.DockerClient, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cli != nil {
		return r.cli, nil
	}
	disableReaper()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("container: docker engine: %w", err)
	}
	r.cli = cli
	return cli, nil
}

// Available reports whether a Docker engine answers, with the reason when it does not.
func Available(ctx context.Context) error {
	disableReaper()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("container: docker engine: %w", err)
	}
	defer cli.Close()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return fmt.Errorf("container: docker engine: %w", err)
	}
	return nil
}

// HasImage reports whether image exists in the engine.
func HasImage(ctx context.Context, cli *tc.DockerClient, image string) error {
	if _, err := cli.ImageInspect(ctx, image); err != nil {
		return fmt.Errorf("container: %s: %w (%v)", image, ErrNoImage, err)
	}
	return nil
}

// Stats returns the counters.
func (r *Runner) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Close removes every container and volume the runner created.
func (r *Runner) Close() error {
	r.mu.Lock()
	boxes := r.boxes
	r.boxes = map[string]*box{}
	cli := r.cli
	r.cli = nil
	r.mu.Unlock()
	var errs []error
	for _, k := range sortedKeys(boxes) {
		b := boxes[k]
		b.mu.Lock()
		for _, c := range []tc.Container{b.c, b.b} {
			if c != nil {
				if err := c.Terminate(context.Background(), tc.StopTimeout(0)); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if b.bins != "" && cli != nil {
			if _, err := cli.VolumeRemove(context.Background(), b.bins, client.VolumeRemoveOptions{Force: true}); err != nil {
				errs = append(errs, err)
			}
		}
		b.mu.Unlock()
	}
	if cli != nil {
		cli.Close()
	}
	return errors.Join(errs...)
}

func sortedKeys(m map[string]*box) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (r *Runner) image(kind task.TestKind) string {
	switch kind {
	case task.GoTest:
		return r.opts.GoImage
	case task.Command:
		return r.opts.CommandImage
	}
	return r.opts.PythonImage
}

// boxFor returns the (locked) box for req, starting its containers and copying the tree
// when needed.
func (r *Runner) boxFor(ctx context.Context, req task.RunRequest) (*box, error) {
	cli, err := r.client(ctx)
	if err != nil {
		return nil, err
	}
	tree, err := r.hasher.Hash(req.Root, nil)
	if err != nil {
		return nil, err
	}
	img := r.image(req.Kind)
	key := string(req.Kind) + "\x00" + img + "\x00" + req.Root + "\x00" + tree
	r.mu.Lock()
	b := r.boxes[key]
	if b == nil {
		b = &box{}
		r.boxes[key] = b
	}
	r.mu.Unlock()
	b.mu.Lock()
	if b.c != nil {
		return b, nil
	}
	fail := func(err error) (*box, error) {
		b.mu.Unlock()
		return nil, err
	}
	if err := HasImage(ctx, cli, img); err != nil {
		return fail(err)
	}
	var tarball bytes.Buffer
	if err := WriteTreeTar(&tarball, req.Root, "work/pristine"); err != nil {
		return fail(err)
	}
	var testBinds []string
	if req.Kind == task.GoTest {
		// The binaries' volume: written by the builder, read-only for the tests.
		name := "faultline-bins-" + r.runID + "-" + strconv.Itoa(r.nextSeq())
		if _, err := cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: name, Labels: r.owner.labels(r.runID)}); err != nil {
			return fail(fmt.Errorf("container: creating the binaries' volume: %w", err))
		}
		b.bins = name
		binds := []string{name + ":/bins"}
		if r.opts.GoCacheVolume != "-" {
			binds = append(binds, r.opts.GoCacheVolume+":/gocache")
		}
		if r.opts.GoModCache != "" {
			binds = append(binds, r.opts.GoModCache+":/gomodcache:ro")
		}
		bc, err := r.start(ctx, img, binds)
		if err != nil {
			return fail(err)
		}
		b.b, b.bid = bc, bc.GetContainerID()
		if _, err := cli.CopyToContainer(ctx, b.bid, client.CopyToContainerOptions{DestinationPath: "/", Content: bytes.NewReader(tarball.Bytes())}); err != nil {
			return fail(fmt.Errorf("container: copying the tree: %w", err))
		}
		testBinds = []string{name + ":/bins:ro"}
	}
	c, err := r.start(ctx, img, testBinds)
	if err != nil {
		return fail(err)
	}
	b.c, b.id = c, c.GetContainerID()
	if _, err := cli.CopyToContainer(ctx, b.id, client.CopyToContainerOptions{DestinationPath: "/", Content: &tarball}); err != nil {
		return fail(fmt.Errorf("container: copying the tree: %w", err))
	}
	r.mu.Lock()
	r.stats.Containers++
	if b.b != nil {
		r.stats.Containers++
	}
	r.mu.Unlock()
	return b, nil
}

func (r *Runner) nextSeq() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.volSeq++
	return r.volSeq
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func (r *Runner) start(ctx context.Context, img string, binds []string) (tc.Container, error) {
	pids := r.opts.PIDs
	req := tc.GenericContainerRequest{
		ContainerRequest: tc.ContainerRequest{
			Image:      img,
			Entrypoint: []string{"sleep", "infinity"},
			Labels:     r.owner.labels(r.runID),
			HostConfigModifier: func(hc *mcontainer.HostConfig) {
				hc.NetworkMode = "none"
				hc.Resources.Memory = r.opts.Memory
				hc.Resources.NanoCPUs = int64(r.opts.CPUs * 1e9)
				hc.Resources.PidsLimit = &pids
				hc.Binds = append(hc.Binds, binds...)
			},
		},
		Started: true,
	}
	c, err := tc.GenericContainer(ctx, req)
	if err != nil {
		if c != nil {
			_ = c.Terminate(context.Background(), tc.StopTimeout(0))
		}
		return nil, fmt.Errorf("container: starting %s: %w", img, err)
	}
	return c, nil
}

// WriteTreeTar writes the tree at root as a tar stream with every entry under prefix:
// directories, regular files (mode bits kept) and symbolic links (targets kept), leaving out
// what sandbox leaves out of private copies (.git, __pycache__, .pytest_cache).
func WriteTreeTar(w io.Writer, root, prefix string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel != "." && d.IsDir() && repo.SkipSnapshotDir(d.Name()) {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		} else if !info.Mode().IsRegular() && !info.IsDir() {
			return nil
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = path.Join(prefix, filepath.ToSlash(rel))
		if info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("container: tar of %s: %w", root, err)
	}
	return tw.Close()
}

// overlayTar writes the files of run under runPrefix and the overlay's new files under prefix (mode of the original file when it
// is a regular file, else 0644) and returns the paths to delete.
func overlayTar(w io.Writer, root string, ov task.Overlay, prefix string, run map[string][]byte, runPrefix string) (deletes []string, err error) {
	tw := tar.NewWriter(w)
	names := make([]string, 0, len(run))
	for n := range run {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: path.Join(runPrefix, n), Mode: 0o644, Size: int64(len(run[n])), Typeflag: tar.TypeReg, ModTime: time.Now()}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(run[n]); err != nil {
			return nil, err
		}
	}
	for _, p := range ov.Paths() {
		c, err := task.CleanRelPath(p)
		if err != nil {
			return nil, err
		}
		ch := ov[p]
		if ch.Delete {
			deletes = append(deletes, c)
			continue
		}
		mode := int64(0o644)
		if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(c))); err == nil && st.Mode().IsRegular() {
			mode = int64(st.Mode().Perm())
		}
		if err := tw.WriteHeader(&tar.Header{Name: path.Join(prefix, c), Mode: mode, Size: int64(len(ch.Data)), Typeflag: tar.TypeReg, ModTime: time.Now()}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(ch.Data); err != nil {
			return nil, err
		}
	}
	return deletes, tw.Close()
}

// exec runs argv in the container, streaming stdout and stderr to the writers.
func (r *Runner) exec(ctx context.Context, id string, argv, env []string, dir string, stdout, stderr io.Writer) (int, error) {
	cli, err := r.client(ctx)
	if err != nil {
		return -1, err
	}
	cr, err := cli.ExecCreate(ctx, id, client.ExecCreateOptions{Cmd: argv, Env: env, WorkingDir: dir, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return -1, fmt.Errorf("container: exec: %w", err)
	}
	hj, err := cli.ExecAttach(ctx, cr.ID, client.ExecAttachOptions{})
	if err != nil {
		return -1, fmt.Errorf("container: exec attach: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- demux(hj.Reader, stdout, stderr) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		hj.Close()
		<-done
		return -1, fmt.Errorf("container: exec: %w", ctx.Err())
	}
	hj.Close()
	if err != nil {
		return -1, fmt.Errorf("container: exec stream: %w", err)
	}
	for {
		ins, err := cli.ExecInspect(ctx, cr.ID, client.ExecInspectOptions{})
		if err != nil {
			return -1, fmt.Errorf("container: exec inspect: %w", err)
		}
		if !ins.Running {
			return ins.ExitCode, nil
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return -1, fmt.Errorf("container: exec: %w", ctx.Err())
		}
	}
}

// demux splits Docker's multiplexed attach stream (8-byte frame headers: stream, 0, 0, 0,
// big-endian length).
func demux(r io.Reader, stdout, stderr io.Writer) error {
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		n := int64(binary.BigEndian.Uint32(hdr[4:]))
		w := stdout
		if hdr[0] == 2 {
			w = stderr
		}
		if _, err := io.CopyN(w, r, n); err != nil {
			return err
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (r *Runner) env(kind task.TestKind) []string {
	env := []string{"HOME=/tmp/home", "TMPDIR=/tmp", "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0", "NO_COLOR=1"}
	if kind == task.GoTest {
		// The tests' own go commands, if any, get a cache no other run reads.
		env = append(env, "GOCACHE=/tmp/gocache")
	}
	return append(env, r.opts.Env...)
}

func (r *Runner) buildEnv() []string {
	env := []string{"HOME=/tmp/home", "TMPDIR=/tmp", "GOCACHE=/tmp/gocache"}
	if r.opts.GoCacheVolume != "-" {
		env[2] = "GOCACHE=/gocache"
	}
	if r.opts.GoModCache != "" {
		env = append(env, "GOMODCACHE=/gomodcache", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off")
	}
	return append(env, r.opts.Env...)
}

// resetFailed marks a failure of the reset script (exit 97 with this line on stderr).
const resetFailed = "faultline: resetting the work tree failed"

// prepare copies the overlay (and files for /work/run) into container id under fresh
// /work/ov-N and /work/ovrun-N, and returns the shell script that, in the same exec as the
// test command, kills whatever a previous attempt left running, resets /work/tree from the
// pristine copy with `cp -a`, applies the overlay, fills /work/run and changes into the tree.
// One exec per attempt instead of several keeps reuse cheap.
func (r *Runner) prepare(ctx context.Context, b *box, id string, req task.RunRequest, run map[string][]byte) (string, error) {
	cli, err := r.client(ctx)
	if err != nil {
		return "", err
	}
	b.seq++
	ov := "work/ov-" + strconv.Itoa(b.seq)
	ovrun := "work/ovrun-" + strconv.Itoa(b.seq)
	var buf bytes.Buffer
	deletes, err := overlayTar(&buf, req.Root, req.Overlay, ov, run, ovrun)
	if err != nil {
		return "", fmt.Errorf("container: overlay: %w", err)
	}
	fail := " || { echo " + shellQuote(resetFailed) + " >&2; exit 97; }\n"
	var sc strings.Builder
	sc.WriteString("kill -9 -1 2>/dev/null\n")
	sc.WriteString("rm -rf /work/tree /work/run && cp -a /work/pristine /work/tree && mkdir -p /tmp/home /work/run" + fail)
	if len(req.Overlay) > len(deletes) || len(run) > 0 {
		if _, err := cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: &buf}); err != nil {
			return "", fmt.Errorf("container: copying the overlay: %w", err)
		}
	}
	if len(req.Overlay) > len(deletes) {
		sc.WriteString("cp -a /" + ov + "/. /work/tree/" + fail)
	}
	if len(run) > 0 {
		sc.WriteString("cp -a /" + ovrun + "/. /work/run/" + fail)
	}
	sc.WriteString("rm -rf /work/ov-* /work/ovrun-*\n")
	if len(deletes) > 0 {
		sc.WriteString("rm -f --")
		for _, d := range deletes {
			sc.WriteString(" " + shellQuote("/work/tree/"+d))
		}
		sc.WriteString(fail)
	}
	sc.WriteString("cd /work/tree" + fail)
	return sc.String(), nil
}

func checkRequest(req task.RunRequest) error {
	if req.Root == "" || !filepath.IsAbs(req.Root) {
		return fmt.Errorf("container: root %q must be an absolute path: %w", req.Root, sandbox.ErrBadRequest)
	}
	if st, err := os.Stat(req.Root); err != nil || !st.IsDir() {
		return fmt.Errorf("container: root %s is not a directory: %w", req.Root, sandbox.ErrBadRequest)
	}
	if err := testrun.CheckKind(req); err != nil {
		return err
	}
	if req.Kind == task.GoTest {
		// The builder holds the shared build cache: nothing of the request's may run there.
		if err := sandbox.CheckGoArgs(req.Args); err != nil {
			return err
		}
	}
	if err := req.Overlay.Validate(); err != nil {
		return fmt.Errorf("container: overlay: %w", err)
	}
	for _, f := range req.Select.Files {
		if _, err := task.CleanRelPath(f); err != nil {
			return fmt.Errorf("container: selection: %w", err)
		}
	}
	return nil
}

// Run runs the selected tests in the repository's box, with the re-runs of the sandbox
// package doc's Verdicts.
func (r *Runner) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	lim := sandbox.FillLimits(req.Limits, r.opts.Limits)
	if req.Kind == task.GoTest {
		if _, _, _, err := testrun.GoAttemptPlan(testrun.Attempt{Select: req.Select}); err != nil {
			return nil, err
		}
	}
	b, err := r.boxFor(ctx, req)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	r.mu.Lock()
	r.stats.Runs++
	r.mu.Unlock()
	return testrun.Resolve(ctx, req, lim, r.opts.Reruns.Attempts, r.opts.Reruns.Time, func(ctx context.Context, a testrun.Attempt) (testrun.CommandResult, error) {
		var res testrun.CommandResult
		var err error
		switch req.Kind {
		case task.GoTest:
			res, err = r.goAttempt(ctx, b, req, a)
		default:
			res, err = r.procAttempt(ctx, b, req, a)
		}
		res.Notes = append(res.Notes, "docker: "+b.id[:12]+" network none")
		return res, err
	})
}

func seconds(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// run executes script (after the reset) under the attempt's time limit in the box's test
// container.
func (r *Runner) run(ctx context.Context, b *box, reset, script string, env []string, lim task.Limits, stdout, stderr io.Writer) (code int, timedOut bool, wall time.Duration, err error) {
	full := []string{"/bin/sh", "-c", reset + "exec timeout -s KILL " + seconds(lim.Timeout) + " /bin/sh -c " + shellQuote(script)}
	var errBuf bytes.Buffer
	start := time.Now()
	code, err = r.exec(ctx, b.id, full, env, "/work", stdout, io.MultiWriter(stderr, capWriter{&errBuf, 4096}))
	wall = time.Since(start)
	if err != nil {
		return 0, false, wall, err
	}
	if code == 97 && strings.Contains(errBuf.String(), resetFailed) {
		return 0, false, wall, fmt.Errorf("container: %s: %s", resetFailed, errBuf.String())
	}
	// timeout(1) exits 137 when it had to kill the command.
	return code, code == 137 && wall >= lim.Timeout-time.Second, wall, nil
}

// capWriter keeps the first n bytes written to it.
type capWriter struct {
	b *bytes.Buffer
	n int
}

func (w capWriter) Write(p []byte) (int, error) {
	if room := w.n - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// procAttempt runs a pytest or Command attempt.
func (r *Runner) procAttempt(ctx context.Context, b *box, req task.RunRequest, a testrun.Attempt) (testrun.CommandResult, error) {
	var argv []string
	var run map[string][]byte
	if req.Kind == task.Pytest {
		args, cfg := testrun.PytestAttemptArgs(a, "/work/tree", "/work/run", req.Args)
		argv = append([]string{"python3"}, args...)
		run = map[string][]byte{testrun.PytestConfigFile: cfg}
	} else {
		argv = req.Args
	}
	reset, err := r.prepare(ctx, b, b.id, req, run)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	var sc strings.Builder
	sc.WriteString("exec")
	for _, s := range argv {
		sc.WriteString(" " + shellQuote(s))
	}
	out := testrun.NewAttemptOutput(req.Kind, a)
	code, timedOut, wall, err := r.run(ctx, b, reset, sc.String(), r.env(req.Kind), a.Limits, out.Stdout, out.Stderr)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	var junit, events io.Reader
	if req.Kind == task.Pytest {
		for _, f := range []struct {
			name string
			r    *io.Reader
		}{{testrun.PytestJUnitFile, &junit}, {testrun.PytestEventsFile, &events}} {
			if rc, err := b.c.CopyFileFromContainer(ctx, "/work/run/"+f.name); err == nil {
				defer rc.Close()
				*f.r = rc
			}
		}
	}
	if timedOut {
		code = -1
	}
	return out.Result(code, timedOut, wall, nil, junit, events), nil
}

// testFlags are the go test flags that belong to the test binary (-test.X).
var testFlags = map[string]bool{
	"run": true, "skip": true, "timeout": true, "v": true, "short": true, "count": true, "cpu": true,
	"parallel": true, "failfast": true, "bench": true, "benchtime": true, "benchmem": true,
	"shuffle": true, "fullpath": true, "list": true, "coverprofile": false,
}

// splitGoArgs sorts go test arguments into build flags and test binary flags.
func splitGoArgs(args []string) (build, test []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" {
			return build, append(test, args[i+1:]...)
		}
		name := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(name, "=")
		if strings.HasPrefix(a, "-") && testFlags[name] {
			flag := "-test." + strings.TrimLeft(a, "-")
			test = append(test, flag)
			if !hasValue && name != "v" && name != "short" && name != "failfast" && name != "benchmem" && name != "fullpath" && i+1 < len(args) {
				i++
				test = append(test, args[i])
			}
			continue
		}
		build = append(build, a)
	}
	return build, test
}

// build makes sure the box's volume holds test binaries of the packages pkgs names for the
// tree with req's overlay, running the go command in the builder (no repository code runs).
// It returns the packages in order, and feeds build failures into gp as go test -json would.
func (r *Runner) build(ctx context.Context, b *box, req task.RunRequest, pkgs []string, gp *testrun.GoParser) (ips []string, stderr string, exit int, err error) {
	buildArgs, _ := splitGoArgs(req.Args)
	key, err := r.hasher.Hash(req.Root, req.Overlay)
	if err != nil {
		return nil, "", 0, err
	}
	key = hashString(key + "\x00" + strings.Join(buildArgs, "\x00"))[:24]
	if b.key != key {
		b.key, b.built, b.none, b.resolved = key, map[string]goBin{}, map[string]string{}, map[string][]string{}
	}
	// Patterns resolved and built before for this build need no builder: a unit's import
	// path, or the request's patterns again.
	pat := strings.Join(pkgs, "\x00")
	if ips, ok := b.resolved[pat]; ok {
		return ips, "", 0, nil
	}
	if len(pkgs) == 1 {
		if _, ok := b.built[pkgs[0]]; ok {
			return pkgs, "", 0, nil
		}
	}
	reset, err := r.prepare(ctx, b, b.bid, req, nil)
	if err != nil {
		return nil, "", 0, err
	}
	dir := "/bins/" + key
	var sc strings.Builder
	fmt.Fprintf(&sc, "mkdir -p %s && find /bins -mindepth 1 -maxdepth 1 ! -name %s ! -name test2json -exec rm -rf {} +\n", dir, key)
	sc.WriteString("[ -x /bins/test2json ] || go build -o /bins/test2json cmd/test2json || exit 98\n")
	sc.WriteString(`go list -e -f '{{.ImportPath}}{{"\t"}}{{.Dir}}{{"\t"}}{{if or .TestGoFiles .XTestGoFiles}}y{{end}}{{"\t"}}{{if .Error}}{{.Error}}{{end}}' "$@" >/tmp/pkgs 2>/tmp/listerr || { cat /tmp/listerr >&2; exit 96; }` + "\n")
	sc.WriteString("tab=$(printf '\\t')\n")
	sc.WriteString("while IFS=\"$tab\" read -r ip dir tests err; do\n")
	sc.WriteString("  rel=${dir#/work/tree}; rel=${rel#/}\n")
	sc.WriteString("  if [ -n \"$err\" ]; then printf 'faultline-build-failed\\t%s\\n' \"$ip\"; printf '%s\\n' \"$err\"; continue; fi\n")
	sc.WriteString("  if [ -z \"$tests\" ]; then printf 'faultline-nobin\\t%s\\n' \"$ip\"; continue; fi\n")
	sc.WriteString("  n=$(printf '%s' \"$ip\" | md5sum | cut -c1-24).test\n")
	fmt.Fprintf(&sc, "  if [ ! -x %s/$n ]; then\n", dir)
	fmt.Fprintf(&sc, "    if ! go test -c -vet=off%s -o %s/$n \"$ip\" >/tmp/b.log 2>&1; then printf 'faultline-build-failed\\t%%s\\n' \"$ip\"; cat /tmp/b.log; continue; fi\n", shellJoin(buildArgs), dir)
	sc.WriteString("  fi\n")
	sc.WriteString("  printf 'faultline-pkg\\t%s\\t%s\\t%s\\n' \"$ip\" \"$rel\" \"$n\"\n")
	sc.WriteString("done </tmp/pkgs\n")
	full := append([]string{"/bin/sh", "-c", reset + sc.String(), "sh"}, pkgs...)
	var out bytes.Buffer
	errCap := testrun.NewCapture(1<<20, nil)
	code, err := r.exec(ctx, b.bid, full, r.buildEnv(), "/work", capWriter{&out, 64 << 20}, errCap)
	if err != nil {
		return nil, "", 0, err
	}
	switch code {
	case 0:
	case 96: // go list failed: go itself could not start (bad go.mod, no such package)
		return nil, errCap.String(), 1, nil
	default:
		return nil, "", 0, fmt.Errorf("container: building test binaries (exit %d): %s", code, errCap.String())
	}
	// Parse the manifest; text after a build-failed line is its compiler output.
	failed := ""
	var failOut strings.Builder
	flush := func() {
		if failed != "" {
			ipath := failed + " [" + failed + ".test]"
			gp.Event(testrun.GoEvent{Action: "build-output", ImportPath: ipath, Output: failOut.String()})
			gp.Event(testrun.GoEvent{Action: "build-fail", ImportPath: ipath})
			gp.Event(testrun.GoEvent{Action: "start", Package: failed})
			gp.Event(testrun.GoEvent{Action: "output", Package: failed, Output: "FAIL\t" + failed + " [build failed]\n"})
			gp.Event(testrun.GoEvent{Action: "fail", Package: failed, FailedBuild: ipath})
			b.none[failed] = "build failed"
		}
		failed = ""
		failOut.Reset()
	}
	sc2 := bufio.NewScanner(&out)
	sc2.Buffer(make([]byte, 64<<10), 1<<20)
	for sc2.Scan() {
		f := strings.Split(sc2.Text(), "\t")
		switch {
		case len(f) == 4 && f[0] == "faultline-pkg":
			flush()
			b.built[f[1]] = goBin{rel: f[2], name: f[3]}
			ips = append(ips, f[1])
		case len(f) == 2 && f[0] == "faultline-nobin":
			flush()
			b.none[f[1]] = ""
		case len(f) == 2 && f[0] == "faultline-build-failed":
			flush()
			failed = f[1]
		default:
			if failed != "" && failOut.Len() < 64<<10 {
				failOut.WriteString(sc2.Text() + "\n")
			}
		}
	}
	flush()
	sort.Strings(ips)
	if len(b.none) == 0 || !anyFailed(b.none) {
		b.resolved[pat] = ips
	}
	return ips, "", 0, nil
}

func anyFailed(none map[string]string) bool {
	for _, why := range none {
		if why != "" {
			return true
		}
	}
	return false
}

func shellJoin(args []string) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}

// goAttempt builds (when needed) and runs a Go attempt's test binaries.
func (r *Runner) goAttempt(ctx context.Context, b *box, req task.RunRequest, a testrun.Attempt) (testrun.CommandResult, error) {
	pkgs, runPat, skipPat, err := testrun.GoAttemptPlan(a)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	_, testArgs := splitGoArgs(req.Args)
	out := testrun.NewAttemptOutput(task.GoTest, a)
	gp := testrun.NewGoParser(a.Limits.MessageLen)
	start := time.Now()
	ips, goErr, goExit, err := r.build(ctx, b, req, pkgs, gp)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	if goExit != 0 {
		res := out.Result(goExit, false, time.Since(start), nil, nil, nil)
		res.Stderr, res.Go = goErr, gp.Result()
		return res, nil
	}
	dir := "/bins/" + b.key
	var sc strings.Builder
	for _, ip := range ips {
		bin := b.built[ip]
		cd := "/work/tree/" + bin.rel
		if a.List {
			fmt.Fprintf(&sc, "printf 'faultline-list\\t%%s\\n' %s\n", shellQuote(ip))
			fmt.Fprintf(&sc, "cd %s && %s/%s -test.list . 2>&1; printf 'faultline-status\\t%%s\\t%%d\\n' %s $?\n", shellQuote(cd), dir, bin.name, shellQuote(ip))
			continue
		}
		flags := []string{"-test.v=test2json", "-test.paniconexit0", "-test.count=1", "-test.timeout=" + (a.Limits.Timeout * 9 / 10).String()}
		if runPat != "" {
			flags = append(flags, "-test.run="+runPat)
		}
		if skipPat != "" {
			flags = append(flags, "-test.skip="+skipPat)
		}
		flags = append(flags, testArgs...)
		// go test's own way: the binary's output and then go's summary line, converted
		// by test2json; the binary's exit status on stderr.
		fmt.Fprintf(&sc, "cd %s || { printf 'faultline-status\\t%%s\\t125\\n' %s >&2; exit 0; }\n", shellQuote(cd), shellQuote(ip))
		fmt.Fprintf(&sc, "( %s/%s%s 2>&1; st=$?; if [ $st = 0 ]; then printf 'ok  \\t%%s\\t0.000s\\n' %s; else printf 'FAIL\\t%%s\\t0.000s\\n' %s; fi; printf 'faultline-status\\t%%s\\t%%d\\n' %s $st >&2 ) </dev/null | /bins/test2json -t -p %s\n",
			dir, bin.name, shellJoin(flags), shellQuote(ip), shellQuote(ip), shellQuote(ip), shellQuote(ip))
	}
	reset, err := r.prepare(ctx, b, b.id, req, nil)
	if err != nil {
		return testrun.CommandResult{}, err
	}
	statuses := map[string]int{}
	status := statusLines(statuses)
	var lst listed
	lw := lst.writer()
	var stdout io.Writer = out.Stdout
	if a.List {
		stdout = lw
	}
	code, timedOut, wall, err := r.run(ctx, b, reset, sc.String(), r.env(task.GoTest), a.Limits, stdout, io.MultiWriter(out.Stderr, status))
	if err != nil {
		return testrun.CommandResult{}, err
	}
	status.Close()
	if a.List {
		lw.Close()
		sort.Strings(lst.ids)
		if code != 0 || len(lst.failed) > 0 {
			return testrun.ListedResult(nil, fmt.Errorf("container: listing %v failed", lst.failed)), nil
		}
		return testrun.ListedResult(lst.ids, nil), nil
	}
	exit := 0
	for _, ip := range ips {
		st, ok := statuses[ip]
		if !ok || st != 0 {
			exit = 1
		}
		if ok && !timedOut {
			out.Exited(ip, st)
		}
	}
	if timedOut {
		exit = -1
	} else if code != 0 {
		exit = code
	}
	res := out.Result(exit, timedOut, time.Since(start), nil, nil, nil)
	res.Wall = max(res.Wall, wall)
	// Build failures first, then the binaries' stream, as go test -json orders them.
	res.Go = mergeGo(gp, res.Go)
	// The status lines are ours, not the tests' output.
	var kept []string
	for _, l := range strings.SplitAfter(res.Stderr, "\n") {
		if !strings.HasPrefix(l, "faultline-status\t") {
			kept = append(kept, l)
		}
	}
	res.Stderr = strings.Join(kept, "")
	res.PackageStatus = statuses
	return res, nil
}

// mergeGo returns the stream result, with the build failures fed into gp added.
func mergeGo(builds *testrun.GoParser, stream *testrun.GoResult) *testrun.GoResult {
	br := builds.Result()
	if len(br.BuildFailed) == 0 {
		return stream
	}
	stream.BuildFailed = append(stream.BuildFailed, br.BuildFailed...)
	sort.Strings(stream.BuildFailed)
	stream.BuildOutput = br.BuildOutput + stream.BuildOutput
	stream.FailedPackages = append(stream.FailedPackages, br.FailedPackages...)
	sort.Strings(stream.FailedPackages)
	if stream.PackageOutput == nil {
		stream.PackageOutput = map[string]string{}
	}
	for k, v := range br.PackageOutput {
		stream.PackageOutput[k] = v
	}
	stream.Packages = append(stream.Packages, br.Packages...)
	sort.Slice(stream.Packages, func(i, j int) bool { return stream.Packages[i].Path < stream.Packages[j].Path })
	return stream
}

// statusLines collects "faultline-status\tIP\tN" lines from stderr (a package reported
// twice gets -1000: forged).
func statusLines(status map[string]int) *testrun.LineWriter {
	return testrun.NewLineWriter(4096, func(b []byte, ok bool) {
		f := strings.Split(string(b), "\t")
		if !ok || len(f) != 3 || f[0] != "faultline-status" || len(status) >= 1<<16 {
			return
		}
		if st, err := strconv.Atoi(f[2]); err == nil {
			if _, dup := status[f[1]]; dup {
				st = -1000
			}
			status[f[1]] = st
		}
	})
}

// listed collects the test names printed by `pkg.test -test.list .`, package by package.
type listed struct {
	ip     string
	ids    []string
	failed []string
}

func (w *listed) writer() *testrun.LineWriter {
	return testrun.NewLineWriter(testrun.MaxStreamLine, func(b []byte, ok bool) {
		l := string(b)
		f := strings.Split(l, "\t")
		switch {
		case !ok:
		case len(f) == 2 && f[0] == "faultline-list":
			w.ip = f[1]
		case len(f) == 3 && f[0] == "faultline-status":
			if f[2] != "0" {
				w.failed = append(w.failed, f[1])
			}
		default:
			name := strings.TrimSpace(l)
			if w.ip != "" && task.IsGoTestFunc(name) && !strings.HasPrefix(name, "Benchmark") && len(w.ids) < testrun.MaxStreamTests {
				w.ids = append(w.ids, w.ip+"."+name)
			}
		}
	})
}

// List discovers test ids in the box, like sandbox.Local.List (Go: the built test binaries'
// -test.list; pytest: --collect-only).
func (r *Runner) List(ctx context.Context, req task.RunRequest) ([]string, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	if req.Kind == task.Command {
		return []string{task.CommandTestID}, nil
	}
	lim := sandbox.FillLimits(req.Limits, r.opts.Limits)
	b, err := r.boxFor(ctx, req)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if req.Kind == task.GoTest {
		gp := testrun.NewGoParser(lim.MessageLen)
		pkgs, _, _, err := testrun.GoAttemptPlan(testrun.Attempt{Select: req.Select})
		if err != nil {
			return nil, err
		}
		ips, goErr, goExit, err := r.build(ctx, b, req, pkgs, gp)
		if err != nil {
			return nil, err
		}
		gr := gp.Result()
		if goExit != 0 || len(gr.BuildFailed) > 0 {
			return nil, fmt.Errorf("container: go test -list: %s%s: %w", goErr, gr.BuildOutput, sandbox.ErrListFailed)
		}
		_ = ips
		res, err := r.goAttempt(ctx, b, req, testrun.Attempt{Select: req.Select, List: true, Limits: lim})
		if err != nil {
			return nil, err
		}
		return res.ListedIDs()
	}
	reset, err := r.prepare(ctx, b, b.id, req, nil)
	if err != nil {
		return nil, err
	}
	argv := append([]string{"python3", "-m", "pytest"}, testrun.PytestArgs(req.Select, "/work/tree", "", req.Args, true)...)
	lw := testrun.NewListWriter(req.Kind)
	stderr := testrun.NewCapture(lim.OutputBytes, nil)
	code, timedOut, _, err := r.run(ctx, b, reset, "exec"+shellJoin(argv), r.env(req.Kind), lim, lw, stderr)
	if err != nil {
		return nil, err
	}
	if timedOut {
		return nil, fmt.Errorf("container: list timed out after %s: %w", lim.Timeout, sandbox.ErrListFailed)
	}
	return lw.Result(stderr.String(), code, lim.MessageLen)
}
