// Package container runs a repository's tests in Docker containers through
// testcontainers-go, with the same commands and reports as sandbox.Local.
//
// Terms: an image is a locally built test image (no registry is reachable in our environments,
// and nothing is ever pulled): faultline/python:bookworm (a debootstrap root filesystem with
// python3-pytest) and faultline/go:bookworm (that plus the host's Go toolchain), both made by
// build-images.sh beside this file or by BuildImages (the same script, embedded). A box is one
// running container per (repository tree, test kind, image): the tree is copied in once, with
// our own tar stream (modes and symbolic links preserved; testcontainers' CopyDirToContainer
// flattens modes and skips links), as /work/pristine; each run resets /work/tree from it with
// `cp -a`, writes the overlay, and runs the test command under `timeout -s KILL N` (an exec is
// not killed when its context ends), after killing whatever the previous run left running.
// Reusing a box is much cheaper than a container per run.
//
// Go builds share a Docker volume mounted as GOCACHE (Options.GoCacheVolume), so a new
// container does not start from a cold build cache; with Options.GoModCache the host's module
// cache is mounted read-only and GOPROXY=off.
//
// Containers run with NetworkMode none and memory, CPU and pids limits. The root filesystem
// stays writable: the Docker copy API cannot write into a read-only root or a tmpfs. Runs in
// one box are serialised; different repositories run in parallel.
//
// TESTCONTAINERS_RYUK_DISABLED=true is set before the first testcontainers call (the reaper
// image cannot be pulled); Close removes the containers. DOCKER_HOST is honoured, so a remote
// engine works, except for Options.GoModCache, which is a bind mount of a host directory.
//
// Nothing but examples and tests should import this package (see DESIGN.md).
package container

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
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
	"github.com/faultline-dev/faultline/task"
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
	// PythonImage and GoImage override the default images.
	PythonImage, GoImage string
	// Memory (bytes, default 4 GiB), CPUs (default 2) and PIDs (default 1024) limit each
	// container.
	Memory int64
	CPUs   float64
	PIDs   int64
	// GoModCache, when set, is a host module cache bind-mounted read-only at /gomodcache and
	// used as GOMODCACHE (GOPROXY=off in the image: dependencies must be there). Needs an
	// engine on this host.
	GoModCache string
	// GoCacheVolume is the Docker volume mounted at /gocache as GOCACHE for Go runs, shared by
	// every container so builds stay warm across containers (default "faultline-gocache";
	// "-" for none: each container then starts with a cold cache).
	GoCacheVolume string
	// Env holds extra KEY=VALUE pairs for the test command.
	Env []string
	// Limits fill the zero fields of each request's limits (then the sandbox defaults).
	Limits task.Limits
}

// Runner runs tests in reused containers. It implements task.Runner and task.Lister and is
// safe for concurrent use.
type Runner struct {
	opts   Options
	hasher *sandbox.TreeHasher

	mu    sync.Mutex
	cli   *tc.DockerClient
	boxes map[string]*box
	stats Stats
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
}

// New returns a runner; it contacts the engine on first use.
func New(opts Options) *Runner {
	if opts.PythonImage == "" {
		opts.PythonImage = PythonImage
	}
	if opts.GoImage == "" {
		opts.GoImage = GoImage
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
	return &Runner{opts: opts, hasher: sandbox.NewTreeHasher(), boxes: map[string]*box{}}
}

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

// Close removes every container the runner started.
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
		if b.c != nil {
			if err := b.c.Terminate(context.Background(), tc.StopTimeout(0)); err != nil {
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
	if kind == task.GoTest {
		return r.opts.GoImage
	}
	return r.opts.PythonImage
}

// boxFor returns the (locked) box for req, starting a container and copying the tree when
// needed.
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
	if err := HasImage(ctx, cli, img); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	c, err := r.start(ctx, img)
	if err != nil {
		b.mu.Unlock()
		return nil, err
	}
	b.c, b.id = c, c.GetContainerID()
	var buf bytes.Buffer
	if err := WriteTreeTar(&buf, req.Root, "work/pristine"); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	if _, err := cli.CopyToContainer(ctx, b.id, client.CopyToContainerOptions{DestinationPath: "/", Content: &buf}); err != nil {
		b.mu.Unlock()
		return nil, fmt.Errorf("container: copying the tree: %w", err)
	}
	r.mu.Lock()
	r.stats.Containers++
	r.mu.Unlock()
	return b, nil
}

func (r *Runner) start(ctx context.Context, img string) (tc.Container, error) {
	var binds []string
	if img == r.opts.GoImage && r.opts.GoCacheVolume != "-" {
		binds = append(binds, r.opts.GoCacheVolume+":/gocache")
	}
	if r.opts.GoModCache != "" {
		binds = append(binds, r.opts.GoModCache+":/gomodcache:ro")
	}
	pids := r.opts.PIDs
	req := tc.GenericContainerRequest{
		ContainerRequest: tc.ContainerRequest{
			Image:      img,
			Entrypoint: []string{"sleep", "infinity"},
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
		if rel != "." && d.IsDir() {
			switch d.Name() {
			case ".git", ".hg", ".svn", "__pycache__", ".pytest_cache":
				return filepath.SkipDir
			}
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

// overlayTar writes the overlay's new files under prefix (mode of the original file when it
// is a regular file, else 0644) and returns the paths to delete.
func overlayTar(w io.Writer, root string, ov task.Overlay, prefix string) (deletes []string, err error) {
	tw := tar.NewWriter(w)
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

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

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

func (r *Runner) env(kind task.TestKind) []string {
	env := []string{"HOME=/tmp/home", "TMPDIR=/tmp", "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0", "NO_COLOR=1"}
	if kind == task.GoTest && r.opts.GoCacheVolume != "-" {
		env = append(env, "GOCACHE=/gocache")
	}
	if kind == task.GoTest && r.opts.GoModCache != "" {
		env = append(env, "GOMODCACHE=/gomodcache", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off")
	}
	return append(env, r.opts.Env...)
}

// resetFailed marks a failure of the reset script (exit 97 with this line on stderr).
const resetFailed = "faultline: resetting the work tree failed"

// prepare copies the overlay into the container (under a fresh /work/ov-N) and returns the
// argv prefix that, in the same exec as the test command, kills whatever a previous run left
// running, resets /work/tree from the pristine copy with `cp -a`, applies the overlay and
// changes into the tree. One exec per run instead of several keeps reuse cheap.
func (r *Runner) prepare(ctx context.Context, b *box, req task.RunRequest) ([]string, error) {
	cli, err := r.client(ctx)
	if err != nil {
		return nil, err
	}
	b.seq++
	ov := "work/ov-" + strconv.Itoa(b.seq)
	var buf bytes.Buffer
	deletes, err := overlayTar(&buf, req.Root, req.Overlay, ov)
	if err != nil {
		return nil, fmt.Errorf("container: overlay: %w", err)
	}
	fail := " || { echo " + shellQuote(resetFailed) + " >&2; exit 97; }\n"
	var sc strings.Builder
	sc.WriteString("kill -9 -1 2>/dev/null\n")
	sc.WriteString("rm -rf /work/tree /work/junit.xml && cp -a /work/pristine /work/tree && mkdir -p /tmp/home" + fail)
	if len(req.Overlay) > len(deletes) {
		if _, err := cli.CopyToContainer(ctx, b.id, client.CopyToContainerOptions{DestinationPath: "/", Content: &buf}); err != nil {
			return nil, fmt.Errorf("container: copying the overlay: %w", err)
		}
		sc.WriteString("cp -a /" + ov + "/. /work/tree/" + fail)
	}
	sc.WriteString("rm -rf /work/ov-*\n")
	if len(deletes) > 0 {
		sc.WriteString("rm -f --")
		for _, d := range deletes {
			sc.WriteString(" " + shellQuote("/work/tree/"+d))
		}
		sc.WriteString(fail)
	}
	sc.WriteString("cd /work/tree" + fail)
	sc.WriteString(`exec "$@"`)
	return []string{"/bin/sh", "-c", sc.String(), "sh"}, nil
}

func checkRequest(req task.RunRequest) error {
	if req.Root == "" || !filepath.IsAbs(req.Root) {
		return fmt.Errorf("container: root %q must be an absolute path: %w", req.Root, sandbox.ErrBadRequest)
	}
	if st, err := os.Stat(req.Root); err != nil || !st.IsDir() {
		return fmt.Errorf("container: root %s is not a directory: %w", req.Root, sandbox.ErrBadRequest)
	}
	if req.Kind != task.GoTest && req.Kind != task.Pytest {
		return fmt.Errorf("container: unknown test kind %q: %w", req.Kind, sandbox.ErrBadRequest)
	}
	if err := req.Overlay.Validate(); err != nil {
		return fmt.Errorf("container: overlay: %w", err)
	}
	return nil
}

func (r *Runner) command(req task.RunRequest, lim task.Limits, list bool) ([]string, error) {
	if req.Kind == task.GoTest {
		args, err := sandbox.GoTestArgs(req.Select, lim, req.Args, list)
		if err != nil {
			return nil, err
		}
		return append([]string{"go"}, args...), nil
	}
	return append([]string{"python3", "-m", "pytest"}, sandbox.PytestArgs(req.Select, "/work/tree", "/work/junit.xml", req.Args, list)...), nil
}

// Run runs the selected tests in the repository's container.
func (r *Runner) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	lim := sandbox.FillLimits(req.Limits, r.opts.Limits)
	argv, err := r.command(req, lim, false)
	if err != nil {
		return nil, err
	}
	b, err := r.boxFor(ctx, req)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	reset, err := r.prepare(ctx, b, req)
	if err != nil {
		return nil, err
	}
	secs := int64((lim.Timeout + time.Second - 1) / time.Second)
	full := append(append(reset, "timeout", "-s", "KILL", strconv.FormatInt(secs, 10)), argv...)

	var gp *sandbox.GoParser
	var sum sandbox.SummaryScanner
	var hook func([]byte)
	if req.Kind == task.GoTest {
		gp = sandbox.NewGoParser(lim.MessageLen)
		hook = func(p []byte) { gp.Write(p) }
	} else {
		hook = func(p []byte) { sum.Write(p) }
	}
	stdout := sandbox.NewCapture(lim.OutputBytes, hook)
	stderr := sandbox.NewCapture(lim.OutputBytes, nil)
	start := time.Now()
	code, err := r.exec(ctx, b.id, full, r.env(req.Kind), "/work", stdout, stderr)
	wall := time.Since(start)
	if err != nil {
		return nil, err
	}
	if code == 97 && strings.Contains(stderr.String(), resetFailed) {
		return nil, fmt.Errorf("container: %s: %s", resetFailed, stderr.String())
	}
	r.mu.Lock()
	r.stats.Runs++
	r.mu.Unlock()
	res := sandbox.CommandResult{ExitCode: code, Stdout: stdout.String(), Stderr: stderr.String()}
	// timeout(1) exits 137 when it had to kill the command.
	res.TimedOut = code == 137 && wall >= lim.Timeout-time.Second
	if req.Kind == task.GoTest {
		if res.TimedOut {
			gp.Killed()
		}
		res.Go = gp.Result()
	} else {
		sum.Close()
		res.Summary = sum.Lines
		if rc, err := b.c.CopyFileFromContainer(ctx, "/work/junit.xml"); err == nil {
			data, rerr := io.ReadAll(rc)
			rc.Close()
			if rerr == nil {
				res.JUnit = bytes.NewReader(data)
			}
		}
	}
	rep := sandbox.BuildReport(req.Kind, req.Select, lim, res)
	rep.Wall = wall
	rep.Notes = append(rep.Notes, "docker: "+b.c.GetContainerID()[:12]+" network none")
	if stdout.Truncated() || stderr.Truncated() {
		rep.Notes = append(rep.Notes, fmt.Sprintf("output capped at %d bytes per stream", lim.OutputBytes))
	}
	return rep, nil
}

// List discovers test ids in the container, like sandbox.Local.List.
func (r *Runner) List(ctx context.Context, req task.RunRequest) ([]string, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	lim := sandbox.FillLimits(req.Limits, r.opts.Limits)
	argv, err := r.command(req, lim, true)
	if err != nil {
		return nil, err
	}
	b, err := r.boxFor(ctx, req)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	reset, err := r.prepare(ctx, b, req)
	if err != nil {
		return nil, err
	}
	secs := int64((lim.Timeout + time.Second - 1) / time.Second)
	var out bytes.Buffer
	stderr := sandbox.NewCapture(lim.OutputBytes, nil)
	code, err := r.exec(ctx, b.id, append(append(reset, "timeout", "-s", "KILL", strconv.FormatInt(secs, 10)), argv...), r.env(req.Kind), "/work", &out, stderr)
	if err != nil {
		return nil, err
	}
	if code == 97 && strings.Contains(stderr.String(), resetFailed) {
		return nil, fmt.Errorf("container: %s: %s", resetFailed, stderr.String())
	}
	return sandbox.ParseList(req.Kind, out.Bytes(), stderr.String(), code)
}
