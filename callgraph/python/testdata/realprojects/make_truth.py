#!/usr/bin/python3
"""Build the call-graph ground truth of one real project (see README.md beside this file).

    /usr/bin/python3 make_truth.py trace   PROJECT [PYTEST_ARG...]  # copy, run its tests under the tracer
    /usr/bin/python3 make_truth.py trace   PROJECT --unittest-discover  # same, for a suite that
                                           # builds its cases in load_tests (pytest skips those)
    /usr/bin/python3 make_truth.py review  PROJECT [TOOL_EDGES]  # candidates to review
    /usr/bin/python3 make_truth.py truth   PROJECT   # write PROJECT/truth.txt

PROJECT is the name of a package under /usr/lib/python3/dist-packages (a Debian
python3-* package), its path for one inside a namespace package (zope/schema). Work files go to /tmp/pycg-truth/PROJECT; what is kept goes to
PROJECT/ beside this script:

  traced.txt   the in-scope edges the tracer saw under the project's own tests, one
               `caller -> callee  # mode` line each (mode: direct, via <outside frame>)
  review.txt   the reviewer's decisions, `+ caller -> callee  # why` (an edge) or
               `- caller -> callee  # why` (not an edge); written by hand
  files.txt    sha256, path and role of every analysed file of the installed version
               (role "scope": its definitions are in the truth's scope; "test": a test
               file, analysed but outside the scope)
  truth.txt    the ground truth: traced edges not rejected, plus accepted ones

IDs follow the Python front end's documented convention: `path::Qualified.Name`, joined
through enclosing classes and functions, with `@<line of def/class>` on every definition
whose qualified name repeats in its file, and `path::<module>` for module-level code.
"""
import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DIST = "/usr/lib/python3/dist-packages"
WORK = "/tmp/pycg-truth"

# Implicit protocol methods: what the syntax or a builtin calls without naming it.
BINOPS = {
    ast.Add: ("__add__", "__radd__"), ast.Sub: ("__sub__", "__rsub__"),
    ast.Mult: ("__mul__", "__rmul__"), ast.MatMult: ("__matmul__", "__rmatmul__"),
    ast.Div: ("__truediv__", "__rtruediv__"), ast.FloorDiv: ("__floordiv__", "__rfloordiv__"),
    ast.Mod: ("__mod__", "__rmod__"), ast.Pow: ("__pow__", "__rpow__"),
    ast.LShift: ("__lshift__", "__rlshift__"), ast.RShift: ("__rshift__", "__rrshift__"),
    ast.BitOr: ("__or__", "__ror__"), ast.BitXor: ("__xor__", "__rxor__"),
    ast.BitAnd: ("__and__", "__rand__"),
}
AUGOPS = {k: ("__i" + v[0][2:],) + v for k, v in BINOPS.items()}
UNOPS = {ast.USub: ("__neg__",), ast.UAdd: ("__pos__",), ast.Invert: ("__invert__",),
         ast.Not: ("__bool__", "__len__")}
CMPOPS = {ast.Eq: ("__eq__",), ast.NotEq: ("__ne__", "__eq__"), ast.Lt: ("__lt__", "__gt__"),
          ast.LtE: ("__le__", "__ge__"), ast.Gt: ("__gt__", "__lt__"), ast.GtE: ("__ge__", "__le__"),
          ast.In: ("__contains__", "__iter__"), ast.NotIn: ("__contains__", "__iter__")}
BUILTIN_DUNDERS = {
    "str": ("__str__", "__repr__"), "repr": ("__repr__",), "format": ("__format__", "__str__"),
    "len": ("__len__",), "bool": ("__bool__", "__len__"), "hash": ("__hash__",),
    "iter": ("__iter__",), "next": ("__next__",), "int": ("__int__", "__index__"),
    "float": ("__float__",), "abs": ("__abs__",), "reversed": ("__reversed__",),
    "bytes": ("__bytes__",), "divmod": ("__divmod__",), "pow": ("__pow__",),
    "round": ("__round__",), "hex": ("__index__",), "bin": ("__index__",),
    "isinstance": ("__instancecheck__",), "dir": ("__dir__",), "list": ("__iter__", "__len__"),
    "tuple": ("__iter__", "__len__"), "set": ("__iter__",), "dict": ("__iter__", "keys", "__getitem__"),
    "sorted": ("__iter__", "__lt__"), "min": ("__iter__", "__lt__"), "max": ("__iter__", "__gt__"),
    "sum": ("__iter__", "__add__", "__radd__"), "any": ("__iter__",), "all": ("__iter__",),
    "enumerate": ("__iter__",), "zip": ("__iter__",), "print": ("__str__",),
    "getattr": ("__getattr__",), "setattr": ("__setattr__",), "delattr": ("__delattr__",),
}
INIT_FAMILY = ("__init__", "__new__", "__post_init__", "__attrs_post_init__", "__init_subclass__")


# Test modules whose names the rules of is_test_path do not catch, per file path
# (parameterized's suite is the module parameterized/test.py; zake's test.py is a helper
# its users import, in the scope).
TEST_MODULES = {"parameterized/test.py"}


def is_test_path(rel):
    parts = rel.split("/")
    base = parts[-1]
    return (any(p in ("tests", "test", "testing") for p in parts[:-1]) or base.startswith("test_")
            or base.endswith("_test.py") or base in ("conftest.py", "tests.py")
            or rel in TEST_MODULES)


def py_files(project):
    root = os.path.join(DIST, project)
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(d, f), DIST).replace(os.sep, "/"))
    return sorted(out)


class Def:
    def __init__(self, rel, qual, node, parent, kind):
        self.rel, self.qual, self.node, self.parent, self.kind = rel, qual, node, parent, kind
        self.id = None
        self.name = node.name if node is not None else "<module>"
        self.decorators = [] if node is None or kind == "module" else node.decorator_list

    @property
    def first_line(self):
        if self.node is None:
            return 1
        return min([self.node.lineno] + [d.lineno for d in self.decorators])

    @property
    def is_property(self):
        for d in self.decorators:
            n = d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")
            if n in ("property", "cached_property", "setter", "deleter", "getter"):
                return True
        return False


class Project:
    """The definitions of a project's files (test files included), with their IDs."""

    def __init__(self, project):
        self.project = project
        self.files = py_files(project)
        self.defs = []  # every Def
        self.by_line = {}  # (rel, first line) -> [Def]
        self.trees = {}
        for rel in self.files:
            with open(os.path.join(DIST, rel), "rb") as f:
                src = f.read()
            try:
                tree = ast.parse(src)
            except SyntaxError:
                continue
            self.trees[rel] = tree
            mod = Def(rel, "<module>", None, None, "module")
            mod.tree = tree
            mod.id = rel + "::<module>"
            self.defs.append(mod)
            found = []
            self._walk(rel, tree.body, mod, "", found, None)
            count = {}
            for d in found:
                count[d.qual] = count.get(d.qual, 0) + 1
            for d in found:
                d.id = "%s::%s" % (rel, d.qual)
                if count[d.qual] > 1:
                    d.id += "@%d" % d.node.lineno
                self.defs.append(d)
                self.by_line.setdefault((rel, d.first_line), []).append(d)
        self.by_id = {d.id: d for d in self.defs}

    def _walk(self, rel, body, parent, prefix, found, cls):
        direct = set(id(n) for n in body)
        for node in _stmts_with_defs(body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = "class" if isinstance(node, ast.ClassDef) else ("method" if cls is not None else "function")
                d = Def(rel, prefix + node.name, node, parent, kind)
                d.cls = cls
                # defined under if/try/with: one of several alternatives, or present only
                # in some environments (Python 2/3, PyPy, an optional import)
                d.conditional = id(node) not in direct
                found.append(d)
                self._walk(rel, node.body, d, prefix + node.name + ".", found,
                           d if kind == "class" else None)

    def owner_of(self, rel, line):
        """The definition whose calls a line's code belongs to: the innermost function
        whose body holds it (class bodies and lambdas fold outward), else the module."""
        best = None
        for d in self.defs:
            if d.rel != rel or d.kind not in ("function", "method"):
                continue
            b0, b1 = d.node.body[0].lineno, d.node.end_lineno
            if b0 <= line <= b1 and (best is None or b0 >= best.node.body[0].lineno):
                best = d
        return best or self.by_id[rel + "::<module>"]


def _stmts_with_defs(body):
    """Statements of a body and of its nested blocks (if, for, try, with...) that are
    definitions, in source order, without entering definitions."""
    out = []
    stack = list(reversed(body))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(n)
            continue
        kids = [c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt) or isinstance(c, (ast.excepthandler, ast.match_case))]
        stack.extend(reversed(kids))
    out.sort(key=lambda n: (n.lineno, n.col_offset))
    return out


def in_scope(proj, did):
    d = proj.by_id.get(did)
    return d is not None and not is_test_path(d.rel)


# ---------------------------------------------------------------- trace

def cmd_trace(project, extra=()):
    work = os.path.join(WORK, project)
    root = os.path.join(work, "root")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(root)
    shutil.copytree(os.path.join(DIST, project), os.path.join(root, project),
                    ignore=shutil.ignore_patterns("__pycache__"))
    # A package inside a namespace package (PROJECT zope/schema): the namespace's own
    # __init__.py goes along, so that pytest names the copy's modules zope.schema.*, and
    # a conftest.py at the root (not project code) puts the copy first on the namespace's
    # path, which Debian's *-nspkg.pth files set up at start-up with dist-packages only.
    parent = os.path.dirname(project)
    if parent:
        with open(os.path.join(root, "conftest.py"), "w") as f:
            f.write(NAMESPACE_CONFTEST % {"namespace": parent.replace("/", ".")})
    while parent:
        init = os.path.join(DIST, parent, "__init__.py")
        if os.path.exists(init):
            shutil.copy(init, os.path.join(root, parent, "__init__.py"))
        parent = os.path.dirname(parent)
    extra = list(extra)
    if "--unittest-discover" in extra:
        # A unittest suite whose modules build their cases in load_tests(): pytest does not
        # call that protocol, so one pytest test outside the project runs unittest's own
        # discovery over the copy (still under the tracer, which ignores root-level files).
        extra.remove("--unittest-discover")
        with open(os.path.join(root, "test_pycg_unittest.py"), "w") as f:
            f.write(UNITTEST_WRAPPER % {"project": project})
        extra.append("test_pycg_unittest.py")
    env = dict(os.environ, PYTHONPATH=HERE, PYCG_TRACE_OUT=os.path.join(work, "trace.json"),
               PYCG_TRACE_ROOT=root, PYTHONDONTWRITEBYTECODE="1")
    cmd = ["/usr/bin/python3", "-m", "pytest", "-p", "_pycg_trace", "-p", "no:cacheprovider",
           "--continue-on-collection-errors", "-q"] + list(extra) + [project]
    with open(os.path.join(work, "pytest.log"), "w") as log:
        rc = subprocess.call(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    print("pytest exit status", rc)
    write_traced(project)


NAMESPACE_CONFTEST = """import importlib
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_ns = importlib.import_module(%(namespace)r)
if isinstance(_ns.__path__, list):
    _ns.__path__.insert(0, os.path.join(_here, *%(namespace)r.split(".")))
else:
    # A PEP 420 namespace (no __init__.py, repoze): its path is recomputed from
    # sys.path, so the copy's root goes first there.
    sys.path.insert(0, _here)
"""


UNITTEST_WRAPPER = """import os
import unittest


def test_unittest_discover():
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(os.path.join(here, %(project)r), top_level_dir=here)
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    print("unittest: %%d run, %%d failures, %%d errors" %% (result.testsRun, len(result.failures), len(result.errors)))
    assert result.testsRun > 0 and result.wasSuccessful()
"""


def map_code(proj, info):
    rel, line, qual, kind = info
    if kind == "function":
        cands = proj.by_line.get((rel, line), [])
        name = qual.split(".")[-1]
        cands = [d for d in cands if d.name == name and d.kind in ("function", "method")]
        if len(cands) == 1:
            return cands[0].id
        return None
    return proj.owner_of(rel, line).id


def write_traced(project):
    proj = Project(project)
    with open(os.path.join(WORK, project, "trace.json")) as f:
        trace = json.load(f)["edges"]
    edges = {}
    unmapped = 0
    for e in trace:
        caller, callee = map_code(proj, e["caller"]), map_code(proj, e["callee"])
        if caller is None or callee is None:
            unmapped += 1
            continue
        if not in_scope(proj, caller) or not in_scope(proj, callee):
            continue
        mode = "direct" if e["mode"] == "direct" else "via " + e["via"]
        edges.setdefault((caller, callee), set()).add(mode)
    os.makedirs(os.path.join(HERE, project), exist_ok=True)
    with open(os.path.join(HERE, project, "traced.txt"), "w") as f:
        for (a, b) in sorted(edges):
            f.write("%s -> %s  # %s\n" % (a, b, "; ".join(sorted(edges[(a, b)]))))
    with open(os.path.join(HERE, project, "files.txt"), "w") as f:
        for rel in proj.files:
            with open(os.path.join(DIST, rel), "rb") as src:
                f.write("%s  %s  %s\n" % (hashlib.sha256(src.read()).hexdigest(), rel,
                                          "test" if is_test_path(rel) else "scope"))
    print("%d traced in-scope edges (%d trace records unmapped)" % (len(edges), unmapped))


# ---------------------------------------------------------------- review candidates

def candidates(proj):
    """Over-approximated candidate edges with the sites that suggest them: every call or
    reference naming a project definition, every implicit protocol call of a method some
    project class defines, every attribute access naming a property."""
    by_name = {}
    dunders = {}
    props = {}
    classes = {}
    for d in proj.defs:
        if d.kind == "module" or is_test_path(d.rel):
            continue
        if d.kind == "class":
            classes.setdefault(d.name, []).append(d)
            continue
        by_name.setdefault(d.name, []).append(d)
        if d.kind == "method" and d.name.startswith("__") and d.name.endswith("__"):
            dunders.setdefault(d.name, []).append(d)
        if d.kind == "method" and d.is_property:
            props.setdefault(d.name, []).append(d)

    def init_family(cname):
        out = []
        seen = set()
        todo = list(classes.get(cname, []))
        while todo:
            c = todo.pop()
            if c.id in seen:
                continue
            seen.add(c.id)
            for s in c.node.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in INIT_FAMILY:
                    out.extend(x for x in proj.defs if x.node is s)
            for b in c.node.bases:
                bn = b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", None)
                if bn:
                    todo.extend(classes.get(bn, []))
        return out

    out = {}

    def add(owner, callee, why, node):
        if callee.id == owner.id and why.startswith("ref"):
            return
        out.setdefault((owner.id, callee.id), []).append("%s@%d" % (why, getattr(node, "lineno", 0)))

    def dunder(owner, names, why, node):
        for n in names:
            for d in dunders.get(n, []):
                add(owner, d, why, node)

    for owner in proj.defs:
        if owner.kind == "class" or is_test_path(owner.rel):
            continue
        body = owner.tree.body if owner.kind == "module" else owner.node.body
        for node in _own_nodes(body, owner):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)
                if name:
                    for d in by_name.get(name, []):
                        if isinstance(f, ast.Name) and d.kind == "method":
                            continue
                        add(owner, d, "call", node)
                    for d in init_family(name):
                        add(owner, d, "new", node)
                    dunder(owner, BUILTIN_DUNDERS.get(name, ()) if isinstance(f, ast.Name) else (), "builtin", node)
                    if name == "super":
                        pass
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                for d in by_name.get(node.id, []):
                    if d.kind != "method":
                        add(owner, d, "ref", node)
            elif isinstance(node, ast.Attribute):
                for d in props.get(node.attr, []):
                    add(owner, d, "prop", node)
                if isinstance(node.ctx, ast.Load):
                    for d in by_name.get(node.attr, []):
                        add(owner, d, "ref-attr", node)
                    dunder(owner, ("__getattr__", "__getattribute__", "__get__"), "getattr", node)
                elif isinstance(node.ctx, ast.Store):
                    dunder(owner, ("__setattr__", "__set__"), "setattr", node)
            elif isinstance(node, ast.BinOp):
                dunder(owner, BINOPS.get(type(node.op), ()), "op", node)
            elif isinstance(node, ast.AugAssign):
                dunder(owner, AUGOPS.get(type(node.op), ()), "op", node)
            elif isinstance(node, ast.UnaryOp):
                dunder(owner, UNOPS.get(type(node.op), ()), "op", node)
            elif isinstance(node, ast.Compare):
                for op in node.ops:
                    dunder(owner, CMPOPS.get(type(op), ()), "cmp", node)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                dunder(owner, ("__iter__", "__next__", "__aiter__", "__anext__"), "iter", node)
            elif isinstance(node, ast.Starred):
                dunder(owner, ("__iter__",), "iter", node)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                dunder(owner, ("__enter__", "__exit__", "__aenter__", "__aexit__"), "with", node)
            elif isinstance(node, ast.Subscript):
                names = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}
                dunder(owner, (names[type(node.ctx)], "__class_getitem__"), "subscript", node)
            elif isinstance(node, ast.FormattedValue):
                dunder(owner, ("__format__", "__str__", "__repr__"), "fstring", node)
            elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.BoolOp, ast.Assert)):
                dunder(owner, ("__bool__", "__len__"), "truth", node)
            elif isinstance(node, ast.Raise) and node.exc is not None:
                e = node.exc
                n = e.id if isinstance(e, ast.Name) else (e.attr if isinstance(e, ast.Attribute) else None)
                for d in init_family(n) if n else ():
                    add(owner, d, "raise", node)
            elif isinstance(node, ast.Delete):
                dunder(owner, ("__delattr__", "__delete__"), "del", node)
    return out


def _own_nodes(body, owner):
    """The AST nodes whose calls belong to owner: its body, lambdas and comprehensions
    included, class bodies nested in it included, nested functions excluded (their
    decorators, defaults and annotations are evaluated by owner)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(n.decorator_list)
            stack.extend(d for d in n.args.defaults + n.args.kw_defaults if d is not None)
            continue
        if isinstance(n, ast.ClassDef):
            stack.extend(n.decorator_list)
            stack.extend(n.bases)
            stack.extend(n.keywords)
            stack.extend(n.body)
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def read_edges(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            sign = ""
            if line[:2] in ("+ ", "- "):
                sign, line = line[0], line[2:]
            edge, _, why = line.partition("  #")
            a, _, b = edge.partition(" -> ")
            out[(a.strip(), b.strip())] = (sign, why.strip())
    return out


def executed_lines(project):
    with open(os.path.join(WORK, project, "trace.json")) as f:
        return {rel: set(ls) for rel, ls in json.load(f)["lines"].items()}


EXPLICIT = ("call", "new", "raise")


def cmd_review(project, tool_edges=None):
    """Print the candidates a reviewer must decide: `?` lines for candidate edges the
    tracer did not see whose sites the tests never executed, or that the tool reports;
    `T` lines for traced edges that passed through frames outside the project. At a site
    the tests executed, the trace is taken as the answer for implicit calls and for calls
    of same-named definitions the site did not reach (the limitation README.md states)."""
    proj = Project(project)
    traced = read_edges(os.path.join(HERE, project, "traced.txt"))
    reviewed = read_edges(os.path.join(HERE, project, "review.txt"))
    ran = executed_lines(project)
    cands = candidates(proj)
    tool = set()
    if tool_edges:
        for (a, b) in read_edges(tool_edges):
            if in_scope(proj, a) and in_scope(proj, b):
                tool.add((a, b))
                cands.setdefault((a, b), [])
    srcs = {}
    n = 0
    for (a, b) in sorted(cands):
        if (a, b) in reviewed or (a, b) in traced:
            continue
        d = proj.by_id[a]
        sites = cands[(a, b)]
        unrun = [s for s in sites if int(s.rsplit("@", 1)[1]) not in ran.get(d.rel, ())]
        B = proj.by_id[b]
        lazy = (is_lazy(B) or getattr(B, "conditional", False)) and any(x.startswith(EXPLICIT) for x in sites)
        if (a, b) not in tool and not unrun and not lazy:
            continue  # the site ran: the trace saw what it calls (generators and alternatives excepted)
        n += 1
        lines = []
        for s in (unrun or sites)[:4]:
            ln = int(s.rsplit("@", 1)[1])
            if d.rel not in srcs:
                with open(os.path.join(DIST, d.rel)) as f:
                    srcs[d.rel] = f.read().split("\n")
            lines.append("%s: %s" % (s, srcs[d.rel][ln - 1].strip()[:100] if ln else ""))
        print("? %s -> %s  # %s%s" % (a, b, "TOOL " if (a, b) in tool else "", " | ".join(lines)))
    for (a, b), (_, why) in sorted(traced.items()):
        if (a, b) in reviewed:
            continue
        if "direct" not in why:
            print("T %s -> %s  # %s" % (a, b, why))
        elif generator_elsewhere(proj, a, b):
            print("G %s -> %s  # the generator function is not named in the caller: it may only resume a generator made elsewhere" % (a, b))
    print("# %d candidates to review" % n, file=sys.stderr)


def is_lazy(d):
    """Whether calling d only makes a generator or coroutine (its body runs later, maybe
    under another caller, so the trace may not see the call)."""
    if d.node is None or d.kind == "class":
        return False
    if isinstance(d.node, ast.AsyncFunctionDef):
        return True
    stack = list(d.node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def generator_elsewhere(proj, a, b):
    """Whether traced edge a -> b goes to a generator function that a's text never names
    (the tracer sees the first resumption of a generator, which may happen in a function
    other than the one that called the generator function)."""
    A, B = proj.by_id[a], proj.by_id[b]
    if not is_lazy(B):
        return False
    with open(os.path.join(DIST, A.rel)) as f:
        src = f.read().split("\n")
    text = "\n".join(src if A.kind == "module" else src[A.first_line - 1:A.node.end_lineno])
    return B.name not in text


def cmd_truth(project):
    traced = read_edges(os.path.join(HERE, project, "traced.txt"))
    reviewed = read_edges(os.path.join(HERE, project, "review.txt"))
    truth = {}
    for e, (_, why) in traced.items():
        truth[e] = "traced"
    for e, (sign, why) in reviewed.items():
        if sign == "-":
            truth.pop(e, None)
        elif sign == "+":
            truth[e] = "reviewed" if e not in traced else "traced"
    with open(os.path.join(HERE, project, "truth.txt"), "w") as f:
        f.write("# ground truth of %s: generated by make_truth.py truth (see README.md)\n" % project)
        for (a, b) in sorted(truth):
            f.write("%s -> %s  # %s\n" % (a, b, truth[(a, b)]))
    print("%d edges (%d traced, %d from review)" % (len(truth), sum(1 for v in truth.values() if v == "traced"),
                                                   sum(1 for v in truth.values() if v == "reviewed")))


if __name__ == "__main__":
    cmd, project = sys.argv[1], sys.argv[2]
    if cmd == "trace":
        cmd_trace(project, sys.argv[3:])
    elif cmd == "traced":
        write_traced(project)
    elif cmd == "review":
        cmd_review(project, sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "truth":
        cmd_truth(project)
    else:
        sys.exit("unknown command " + cmd)
