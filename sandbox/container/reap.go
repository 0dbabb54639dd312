package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

// Labels on every container and volume a Runner creates, naming the process that owns it.
const (
	LabelPID   = "dev.faultline.owner.pid"   // the owner's process id
	LabelStart = "dev.faultline.owner.start" // its start time (clock ticks since boot, /proc/PID/stat)
	LabelHost  = "dev.faultline.owner.host"  // the owner's host: hostname and boot id
	LabelRun   = "dev.faultline.run"         // the Runner's random id
)

// owner describes the current process for the labels.
type owner struct{ pid, start, host string }

func self() owner {
	pid := os.Getpid()
	start, _ := processStart(pid)
	return owner{pid: strconv.Itoa(pid), start: start, host: hostID()}
}

func (o owner) labels(run string) map[string]string {
	return map[string]string{LabelPID: o.pid, LabelStart: o.start, LabelHost: o.host, LabelRun: run}
}

func newRunID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// processStart returns field 22 of /proc/PID/stat (start time in clock ticks after boot),
// which tells a process from a later one that reused its id.
func processStart(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", errors.New("container: malformed /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", errors.New("container: short /proc stat")
	}
	return f[19], nil // field 22 counted from 1; f starts at field 3
}

// hostID names this boot of this host, so a runner reaps only what owners on the same
// machine left (a remote engine is shared by hosts whose process ids mean nothing here).
func hostID() string {
	h, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return h + "/" + strings.TrimSpace(string(boot))
}

// ownerGone reports whether the labels name a process on this host that no longer runs.
func ownerGone(labels map[string]string, host string) bool {
	if labels[LabelHost] != host {
		return false
	}
	pid, err := strconv.Atoi(labels[LabelPID])
	if err != nil || pid <= 0 {
		return false
	}
	start, err := processStart(pid)
	return err != nil || start != labels[LabelStart]
}

// Reaped counts what Reap removed.
type Reaped struct {
	Containers, Volumes int
}

// Reap removes the containers and volumes that runners on this host created and whose
// owning process is gone (it died without Close: a panic, a kill, a test time-out). New
// calls it; it is safe to call at any time.
func Reap(ctx context.Context) (Reaped, error) {
	disableReaper()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return Reaped{}, fmt.Errorf("container: docker engine: %w", err)
	}
	defer cli.Close()
	return reap(ctx, cli)
}

func reap(ctx context.Context, cli *tc.DockerClient) (Reaped, error) {
	var n Reaped
	host := hostID()
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", LabelPID)})
	if err != nil {
		return n, fmt.Errorf("container: listing containers: %w", err)
	}
	var errs []error
	for _, c := range cs.Items {
		if !ownerGone(c.Labels, host) {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, err)
			continue
		}
		n.Containers++
	}
	vs, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: client.Filters{}.Add("label", LabelPID)})
	if err != nil {
		return n, errors.Join(append(errs, fmt.Errorf("container: listing volumes: %w", err))...)
	}
	for _, v := range vs.Items {
		if !ownerGone(v.Labels, host) {
			continue
		}
		if _, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true}); err != nil {
			errs = append(errs, err)
			continue
		}
		n.Volumes++
	}
	return n, errors.Join(errs...)
}

// reapOnNew runs Reap with a short deadline when a runner is made; an engine that does not
// answer is the first run's error, not New's.
func reapOnNew() (Reaped, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return Reap(ctx)
}
