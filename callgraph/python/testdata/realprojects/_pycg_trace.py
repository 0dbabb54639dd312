# Call-edge tracer for building call-graph ground truth (see README.md beside this file).
#
# Loaded as a pytest plugin (`-p _pycg_trace`, with this directory on PYTHONPATH) while a
# project's own test suite runs from a root holding a copy of the project. It installs a
# sys.setprofile hook (threading.setprofile for new threads) at import time and records,
# for every Python frame of the project that starts running, the pair
#
#     (calling code object, called code object)
#
# where the calling code object is the frame below it on the stack when that frame is
# project code ("direct"), or else the nearest project frame further down, the frames in
# between being outside the project ("via", with the name of the first outside frame, so
# that a reviewer can tell a callback through a library from a wrapper). C functions have
# no frames: a builtin that calls back (sorted's key=, str() calling __str__) leaves the
# Python caller directly below the callee, as Python itself attributes it.
#
# A generator, coroutine or async generator frame counts once, at its first resumption
# (its later resumptions are not calls).
#
# Code objects are written as (file relative to the root, co_firstlineno, co_qualname,
# kind) with kind "function", "class" (a class body), "module" or "pseudo" (lambda,
# comprehension, generator expression); make_truth.py maps them to definitions.
#
# It also records the project lines that ran (a sys.settrace hook that traces project
# frames only), so that the review can tell sites the tests executed from sites they never
# reached.
#
# The result is written at exit as JSON to the file named by PYCG_TRACE_OUT:
# {"edges": [...], "lines": {file: [line, ...]}}.
import dis
import json
import os
import sys
import threading

_ROOT = os.path.realpath(os.environ.get("PYCG_TRACE_ROOT", os.getcwd()))
_OUT = os.environ.get("PYCG_TRACE_OUT", os.path.join(_ROOT, "pycg_trace.json"))
_GEN_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR

_code_info = {}  # code -> (rel, line, qualname, kind) or None outside the project
_first_resume = {}  # generator code -> offset of its first RESUME
_edges = {}  # (caller info, callee info, mode, via) -> count
_lines = {}  # rel -> set of executed lines


def _rel(filename):
    if not filename or filename.startswith("<") or not filename.endswith(".py"):
        return None
    p = os.path.realpath(filename)
    if not p.startswith(_ROOT + os.sep):
        return None
    rel = os.path.relpath(p, _ROOT).replace(os.sep, "/")
    if "/" not in rel:
        return None  # files at the root are not the project (this plugin, conftest)
    return rel


def _info(code):
    try:
        return _code_info[code]
    except KeyError:
        pass
    rel = _rel(code.co_filename)
    info = None
    if rel is not None:
        q = code.co_qualname
        if code.co_name == "<module>":
            kind = "module"
        elif code.co_name.startswith("<"):
            kind = "pseudo"
        elif code.co_flags & 0x3 == 0:  # neither CO_OPTIMIZED nor CO_NEWLOCALS
            kind = "class"
        else:
            kind = "function"
        info = (rel, code.co_firstlineno, q, kind)
    _code_info[code] = info
    return info


def _is_resumption(frame):
    code = frame.f_code
    if not code.co_flags & _GEN_FLAGS:
        return False
    first = _first_resume.get(code)
    if first is None:
        first = 0
        for ins in dis.get_instructions(code):
            if ins.opname == "RESUME":
                first = ins.offset
                break
        _first_resume[code] = first
    return frame.f_lasti > first


def _profile(frame, event, arg):
    if event != "call":
        return
    callee = _info(frame.f_code)
    if callee is None or callee[3] != "function" or _is_resumption(frame):
        return
    back = frame.f_back
    via = ""
    while back is not None:
        info = _info(back.f_code)
        if info is not None:
            key = (info, callee, "via" if via else "direct", via)
            _edges[key] = _edges.get(key, 0) + 1
            return
        if not via:
            via = "%s:%s" % (os.path.basename(back.f_code.co_filename), back.f_code.co_qualname)
        back = back.f_back


def _line(frame, event, arg):
    if event == "line":
        _lines[_code_info[frame.f_code][0]].add(frame.f_lineno)
    return _line


def _trace(frame, event, arg):
    if event != "call":
        return None
    info = _info(frame.f_code)
    if info is None:
        return None
    _lines.setdefault(info[0], set()).add(frame.f_lineno)
    return _line


def _dump():
    sys.setprofile(None)
    threading.setprofile(None)
    sys.settrace(None)
    threading.settrace(None)
    out = []
    for (caller, callee, mode, via), n in _edges.items():
        out.append({"caller": list(caller), "callee": list(callee), "mode": mode, "via": via, "count": n})
    out.sort(key=lambda e: (e["caller"], e["callee"], e["mode"], e["via"]))
    lines = {rel: sorted(ls) for rel, ls in _lines.items()}
    with open(_OUT, "w") as f:
        json.dump({"edges": out, "lines": lines}, f, indent=0, sort_keys=True)


def pytest_unconfigure(config):
    _dump()


sys.setprofile(_profile)
threading.setprofile(_profile)
sys.settrace(_trace)
threading.settrace(_trace)
