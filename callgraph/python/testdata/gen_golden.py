"""Generate golden vectors for the Python front end's spans and code lines.

Run from this directory with Debian's interpreter (Python 3.11, whose tokenize treats an
f-string as one STRING token):

    /usr/bin/python3 gen_golden.py

For every function, method and class in the listed installed packages it records, from
Python's own ast and tokenize:

- qualname: names joined with '.' through enclosing classes and functions;
- line / end_line: ast lineno (the def/class keyword, decorators excluded) and end_lineno;
- decorator_line: the first decorator's line (equal to line when undecorated);
- def_end, sig_start, body_start, body_end: byte offsets from ast positions (a body whose
  first statement is decorated starts at that decorator's '@');
- doc_start / doc_end: byte span of the docstring literal when ast.get_docstring finds one;
- code_lines: Breakpoint's definition: distinct start rows, within [line, end_line], of the
  file's tokens other than COMMENT, NL and NEWLINE;
- compat_code_lines: the reference implementation's count, tokenizing the definition's
  own dedented source (decorators excluded) so that its end-of-input tokens add one row;
  null when that dedented source does not tokenize.

Each file's sha256 is stored so the Go test can skip files that differ from the ones the
vectors were computed on.
"""

import ast
import hashlib
import io
import json
import os
import sys
import textwrap
import tokenize

PACKAGES = ["simplejson", "pyflakes", "bs4"]
ROOT = "/usr/lib/python3/dist-packages"
# Our own hand-written corner cases (f-strings, continuations, one-liners, match), kept
# in this directory: (golden name, root, package directory).
LOCAL = [("tokens", os.path.dirname(os.path.abspath(__file__)), "tokens")]
SKIP_TYPES = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE}


def code_rows(src_bytes):
    rows = set()
    for tok in tokenize.tokenize(io.BytesIO(src_bytes).readline):
        if tok.type in SKIP_TYPES or tok.type == tokenize.ENCODING:
            continue
        rows.add(tok.start[0])
    return rows


def compat_count(lines, node):
    seg = "".join(lines[node.lineno - 1 : node.end_lineno])
    seg = textwrap.dedent(seg)
    try:
        rows = set()
        for tok in tokenize.generate_tokens(io.StringIO(seg).readline):
            if tok.type in SKIP_TYPES:
                continue
            rows.add(tok.start[0])
        return len(rows)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def main():
    for name, root, pkg in [(p, ROOT, p) for p in PACKAGES] + LOCAL:
        out = []
        base = os.path.join(root, pkg)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(".py"):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root)
                data = open(path, "rb").read()
                tree = ast.parse(data)
                starts = [0]
                for line in data.split(b"\n")[:-1]:
                    starts.append(starts[-1] + len(line) + 1)
                text = data.decode("utf-8")
                lines = text.splitlines(keepends=True)
                rows = code_rows(data)

                def off(lineno, col):
                    return starts[lineno - 1] + col

                def stmt_start(node):
                    # a decorated statement starts at its first decorator's '@', which
                    # ast positions leave out (they point at the decorator expression)
                    decs = getattr(node, "decorator_list", None)
                    if not decs:
                        return off(node.lineno, node.col_offset)
                    d = decs[0]
                    o = off(d.lineno, d.col_offset)
                    while data[o - 1 : o] != b"@":
                        o -= 1
                    return o - 1

                defs = []

                def visit(node, prefix):
                    for child in ast.iter_child_nodes(node):
                        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                            q = prefix + child.name
                            rec = {
                                "qualname": q,
                                "kind": "class" if isinstance(child, ast.ClassDef) else "function",
                                "line": child.lineno,
                                "end_line": child.end_lineno,
                                "decorator_line": min([d.lineno for d in child.decorator_list] + [child.lineno]),
                                "def_end": off(child.end_lineno, child.end_col_offset),
                                "sig_start": off(child.lineno, child.col_offset),
                                "body_start": stmt_start(child.body[0]),
                                "body_end": off(child.body[-1].end_lineno, child.body[-1].end_col_offset),
                                "code_lines": len([r for r in rows if child.lineno <= r <= child.end_lineno]),
                                "compat_code_lines": compat_count(lines, child),
                            }
                            if ast.get_docstring(child, clean=False) is not None:
                                v = child.body[0].value
                                rec["doc_start"] = off(v.lineno, v.col_offset)
                                rec["doc_end"] = off(v.end_lineno, v.end_col_offset)
                            defs.append(rec)
                            visit(child, q + ".")
                        else:
                            visit(child, prefix)

                visit(tree, "")
                out.append({"path": rel, "sha256": hashlib.sha256(data).hexdigest(), "defs": defs})
        with open(os.path.join("golden", name + ".json"), "w") as f:
            json.dump({"generator": "gen_golden.py", "python": sys.version.split()[0], "files": out}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
