# faultline's pytest bootstrap, run as `python3 -c <this file> CONFIG [pytest args...]`.
#
# It runs pytest.main with one extra plugin that appends an event per line (JSON) to the file
# named in CONFIG as things happen, so a run that dies midway (os._exit, a segfault, a kill)
# still says which tests were collected, which ended with which outcome, and which one was
# running. CONFIG is a JSON object: events (path), deselect (node ids to leave out), ignore
# (paths relative to the rootdir not to collect), message_len (bytes kept per message).
# After pytest returns, one line "faultline-pytest-exit: N" goes to stdout, before
# interpreter shutdown runs atexit hooks, so the runner can tell pytest's own exit status
# from the process's.
import json
import os
import sys
import time

_cfg_path = sys.argv.pop(1)
with open(_cfg_path, encoding="utf-8") as _f:
    _cfg = json.load(_f)
# python -m pytest puts the working directory first on sys.path; -c puts "", which would
# follow a test's os.chdir.
sys.path[0] = os.getcwd()

import pytest  # noqa: E402


class _FaultlineReporter:
    def __init__(self, cfg):
        self.pid = os.getpid()
        self.limit = int(cfg.get("message_len") or 4096)
        self.select = list(cfg.get("select") or ())
        self.deselect = set(cfg.get("deselect") or ())
        self.ignore = set(cfg.get("ignore") or ())
        self.out = open(cfg["events"], "a", encoding="utf-8")

    def emit(self, **ev):
        if os.getpid() != self.pid:  # a forked child of a test
            return
        self.out.write(json.dumps(ev, ensure_ascii=True) + "\n")
        self.out.flush()

    def text(self, s):
        s = str(s or "")
        if len(s) > self.limit:
            s = s[: self.limit] + "\n[truncated]"
        return s

    def pytest_ignore_collect(self, collection_path, config):
        if not self.ignore:
            return None
        try:
            rel = collection_path.relative_to(config.rootpath).as_posix()
        except ValueError:
            return None
        return True if rel in self.ignore else None

    def pytest_collectstart(self, collector):
        if isinstance(collector, pytest.File):
            self.emit(e="collect", id=collector.nodeid)

    def pytest_collectreport(self, report):
        if report.failed:
            self.emit(e="collecterror", id=report.nodeid, msg=self.text(report.longreprtext))
        elif report.nodeid and "::" not in report.nodeid:
            self.emit(e="collected", id=report.nodeid)

    def selected(self, nodeid):
        if not self.select:
            return True
        for s in self.select:
            if nodeid == s or nodeid.startswith(s + "::") or nodeid.startswith(s + "["):
                return True
        return False

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        if not self.deselect and not self.select:
            return
        keep, drop = [], []
        for it in items:
            if it.nodeid in self.deselect or not self.selected(it.nodeid):
                drop.append(it)
            else:
                keep.append(it)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def pytest_collection_finish(self, session):
        for it in session.items:
            self.emit(e="item", id=it.nodeid)
        self.emit(e="items", n=len(session.items))

    def pytest_runtest_logstart(self, nodeid, location):
        self.emit(e="start", id=nodeid, t=time.time())

    def pytest_runtest_logreport(self, report):
        ev = {"e": "report", "id": report.nodeid, "when": report.when, "outcome": report.outcome}
        if hasattr(report, "wasxfail"):
            ev["xfail"] = True
        if report.outcome != "passed":
            ev["msg"] = self.text(report.longreprtext)
        self.emit(**ev)

    def pytest_runtest_logfinish(self, nodeid, location):
        self.emit(e="finish", id=nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        self.emit(e="end", status=int(exitstatus))


_code = int(pytest.main(sys.argv[1:], plugins=[_FaultlineReporter(_cfg)]))
sys.stdout.flush()
sys.stdout.write("\nfaultline-pytest-exit: %d\n" % _code)
sys.stdout.flush()
sys.exit(_code)
