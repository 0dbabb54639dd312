package container

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
)

//go:embed build-images.sh
var buildScript string

// Which images BuildImages builds.
const (
	BuildPython = "python" // faultline/python:bookworm
	BuildGo     = "go"     // faultline/go:bookworm (builds the python image first)
	BuildAll    = "all"
)

// BuildImages builds the runner's images locally with build-images.sh (embedded in this
// package): the python image from a debootstrap root filesystem imported with `docker
// import`, and the Go image with the host's toolchain on top. Images that exist are left
// alone unless force is set. It needs root, debootstrap, the docker CLI talking to the engine
// (DOCKER_HOST is honoured) and a Debian mirror; progress goes to log (nil: discarded).
func BuildImages(ctx context.Context, which string, force bool, log io.Writer) error {
	switch which {
	case BuildPython, BuildGo, BuildAll:
	default:
		return fmt.Errorf("container: unknown image set %q", which)
	}
	if log == nil {
		log = io.Discard
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", buildScript, "build-images.sh", which)
	cmd.Env = os.Environ()
	if force {
		cmd.Env = append(cmd.Env, "FORCE=1")
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("container: building images (%s): %w", which, err)
	}
	return nil
}
