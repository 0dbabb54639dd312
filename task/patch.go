package task

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Patch is a multi-file unified diff in git's format (what `git diff` prints and
// `git apply` reads).
//
// Terms. A patch holds file patches; a file patch holds hunks; a hunk holds lines, each a
// context (' '), removed ('-') or added ('+') line of text. Line numbers are 1-based. The
// "old" side is the tree before the patch, the "new" side the tree after it.
//
// Where it differs from git:
//   - Paths are stored without git's "a/" and "b/" prefixes; a path without those prefixes
//     (a plain `diff -u` header) is kept as it is.
//   - A created file without a stated mode gets the regular-file mode "100644" (and a
//     deleted one likewise), so that Format always writes a header `git apply` accepts.
//   - Binary patches ("Binary files … differ", "GIT binary patch") are recognised and
//     kept as Binary file patches without their data; they cannot be applied.
//   - Header lines ending in "\r\n" are accepted (the "\r" is dropped); in hunk lines a
//     "\r" before the "\n" is content and is kept in HunkLine.Text.
//   - Lines that are neither headers nor hunks (commit messages, e-mail headers, "-- "
//     signatures, diffstats of a multi-patch mailbox) are skipped, as git does, except
//     that a line starting with '+', '-' or ' ' right after a complete hunk is an error:
//     the hunk's header counts were wrong.
type Patch struct {
	Files []FilePatch
}

// FilePatch is the change of one file.
//
// For a modified file OldPath and NewPath are equal. For a created file Created is set and
// OldPath equals NewPath (the old side is /dev/null); for a deleted file Deleted is set and
// NewPath equals OldPath. A rename (Renamed) or copy (Copied) has different paths.
//
// Modes are git's octal file modes ("100644", "100755", "120000"); empty when the patch
// does not state them. OldHash and NewHash are the abbreviated blob names of the `index`
// line, empty when absent. Similarity is the percentage of a rename or copy (0 when absent).
type FilePatch struct {
	OldPath, NewPath string
	OldMode, NewMode string
	OldHash, NewHash string
	Created, Deleted bool
	Renamed, Copied  bool
	Similarity       int
	Binary           bool
	Hunks            []Hunk
}

// Hunk is one `@@ -OldStart,OldLines +NewStart,NewLines @@ Section` block. When OldLines
// is 0, OldStart is the line after which the new lines go (0 = before the first line), as
// in git and diff(1); likewise for NewLines and NewStart.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Section            string // the text after the second "@@" (git's function name), without the separating space
	Lines              []HunkLine
}

// HunkLine is one line of a hunk. Op is ' ' (context), '-' (removed) or '+' (added). Text
// is the line without its "\n" terminator: a "\r" of a CRLF line stays in Text. NoNewline
// means the line is the last of its file and has no "\n" ("\ No newline at end of file").
type HunkLine struct {
	Op        byte
	Text      string
	NoNewline bool
}

// PatchError is a malformed patch. Line is the 1-based line of the patch text.
type PatchError struct {
	Line int
	Msg  string
}

func (e *PatchError) Error() string { return fmt.Sprintf("task: patch line %d: %s", e.Line, e.Msg) }

// Path returns the path the file patch is about: NewPath, or OldPath for a deletion.
func (f *FilePatch) Path() string {
	if f.Deleted {
		return f.OldPath
	}
	return f.NewPath
}

// Header returns the hunk's "@@ … @@" line without the section and newline.
func (h *Hunk) Header() string {
	return "@@ -" + hunkRange(h.OldStart, h.OldLines) + " +" + hunkRange(h.NewStart, h.NewLines) + " @@"
}

func hunkRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// Stat returns the number of added and removed lines of the patch.
func (p *Patch) Stat() (added, removed int) {
	for _, f := range p.Files {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				switch l.Op {
				case '+':
					added++
				case '-':
					removed++
				}
			}
		}
	}
	return added, removed
}

// ReadPatch reads all of r and parses it with ParsePatch.
func ReadPatch(r io.Reader) (*Patch, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("task: read patch: %w", err)
	}
	return ParsePatch(data)
}

// ParsePatch parses a unified diff: git's extended format (`diff --git` headers with mode,
// index, rename and copy lines) or plain `diff -u` output (`---`/`+++` headers, optionally
// with time stamps after a tab). Hunk header counts are checked against the hunk's lines.
// An input without any file patch yields an empty Patch. Errors are *PatchError.
func ParsePatch(data []byte) (*Patch, error) {
	p := &parser{data: data}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return &Patch{Files: p.files}, nil
}

type parser struct {
	data  []byte
	pos   int // offset of the next unread line
	line  int // number of the last line read
	files []FilePatch
	cur   *FilePatch // the file patch being built, nil between files
	git   bool       // cur came from a `diff --git` header
	names bool       // cur's names are known
	start int        // line of cur's first header line
	// hunkEnded is set right after a hunk: the next line must not look like a hunk line.
	hunkEnded bool
}

// next returns the next line without its "\n" (and whether the "\n" was present).
func (p *parser) next() (line []byte, ok bool) {
	if p.pos >= len(p.data) {
		return nil, false
	}
	rest := p.data[p.pos:]
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		p.pos = len(p.data)
		line = rest
	} else {
		p.pos += i + 1
		line = rest[:i]
	}
	p.line++
	return line, true
}

// peek returns the next line without consuming it.
func (p *parser) peek() ([]byte, bool) {
	pos, n := p.pos, p.line
	l, ok := p.next()
	p.pos, p.line = pos, n
	return l, ok
}

func (p *parser) errorf(format string, args ...any) error {
	return &PatchError{Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) flush() error {
	if p.cur == nil {
		return nil
	}
	f := p.cur
	p.cur = nil
	if !p.names || f.OldPath == "" || f.NewPath == "" {
		return &PatchError{Line: p.start, Msg: "cannot determine the file name of this file patch"}
	}
	if f.Created && f.Deleted {
		return &PatchError{Line: p.start, Msg: "file patch both creates and deletes the file"}
	}
	if f.Created && f.NewMode == "" {
		f.NewMode = "100644"
	}
	if f.Deleted && f.OldMode == "" {
		f.OldMode = "100644"
	}
	p.files = append(p.files, *f)
	return nil
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

func (p *parser) parse() error {
	for {
		raw, ok := p.next()
		if !ok {
			return p.flush()
		}
		l := string(trimCR(raw))
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if err := p.flush(); err != nil {
				return err
			}
			p.cur, p.git, p.start = &FilePatch{}, true, p.line
			old, nw, ok := splitGitHeader(l[len("diff --git "):])
			if ok {
				p.cur.OldPath, p.cur.NewPath, p.names = old, nw, true
			} else {
				p.names = false
			}
		case strings.HasPrefix(l, "--- ") && p.nextIsNewName():
			if err := p.fileHeader(l); err != nil {
				return err
			}
		case strings.HasPrefix(l, "@@ "):
			if p.cur == nil {
				return p.errorf("hunk outside a file patch")
			}
			if p.cur.Binary {
				return p.errorf("hunk in a binary file patch")
			}
			if err := p.hunk(l); err != nil {
				return err
			}
		case p.cur != nil && p.git && len(p.cur.Hunks) == 0 && !p.cur.Binary:
			if err := p.extendedHeader(l); err != nil {
				return err
			}
		case p.hunkEnded && len(l) > 0 && (l[0] == '+' || l[0] == '-' || l[0] == ' ') && l != "-- " && l != "--":
			return p.errorf("line after the end of a hunk: the hunk header counts are wrong")
		}
		p.hunkEnded = p.hunkEnded && strings.HasPrefix(l, "@@ ")
	}
}

func (p *parser) nextIsNewName() bool {
	l, ok := p.peek()
	return ok && strings.HasPrefix(string(l), "+++ ")
}

// fileHeader handles a "--- old" line followed by "+++ new".
func (p *parser) fileHeader(l string) error {
	if p.cur == nil || !p.git || len(p.cur.Hunks) > 0 || p.cur.Binary {
		// A plain unified diff: each ---/+++ pair starts a file patch.
		if err := p.flush(); err != nil {
			return err
		}
		p.cur, p.git, p.names, p.start = &FilePatch{}, false, false, p.line
	}
	oldName, oldNull, err := p.headerName(l[len("--- "):], "a/")
	if err != nil {
		return err
	}
	raw, _ := p.next()
	nl := string(trimCR(raw))
	newName, newNull, err := p.headerName(nl[len("+++ "):], "b/")
	if err != nil {
		return err
	}
	f := p.cur
	switch {
	case oldNull && newNull:
		return p.errorf("both sides of the file patch are /dev/null")
	case oldNull:
		f.Created = true
		f.NewPath = newName
		if f.OldPath == "" || !p.git {
			f.OldPath = newName
		}
	case newNull:
		f.Deleted = true
		f.OldPath = oldName
		if f.NewPath == "" || !p.git {
			f.NewPath = oldName
		}
	default:
		f.OldPath, f.NewPath = oldName, newName
	}
	p.names = true
	return nil
}

// headerName parses the name of a ---/+++ line: a quoted or plain path, /dev/null, with an
// optional tab-separated time stamp, stripped of prefix.
func (p *parser) headerName(s, prefix string) (name string, null bool, err error) {
	if strings.HasPrefix(s, `"`) {
		name, _, err = unquoteGit(s)
		if err != nil {
			return "", false, p.errorf("bad quoted file name: %v", err)
		}
	} else {
		name, _, _ = strings.Cut(s, "\t")
	}
	if name == "/dev/null" {
		return "", true, nil
	}
	name = strings.TrimPrefix(name, prefix)
	if name == "" {
		return "", false, p.errorf("empty file name")
	}
	return name, false, nil
}

// extendedHeader handles the lines between "diff --git" and the first hunk.
func (p *parser) extendedHeader(l string) error {
	f := p.cur
	field := func(prefix string) (string, bool) {
		if strings.HasPrefix(l, prefix) {
			return l[len(prefix):], true
		}
		return "", false
	}
	path := func(v string) (string, error) {
		if strings.HasPrefix(v, `"`) {
			s, rest, err := unquoteGit(v)
			if err != nil || rest != "" {
				return "", p.errorf("bad quoted file name %s", v)
			}
			return s, nil
		}
		if v == "" {
			return "", p.errorf("empty file name")
		}
		return v, nil
	}
	if v, ok := field("old mode "); ok {
		f.OldMode = v
	} else if v, ok := field("new mode "); ok {
		f.NewMode = v
	} else if v, ok := field("deleted file mode "); ok {
		f.Deleted, f.OldMode = true, v
	} else if v, ok := field("new file mode "); ok {
		f.Created, f.NewMode = true, v
	} else if v, ok := field("index "); ok {
		hashes, mode, _ := strings.Cut(v, " ")
		a, b, ok := strings.Cut(hashes, "..")
		if !ok || !isHex(a) || !isHex(b) {
			return p.errorf("bad index line %q", l)
		}
		f.OldHash, f.NewHash = a, b
		if mode != "" {
			f.OldMode, f.NewMode = mode, mode
		}
	} else if v, ok := field("similarity index "); ok {
		n, err := strconv.Atoi(strings.TrimSuffix(v, "%"))
		if err != nil || n < 0 || n > 100 {
			return p.errorf("bad similarity index %q", v)
		}
		f.Similarity = n
	} else if v, ok := field("rename from "); ok {
		s, err := path(v)
		if err != nil {
			return err
		}
		f.Renamed, f.OldPath = true, s
		p.names = p.names || f.NewPath != ""
	} else if v, ok := field("rename to "); ok {
		s, err := path(v)
		if err != nil {
			return err
		}
		f.Renamed, f.NewPath = true, s
		p.names = p.names || f.OldPath != ""
	} else if v, ok := field("copy from "); ok {
		s, err := path(v)
		if err != nil {
			return err
		}
		f.Copied, f.OldPath = true, s
		p.names = p.names || f.NewPath != ""
	} else if v, ok := field("copy to "); ok {
		s, err := path(v)
		if err != nil {
			return err
		}
		f.Copied, f.NewPath = true, s
		p.names = p.names || f.OldPath != ""
	} else if strings.HasPrefix(l, "Binary files ") || l == "GIT binary patch" {
		f.Binary = true
	}
	return nil
}

// splitGitHeader splits the names of a "diff --git a/x b/y" line. Unquoted names with
// spaces are ambiguous; they are resolved when both names are equal (the usual case) or
// when " b/" occurs once, and otherwise left to the ---/+++ or rename lines.
func splitGitHeader(s string) (oldName, newName string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		a, rest, err := unquoteGit(s)
		if err != nil || !strings.HasPrefix(rest, " ") {
			return "", "", false
		}
		rest = rest[1:]
		var b string
		if strings.HasPrefix(rest, `"`) {
			var tail string
			b, tail, err = unquoteGit(rest)
			if err != nil || tail != "" {
				return "", "", false
			}
		} else {
			b = rest
		}
		return stripPrefixes(a, b)
	}
	if i := strings.LastIndex(s, ` "`); i >= 0 && strings.HasSuffix(s, `"`) {
		if b, tail, err := unquoteGit(s[i+1:]); err == nil && tail == "" {
			return stripPrefixes(s[:i], b)
		}
	}
	// Equal names: "a/X b/X" has length 2*len(X)+5.
	if (len(s)-5)%2 == 0 && len(s) > 5 {
		n := (len(s) - 5) / 2
		a, b := s[:n+2], s[n+3:]
		if s[n+2] == ' ' && a[2:] == b[2:] {
			if o, nw, ok := stripPrefixes(a, b); ok {
				return o, nw, true
			}
		}
	}
	if strings.Count(s, " b/") == 1 {
		a, b, _ := strings.Cut(s, " b/")
		return stripPrefixes(a, "b/"+b)
	}
	return "", "", false
}

func stripPrefixes(a, b string) (string, string, bool) {
	if !strings.HasPrefix(a, "a/") || !strings.HasPrefix(b, "b/") || len(a) == 2 || len(b) == 2 {
		return "", "", false
	}
	return a[2:], b[2:], true
}

// hunk parses a hunk whose header line is l.
func (p *parser) hunk(l string) error {
	h, err := parseHunkHeader(l)
	if err != nil {
		return p.errorf("%v", err)
	}
	headerLine := p.line
	oldLeft, newLeft := h.OldLines, h.NewLines
	for oldLeft > 0 || newLeft > 0 {
		raw, ok := p.next()
		if !ok {
			return &PatchError{Line: headerLine, Msg: fmt.Sprintf("hunk %s ends early: %d old and %d new lines missing", h.Header(), oldLeft, newLeft)}
		}
		var hl HunkLine
		if len(raw) == 0 {
			hl = HunkLine{Op: ' '}
		} else {
			hl = HunkLine{Op: raw[0], Text: string(raw[1:])}
		}
		switch hl.Op {
		case ' ':
			oldLeft--
			newLeft--
		case '-':
			oldLeft--
		case '+':
			newLeft--
		case '\\':
			if err := p.noNewline(&h); err != nil {
				return err
			}
			continue
		default:
			return p.errorf("hunk %s: line starts with %q, expected ' ', '-' or '+' (%d old and %d new lines missing)", h.Header(), hl.Op, oldLeft, newLeft)
		}
		if oldLeft < 0 || newLeft < 0 {
			return p.errorf("hunk %s has more lines than its header counts", h.Header())
		}
		h.Lines = append(h.Lines, hl)
	}
	if l, ok := p.peek(); ok && len(l) > 0 && l[0] == '\\' {
		p.next()
		if err := p.noNewline(&h); err != nil {
			return err
		}
	}
	if err := checkNoNewline(&h); err != nil {
		return &PatchError{Line: headerLine, Msg: err.Error()}
	}
	p.cur.Hunks = append(p.cur.Hunks, h)
	p.hunkEnded = true
	return nil
}

func (p *parser) noNewline(h *Hunk) error {
	if len(h.Lines) == 0 || h.Lines[len(h.Lines)-1].NoNewline {
		return p.errorf("unexpected %q line", `\ No newline at end of file`)
	}
	h.Lines[len(h.Lines)-1].NoNewline = true
	return nil
}

// checkNoNewline checks that a line without "\n" is the last line of its side(s).
func checkNoNewline(h *Hunk) error {
	oldEnd, newEnd := false, false
	for _, l := range h.Lines {
		inOld, inNew := l.Op != '+', l.Op != '-'
		if (inOld && oldEnd) || (inNew && newEnd) {
			return fmt.Errorf("hunk %s: a line follows one marked %q", h.Header(), `\ No newline at end of file`)
		}
		if l.NoNewline {
			oldEnd = oldEnd || inOld
			newEnd = newEnd || inNew
		}
	}
	return nil
}

// parseHunkHeader parses "@@ -a[,b] +c[,d] @@[ section]".
func parseHunkHeader(l string) (Hunk, error) {
	var h Hunk
	rest, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return h, fmt.Errorf("bad hunk header %q", l)
	}
	ranges, section, ok := strings.Cut(rest, " @@")
	if !ok {
		return h, fmt.Errorf("bad hunk header %q: no closing @@", l)
	}
	o, n, ok := strings.Cut(ranges, " +")
	if !ok {
		return h, fmt.Errorf("bad hunk header %q", l)
	}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(o); err != nil {
		return h, fmt.Errorf("bad hunk header %q: %v", l, err)
	}
	if h.NewStart, h.NewLines, err = parseRange(n); err != nil {
		return h, fmt.Errorf("bad hunk header %q: %v", l, err)
	}
	if h.OldLines == 0 && h.NewLines == 0 {
		return h, fmt.Errorf("bad hunk header %q: empty hunk", l)
	}
	h.Section = strings.TrimPrefix(section, " ")
	return h, nil
}

func parseRange(s string) (start, n int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	n = 1
	if start, err = atoiNonNeg(a); err != nil {
		return 0, 0, err
	}
	if hasCount {
		if n, err = atoiNonNeg(b); err != nil {
			return 0, 0, err
		}
	}
	if n > 0 && start == 0 {
		return 0, 0, fmt.Errorf("range %q starts at line 0", s)
	}
	return start, n, nil
}

func atoiNonNeg(s string) (int, error) {
	if s == "" || len(s) > 10 {
		return 0, fmt.Errorf("bad number %q", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("bad number %q", s)
		}
	}
	return strconv.Atoi(s)
}

// Format writes the patch in git's format. ParsePatch(p.Format()) reproduces p for every
// p that ParsePatch returned.
func (p *Patch) Format() []byte {
	var b bytes.Buffer
	for i := range p.Files {
		p.Files[i].format(&b)
	}
	return b.Bytes()
}

// String returns the patch in git's format.
func (p *Patch) String() string { return string(p.Format()) }

// Format returns the file patch in git's format.
func (f *FilePatch) Format() []byte {
	var b bytes.Buffer
	f.format(&b)
	return b.Bytes()
}

func (f *FilePatch) format(b *bytes.Buffer) {
	header := quoteGit("a/"+f.OldPath) + " " + quoteGit("b/"+f.NewPath)
	if o, n, ok := splitGitHeader(header); !ok || o != f.OldPath || n != f.NewPath {
		// Unquoted names with spaces would be ambiguous: quote them (git reads either form).
		header = forceQuote("a/"+f.OldPath) + " " + forceQuote("b/"+f.NewPath)
	}
	b.WriteString("diff --git " + header + "\n")
	modeInIndex := (f.OldHash != "" || f.NewHash != "") && f.OldMode == f.NewMode && f.OldMode != "" && !f.Created && !f.Deleted
	if !modeInIndex && f.OldMode != "" && !f.Deleted {
		b.WriteString("old mode " + f.OldMode + "\n")
	}
	if !modeInIndex && f.NewMode != "" && !f.Created {
		b.WriteString("new mode " + f.NewMode + "\n")
	}
	if f.Deleted {
		b.WriteString("deleted file mode " + orRegular(f.OldMode) + "\n")
	}
	if f.Created {
		b.WriteString("new file mode " + orRegular(f.NewMode) + "\n")
	}
	if f.Similarity > 0 {
		fmt.Fprintf(b, "similarity index %d%%\n", f.Similarity)
	}
	if f.Copied {
		b.WriteString("copy from " + quoteGit(f.OldPath) + "\ncopy to " + quoteGit(f.NewPath) + "\n")
	}
	if f.Renamed {
		b.WriteString("rename from " + quoteGit(f.OldPath) + "\nrename to " + quoteGit(f.NewPath) + "\n")
	}
	if f.OldHash != "" || f.NewHash != "" {
		b.WriteString("index " + f.OldHash + ".." + f.NewHash)
		if modeInIndex {
			b.WriteString(" " + f.OldMode)
		}
		b.WriteByte('\n')
	}
	if f.Binary {
		fmt.Fprintf(b, "Binary files %s and %s differ\n", f.sideName("a/", f.OldPath, f.Created), f.sideName("b/", f.NewPath, f.Deleted))
		return
	}
	if len(f.Hunks) == 0 {
		return
	}
	b.WriteString("--- " + f.sideName("a/", f.OldPath, f.Created) + "\n")
	b.WriteString("+++ " + f.sideName("b/", f.NewPath, f.Deleted) + "\n")
	for i := range f.Hunks {
		f.Hunks[i].format(b)
	}
}

func orRegular(mode string) string {
	if mode == "" {
		return "100644"
	}
	return mode
}

// sideName is the name on a ---/+++ line: /dev/null, or the quoted prefixed path followed
// by a tab when it contains a space (as git writes it, so that it cannot be read as a time
// stamp separator).
func (f *FilePatch) sideName(prefix, name string, null bool) string {
	if null {
		return "/dev/null"
	}
	q := quoteGit(prefix + name)
	if strings.Contains(q, " ") && !strings.HasPrefix(q, `"`) {
		q += "\t"
	}
	return q
}

func (h *Hunk) format(b *bytes.Buffer) {
	b.WriteString(h.Header())
	if h.Section != "" {
		b.WriteString(" " + h.Section)
	}
	b.WriteByte('\n')
	for _, l := range h.Lines {
		b.WriteByte(l.Op)
		b.WriteString(l.Text)
		b.WriteByte('\n')
		if l.NoNewline {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
}

// quoteGit quotes a path the way git does when it contains a double quote, a backslash,
// a control character or a byte ≥ 0x80 (core.quotePath), and returns it unchanged
// otherwise.
func quoteGit(s string) string {
	need := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// forceQuote quotes s even when quoteGit would leave it bare.
func forceQuote(s string) string {
	if q := quoteGit(s); strings.HasPrefix(q, `"`) {
		return q
	}
	return `"` + s + `"`
}

// unquoteGit reads a C-style quoted string at the start of s (git's quote_c_style) and
// returns it and the rest of s after the closing quote.
func unquoteGit(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, fmt.Errorf("not quoted")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			i++
			if i >= len(s) {
				return "", "", fmt.Errorf("unterminated escape")
			}
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '"', '\\':
				b.WriteByte(e)
			case '0', '1', '2', '3':
				if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
					return "", "", fmt.Errorf("bad octal escape")
				}
				b.WriteByte((e-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
				i += 2
			default:
				return "", "", fmt.Errorf("bad escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated quoted name")
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// Reverse returns the patch that undoes p: sides swapped, added lines removed and removed
// lines added (within each run of changed lines the removed lines come first, as git
// writes them). The reverse of a copy is a copy in the other direction (the copy's
// destination is not deleted). p is not modified.
func (p *Patch) Reverse() *Patch {
	r := &Patch{}
	for _, f := range p.Files {
		r.Files = append(r.Files, f.Reverse())
	}
	return r
}

// Reverse returns the file patch that undoes f.
func (f FilePatch) Reverse() FilePatch {
	r := f
	r.OldPath, r.NewPath = f.NewPath, f.OldPath
	r.OldMode, r.NewMode = f.NewMode, f.OldMode
	r.OldHash, r.NewHash = f.NewHash, f.OldHash
	r.Created, r.Deleted = f.Deleted, f.Created
	r.Hunks = nil
	if len(f.Hunks) > 0 {
		r.Hunks = make([]Hunk, len(f.Hunks))
	}
	for i, h := range f.Hunks {
		rh := Hunk{OldStart: h.NewStart, OldLines: h.NewLines, NewStart: h.OldStart, NewLines: h.OldLines, Section: h.Section}
		rh.Lines = make([]HunkLine, 0, len(h.Lines))
		for j := 0; j < len(h.Lines); {
			if h.Lines[j].Op == ' ' {
				rh.Lines = append(rh.Lines, h.Lines[j])
				j++
				continue
			}
			k := j
			for k < len(h.Lines) && h.Lines[k].Op != ' ' {
				k++
			}
			for _, want := range []byte{'+', '-'} { // old '+' become '-', listed first
				for _, l := range h.Lines[j:k] {
					if l.Op == want {
						l.Op = '+' + '-' - l.Op
						rh.Lines = append(rh.Lines, l)
					}
				}
			}
			j = k
		}
		r.Hunks[i] = rh
	}
	return r
}
