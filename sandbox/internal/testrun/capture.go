package testrun

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Capture is an io.Writer that keeps the first half and the last half of at most limit bytes written to it and
// counts the rest, so a child printing without bound never blocks on a full pipe and never
// grows our memory. It is safe for concurrent use (stdout and stderr may share one).
type Capture struct {
	mu      sync.Mutex
	limit   int64
	head    bytes.Buffer
	tail    []byte // ring of the last limit/2 bytes once head is full
	tailPos int
	tailLen int
	dropped int64
	next    func(p []byte) // optional streaming consumer, sees every byte
}

// NewCapture returns a Capture keeping at most limit bytes; next, when not nil, sees every
// byte written.
func NewCapture(limit int64, next func(p []byte)) *Capture {
	if limit < 2 {
		limit = 2
	}
	return &Capture{limit: limit, next: next}
}

// Write keeps what fits and never fails.
func (w *Capture) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next != nil {
		w.next(p)
	}
	half := w.limit / 2
	rest := p
	if room := half - int64(w.head.Len()); room > 0 {
		n := min(room, int64(len(rest)))
		w.head.Write(rest[:n])
		rest = rest[n:]
	}
	if len(rest) == 0 {
		return len(p), nil
	}
	if w.tail == nil {
		w.tail = make([]byte, w.limit-half)
	}
	c := len(w.tail)
	if total := w.tailLen + len(rest); total > c {
		w.dropped += int64(total - c)
		w.tailLen = c
	} else {
		w.tailLen = total
	}
	if len(rest) > c {
		rest = rest[len(rest)-c:]
	}
	for len(rest) > 0 {
		n := copy(w.tail[w.tailPos:], rest)
		w.tailPos = (w.tailPos + n) % c
		rest = rest[n:]
	}
	return len(p), nil
}

// String returns the kept bytes: the head, a marker with the number of bytes left out, and
// the tail. Invalid UTF-8 at the cut points is replaced.
func (w *Capture) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tailLen == 0 {
		return w.head.String()
	}
	var b bytes.Buffer
	b.Write(w.head.Bytes())
	if w.dropped > 0 {
		b.WriteString("\n[... " + strconv.FormatInt(w.dropped, 10) + " bytes omitted ...]\n")
	}
	if w.tailLen < len(w.tail) {
		b.Write(w.tail[:w.tailLen])
	} else {
		b.Write(w.tail[w.tailPos:])
		b.Write(w.tail[:w.tailPos])
	}
	return string(bytes.ToValidUTF8(b.Bytes(), []byte("\uFFFD")))
}

// Truncated reports whether bytes were left out.
func (w *Capture) Truncated() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped > 0
}

// Truncate shortens s to at most n bytes (n <= 0: unlimited) on a rune boundary, marking the
// cut.
func Truncate(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	const mark = "\n[truncated]"
	cut := n - len(mark)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
