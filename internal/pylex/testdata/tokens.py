"""Reference tokens for package pylex: Python's own tokenize module on real files.

Regenerate with:  /usr/bin/python3 tokens.py > tokens.txt   (Debian's Python 3.11)

Inputs: the hand-written cases in cases/ (string prefixes, f-strings, continuations inside
and outside strings, CRLF, tabs and form feeds, numbers, operators, non-ASCII names,
unterminated strings and brackets, an inconsistent dedent, characters no token starts
with) and a few real modules of Debian's python3 packages, named by absolute path with
their SHA-256 so that the test can tell when the installed file is not the one measured.

Output, per file: a line "FILE <path> <sha256>", one line "<KIND> <start> <end>" per token
with byte offsets into the file (ENCODING and ENDMARKER left out; an empty token's end is
its start), and, when tokenize stopped with an error, a line "ERROR <message>".
"""
import glob
import hashlib
import io
import os
import sys
import tokenize

REAL = [
    "/usr/lib/python3.11/tokenize.py",
    "/usr/lib/python3.11/textwrap.py",
    "/usr/lib/python3/dist-packages/_pytest/assertion/rewrite.py",
    "/usr/lib/python3/dist-packages/_pytest/cacheprovider.py",
    "/usr/lib/python3/dist-packages/charset_normalizer/utils.py",
]


def offsets(data):
    """Byte offsets of line starts, and the lines as str (tokenize's columns count chars)."""
    starts, lines, pos = [], [], 0
    for raw in io.BytesIO(data).readlines():
        starts.append(pos)
        lines.append(raw.decode("utf-8"))
        pos += len(raw)
    return starts, lines


def byte_offset(starts, lines, size, row, col):
    if row - 1 >= len(lines):
        return size
    return starts[row - 1] + len(lines[row - 1][:col].encode("utf-8"))


def dump(name, path, out):
    data = open(path, "rb").read()
    out.write("FILE %s %s\n" % (name, hashlib.sha256(data).hexdigest()))
    starts, lines = offsets(data)
    try:
        for tok in tokenize.tokenize(io.BytesIO(data).readline):
            kind = tokenize.tok_name[tok.type]
            if kind in ("ENCODING", "ENDMARKER"):
                continue
            s = byte_offset(starts, lines, len(data), *tok.start)
            e = s if tok.string == "" else byte_offset(starts, lines, len(data), *tok.end)
            out.write("%s %d %d\n" % (kind, s, e))
    except (tokenize.TokenError, IndentationError, SyntaxError) as err:
        out.write("ERROR %s\n" % str(err).replace("\n", " "))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "cases", "*.py"))):
        dump("cases/" + os.path.basename(path), path, sys.stdout)
    for path in REAL:
        dump(path, path, sys.stdout)


main()
