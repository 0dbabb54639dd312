package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Layer is one layer of the local runner's isolation; a Layer value is a set of them. Local
// probes once which layers the host allows (Local.Layers), records each missing one in
// Report.Notes, and refuses to run when Options.Require names a missing layer.
type Layer uint

const (
	// LayerNetwork: a network namespace of the run's own, with only a loopback interface.
	LayerNetwork Layer = 1 << iota
	// LayerPID: a PID namespace and a /proc that shows only the run's processes; every
	// process of the run ends with it.
	LayerPID
	// LayerReadOnly: the host's filesystem is read-only; only the run directory (with its
	// private TMPDIR) and a /tmp of the run's own are writable. That /tmp shows, read-only,
	// only the host's entries the run needs.
	LayerReadOnly
	// LayerUnprivileged: the tested code runs with no privilege over the host: as RunUID
	// (when the runner is root) or as the user inside a user namespace, with no_new_privs and
	// empty capability sets (effective, permitted, inheritable, ambient, bounding), so it
	// can neither undo the read-only mounts nor write what root owns.
	LayerUnprivileged
	// LayerUTS: UTS and IPC namespaces of the run's own (sethostname, System V IPC and POSIX
	// message queues stay inside).
	LayerUTS
	// LayerDevices: a minimal /dev (null, zero, full, random, urandom, tty, the fd links and
	// a private /dev/shm) and empty, read-only /run and /var/run: no host socket.
	LayerDevices
	// LayerQuota: what a run writes (its tree, HOME and TMPDIR) lives in a tmpfs of
	// Options.DiskBytes.
	LayerQuota
)

// LayersAll is every layer.
const LayersAll = LayerNetwork | LayerPID | LayerReadOnly | LayerUnprivileged | LayerUTS | LayerDevices | LayerQuota

var layerNames = []struct {
	l    Layer
	name string
}{
	{LayerNetwork, "network"}, {LayerPID, "pid"}, {LayerReadOnly, "readonly"},
	{LayerUnprivileged, "unprivileged"}, {LayerUTS, "uts"}, {LayerDevices, "devices"}, {LayerQuota, "quota"},
}

// String names the layers of l joined by "+" ("none" for the empty set), in the order of
// their declaration.
func (l Layer) String() string {
	var out []string
	for _, n := range layerNames {
		if l&n.l != 0 {
			out = append(out, n.name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "+")
}

// ParseLayers reads a list of layer names separated by "+" or "," (as String writes them;
// "all" for LayersAll, "" or "none" for no layer).
func ParseLayers(s string) (Layer, error) {
	var l Layer
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ',' }) {
		f = strings.TrimSpace(f)
		switch f {
		case "", "none":
			continue
		case "all":
			l |= LayersAll
			continue
		}
		found := false
		for _, n := range layerNames {
			if n.name == f {
				l |= n.l
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("sandbox: unknown isolation layer %q (known: %s, all)", f, LayersAll)
		}
	}
	return l, nil
}

// ErrIsolation is wrapped by the error of a run refused because Options.Require names a
// layer the host does not allow.
var ErrIsolation = errors.New("required isolation unavailable")

// Layers returns the isolation layers runs get on this host.
func (l *Local) Layers() (Layer, error) {
	if err := l.init(); err != nil {
		return 0, err
	}
	return l.iso.layers, nil
}

// checkRequired refuses to run untrusted code with fewer layers than Options.Require.
func (l *Local) checkRequired() error {
	miss := l.opts.Require &^ l.iso.layers
	if miss == 0 {
		return nil
	}
	return fmt.Errorf("sandbox: %w: Options.Require asks for %s, missing %s (%s)", ErrIsolation, l.opts.Require, miss, strings.Join(l.iso.notes, "; "))
}
