// Package cli holds what faultline's programs share about being programs: exit codes, and a
// context cancelled by SIGINT, SIGTERM or SIGPIPE so that a program stops its runs, removes
// its private copies and exits with the status that names the signal.
package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Exit statuses of every program.
const (
	ExitOK          = 0   // the program produced what was asked
	ExitFailure     = 1   // it ran and failed, or produced less than asked and said so
	ExitUsage       = 2   // a flag or argument is wrong (nothing was done)
	ExitInterrupted = 130 // SIGINT (128 + 2)
	ExitBrokenPipe  = 141 // SIGPIPE (128 + 13): the reader of stdout went away
	ExitTerminated  = 143 // SIGTERM (128 + 15)
)

// Signals cancels a context when the program receives SIGINT, SIGTERM or SIGPIPE.
type Signals struct {
	mu   sync.Mutex
	sig  os.Signal
	ch   chan os.Signal
	stop chan struct{}
}

// WithSignals returns a context cancelled by the first SIGINT, SIGTERM or SIGPIPE and the
// Signals that recorded it. Call Stop when the program ends. A second signal is not caught
// again until Stop: it gets the default action, so a second Ctrl-C still ends a stuck
// program.
func WithSignals(parent context.Context) (context.Context, *Signals) {
	ctx, cancel := context.WithCancel(parent)
	s := &Signals{ch: make(chan os.Signal, 1), stop: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		select {
		case sig := <-s.ch:
			s.mu.Lock()
			s.sig = sig
			s.mu.Unlock()
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			cancel()
		case <-s.stop:
			cancel()
		}
	}()
	return ctx, s
}

// Stop stops catching signals.
func (s *Signals) Stop() {
	signal.Stop(s.ch)
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
}

// Received returns the signal that cancelled the context, or nil.
func (s *Signals) Received() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sig
}

// Code returns the exit status for the signal received (ExitInterrupted, ExitTerminated,
// ExitBrokenPipe), or code when none was.
func (s *Signals) Code(code int) int {
	switch s.Received() {
	case os.Interrupt:
		return ExitInterrupted
	case syscall.SIGTERM:
		return ExitTerminated
	case syscall.SIGPIPE:
		return ExitBrokenPipe
	}
	return code
}
