"""pytest plugin recording pytest's own verdict per node id (see gen.py for the mapping).

Load with `-p refplugin` (this directory on PYTHONPATH); the JSON goes to $REF_OUT.
"""
import json
import os

OUT = {}


def pytest_runtest_logreport(report):
    w = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            o = "xpass" if w else "pass"
        elif report.failed:
            o = "fail"
        else:
            o = "xfail" if w else "skip"
        if OUT.get(report.nodeid) != "error":
            OUT[report.nodeid] = o
    elif report.failed:
        OUT[report.nodeid] = "error"
    elif report.when == "setup" and report.skipped:
        OUT[report.nodeid] = "xfail" if w else "skip"


def pytest_sessionfinish(session):
    with open(os.environ["REF_OUT"], "w") as f:
        json.dump(OUT, f, indent=1, sort_keys=True)
