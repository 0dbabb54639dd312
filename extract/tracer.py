# faultline dynamic tracer (package extract; docs/featurebench.md, Pipeline).
#
# Loaded as a pytest plugin (`-p _faultline_tracer`) from a file the runner's overlay places
# at the repository root. It installs a sys.setprofile hook (and threading.setprofile for new
# threads) at import time, so collection-time execution is recorded too, and records:
#
#   objects  every repository function or class body that ran: id, file, qualified name,
#            definition line, call count and its callees (repository objects it called,
#            directly or through non-repository frames: the caller of an edge is the nearest
#            repository frame on the calling thread's stack);
#   imports  which repository file imported which name, and where that name is defined
#            (wrapping builtins.__import__).
#
# Ids are `file::Qualified.Name::line` with the file relative to the root (slashes), the
# name from co_qualname (Python >= 3.11) with `.<locals>` removed, the line co_firstlineno
# (the first decorator's line for decorated definitions). Before 3.11 there is no
# co_qualname: the name is co_name prefixed with the class of a first argument named self
# or cls when that class defines the code object (methods of other classes fall back to
# co_name alone); the definition line keeps ids distinct either way.
#
# Frames whose name is a pseudo-name (<module>, <lambda>, <listcomp>, <genexpr>, ...) are
# transparent: they are not objects and calls made inside them are attributed to the
# nearest enclosing repository object on the stack; calls made by module-level code (no
# repository object below them) are recorded as executed with no caller.
#
# At exit the result is written, sorted, as JSON to .faultline_trace.json in the current
# directory and, gzip-compressed and base64-encoded, between marker lines on the original
# standard output (duplicated before pytest captures it), which is how the Go side reads it.
import base64
import builtins
import json
import os
import sys
import threading
import zlib

_ROOT = os.path.realpath(os.getcwd())
_SELF = os.path.realpath(__file__) if "__file__" in globals() else ""
_OUT = os.dup(1)
_BEGIN = "@@FAULTLINE-TRACE-BEGIN@@"
_END = "@@FAULTLINE-TRACE-END@@"
# FAULTLINE_TRACE_NO_QUALNAME=1 uses the pre-3.11 fallback even where co_qualname exists
# (it is how the fallback is tested).
_NO_QUALNAME = os.environ.get("FAULTLINE_TRACE_NO_QUALNAME") == "1"
_EXCLUDED_DIRS = ("site-packages", "dist-packages", ".venv", "venv", ".tox", ".git", "__pycache__")

_file_cache = {}   # co_filename -> relative path or None
_code_cache = {}   # code object -> id or None (None: not a repository object)
_objects = {}      # id -> [file, name, line, calls, set(callees)] of executed objects
_meta = {}         # id -> (file, name, line) of every repository code object seen
_imports = set()   # (file, module, name, target)
_stacks = {}       # thread ident -> list of ids (None for non-repository / transparent frames)
_lock = threading.Lock()


def _rel(filename):
    r = _file_cache.get(filename, 0)
    if r != 0:
        return r
    r = None
    if filename and not filename.startswith("<") and filename.endswith(".py"):
        p = os.path.realpath(filename)
        if p != _SELF and (p == _ROOT or p.startswith(_ROOT + os.sep)):
            rel = os.path.relpath(p, _ROOT).replace(os.sep, "/")
            parts = rel.split("/")
            # _faultline_*.py at the root are the runner's plugins (this tracer, the
            # per-test time limit), not repository code.
            plugin = len(parts) == 1 and parts[0].startswith("_faultline_")
            if not plugin and not any(part in _EXCLUDED_DIRS for part in parts[:-1]):
                r = rel
    _file_cache[filename] = r
    return r


def _qualname(code, frame):
    q = None if _NO_QUALNAME else getattr(code, "co_qualname", None)
    if q is None:
        q = code.co_name
        if frame is not None and code.co_argcount > 0:
            first = code.co_varnames[0]
            if first in ("self", "cls"):
                obj = frame.f_locals.get(first)
                cls = obj if first == "cls" and isinstance(obj, type) else type(obj)
                for klass in getattr(cls, "__mro__", ()):
                    fn = klass.__dict__.get(code.co_name)
                    fn = getattr(fn, "__func__", fn)
                    if getattr(fn, "__code__", None) is code:
                        q = klass.__qualname__ + "." + code.co_name
                        break
    return q.replace(".<locals>", "")


def _code_id(code, frame):
    if code in _code_cache:
        return _code_cache[code]
    oid = None
    rel = _rel(code.co_filename)
    if rel is not None:
        q = _qualname(code, frame)
        if not q.split(".")[-1].startswith("<"):
            oid = "%s::%s::%d" % (rel, q, code.co_firstlineno)
            _meta[oid] = (rel, q, code.co_firstlineno)
        else:
            oid = ""  # repository pseudo-frame: transparent
    _code_cache[code] = oid
    return oid


def _profile(frame, event, arg):
    if event == "call":
        oid = _code_id(frame.f_code, frame)
        tid = threading.get_ident()
        stack = _stacks.get(tid)
        if stack is None:
            stack = _stacks[tid] = []
        if oid:
            obj = _objects.get(oid)
            if obj is None:
                with _lock:
                    rel, q, line = _meta[oid]
                    obj = _objects.setdefault(oid, [rel, q, line, 0, set()])
            obj[3] += 1
            for caller in reversed(stack):
                if caller:
                    _objects[caller][4].add(oid)
                    break
        stack.append(oid)
    elif event == "return":
        stack = _stacks.get(threading.get_ident())
        if stack:
            stack.pop()


_real_import = builtins.__import__


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    mod = _real_import(name, globals, locals, fromlist, level)
    try:
        f = (globals or {}).get("__file__")
        rel = _rel(f) if isinstance(f, str) else None
        if rel is not None:
            modname = name
            if level:
                pkg = (globals or {}).get("__package__") or ""
                base = pkg.rsplit(".", level - 1)[0] if level > 1 else pkg
                modname = base + ("." + name if name else "")
            if fromlist:
                for n in fromlist:
                    if n == "*":
                        continue
                    _imports.add((rel, modname, n, _target(getattr(mod, n, None))))
            else:
                _imports.add((rel, modname, "", ""))
    except Exception:
        pass
    return mod


def _target(obj):
    obj = getattr(obj, "__func__", obj)
    code = getattr(obj, "__code__", None)
    if code is not None:
        return _code_id(code, None) or ""
    if isinstance(obj, type):
        mod = sys.modules.get(getattr(obj, "__module__", ""), None)
        f = getattr(mod, "__file__", None)
        rel = _rel(f) if isinstance(f, str) else None
        if rel is None:
            return ""
        line = _class_line(obj)
        if line:
            return "%s::%s::%d" % (rel, obj.__qualname__.replace(".<locals>", ""), line)
    return ""


def _class_line(cls):
    # The class body's code object is not reachable from the class; find the first method
    # defined in it and ask the caller to map by name (the Go side resolves class ids by
    # file and qualified name when the line is 0).
    try:
        import inspect

        return inspect.getsourcelines(cls)[1]
    except Exception:
        return 0


def _dump():
    sys.setprofile(None)
    threading.setprofile(None)
    objs = []
    for oid in sorted(_objects):
        f, q, line, calls, callees = _objects[oid]
        objs.append({"id": oid, "file": f, "name": q, "line": line, "calls": calls,
                     "callees": sorted(callees)})
    imps = [{"file": a, "module": b, "name": c, "target": d} for a, b, c, d in sorted(_imports)]
    doc = {"version": 1, "python": "%d.%d.%d" % sys.version_info[:3], "objects": objs,
           "imports": imps}
    data = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    try:
        with open(os.path.join(_ROOT, ".faultline_trace.json"), "wb") as fh:
            fh.write(data)
    except OSError:
        pass
    payload = base64.b64encode(zlib.compress(data, 6)).decode()
    text = "\n" + _BEGIN + "\n"
    for i in range(0, len(payload), 76):
        text += payload[i:i + 76] + "\n"
    text += _END + "\n"
    b = text.encode()
    while b:
        n = os.write(_OUT, b)
        b = b[n:]


def pytest_unconfigure(config):
    _dump()


builtins.__import__ = _import
threading.setprofile(_profile)
sys.setprofile(_profile)
