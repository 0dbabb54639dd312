package mask

import (
	"bytes"

	"github.com/faultline-dev/faultline/internal/pylex"
)

// physLine is one physical line of a file: its bytes including the terminator.
type physLine struct {
	start, end int // byte offsets [start, end) including the "\n"
}

// logLine is one logical line of Python source (a statement line after bracket and
// backslash joining, or a comment-only / blank line).
type logLine struct {
	first, last int    // 1-based physical lines, inclusive
	indent      string // leading whitespace of the first physical line
	code        bool   // holds a token other than a comment
	header      bool   // a compound-statement header: ends with ':' outside brackets
}

// pyLines splits src into physical lines (each keeping its terminator; a last line without
// one is kept as it is).
func pyLines(src []byte) []physLine {
	var out []physLine
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			out = append(out, physLine{i, len(src)})
			break
		}
		out = append(out, physLine{i, i + j + 1})
		i += j + 1
	}
	return out
}

// scanLogical groups the physical lines of src into logical lines (pylex.Lines). It never
// fails: unbalanced input simply extends the last logical line to the end of the file.
func scanLogical(src []byte) []logLine {
	pl := pylex.Lines(src)
	out := make([]logLine, len(pl))
	for i, l := range pl {
		out[i] = logLine{first: l.First, last: l.Last, indent: l.Indent, code: l.Code, header: l.Header}
	}
	return out
}
