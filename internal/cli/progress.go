package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress reports a program's phases on stderr, one line per event:
//
//	breakpoint: validate: 3/5 (60%), 1m04s elapsed, about 42s left: ledger.go::Filter kept
//
// A phase with a known total gets done/total, its share, the time since the phase began
// and — once something is done — an estimate of the time left (elapsed / done × what
// remains); without a total only the count and the time. Beat repeats the current status
// when nothing was printed for a while, so a long step is never silent. It is safe for
// concurrent use.
type Progress struct {
	w    io.Writer
	prog string
	now  func() time.Time

	mu          sync.Mutex
	phase       string
	total, done int
	start, last time.Time
}

// NewProgress returns a Progress writing "prog: …" lines to w.
func NewProgress(w io.Writer, prog string) *Progress {
	return &Progress{w: w, prog: prog, now: time.Now}
}

// Phase starts a phase; total is the number of steps it has (0: unknown).
func (p *Progress) Phase(name string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.total, p.done = name, total, 0
	p.start = p.now()
	if total > 0 {
		p.printf("%s: %d to do", name, total)
	} else {
		p.printf("%s", name)
	}
}

// Step records that done steps of the phase are finished and prints the status with note.
func (p *Progress) Step(done int, note string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	if note != "" {
		note = ": " + note
	}
	p.printf("%s%s", p.status(), note)
}

// SetTotal changes the phase's total (it becomes known late, or shrinks).
func (p *Progress) SetTotal(total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = total
}

// Printf prints one line, "prog: " and the text.
func (p *Progress) Printf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printf(format, a...)
}

// Beat prints the status when nothing was printed during the last every, until stop is
// called (stop waits for the last line; calling it again does nothing).
func (p *Progress) Beat(every time.Duration) (stop func()) {
	t := time.NewTicker(every / 2)
	quit, exited := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(exited)
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				p.mu.Lock()
				if p.phase != "" && p.now().Sub(p.last) >= every {
					p.printf("%s", p.status())
				}
				p.mu.Unlock()
			}
		}
	}()
	return func() {
		once.Do(func() {
			t.Stop()
			close(quit)
			<-exited
		})
	}
}

// status renders the phase's state (mu held).
func (p *Progress) status() string {
	elapsed := p.now().Sub(p.start)
	s := p.phase + ": "
	if p.total > 0 {
		s += fmt.Sprintf("%d/%d (%d%%), %s elapsed", p.done, p.total, 100*p.done/p.total, round(elapsed))
		if p.done > 0 && p.done < p.total {
			left := time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))
			s += ", about " + round(left).String() + " left"
		}
		return s
	}
	return s + fmt.Sprintf("%d done, %s elapsed", p.done, round(elapsed))
}

func (p *Progress) printf(format string, a ...any) {
	fmt.Fprintf(p.w, p.prog+": "+format+"\n", a...)
	p.last = p.now()
}

func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
