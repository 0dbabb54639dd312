"""Regenerate the pytest reference vectors for the JUnit and -rA parsers.

Run from the repository root with Debian's interpreter (it has pytest):

    /usr/bin/python3 sandbox/testdata/pytest-ref/gen.py

It runs pytest on sandbox/testdata/pyfix (a copy in a temporary directory, so no caches land
in the repository) with -rA, a JUnit XML report (junit_family=xunit1) and a small plugin that
records pytest's own verdict per node id from pytest_runtest_logreport:

  call passed            -> pass, or xpass when the report has wasxfail
  call failed            -> fail
  call skipped           -> xfail when the report has wasxfail, else skip
  setup skipped          -> skip
  setup/teardown failed  -> error (overrides the call outcome)

Outputs in this directory: junit.xml, ra.txt (pytest's stdout), expected.json
({"outcomes": {nodeid: outcome}, "collected": [nodeids from --collect-only -q]}).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "pyfix")

PLUGIN = open(os.path.join(HERE, "refplugin.py")).read()


def main():
    tmp = tempfile.mkdtemp()
    try:
        root = os.path.join(tmp, "root")
        shutil.copytree(FIX, root)
        plug = os.path.join(tmp, "plug")
        os.mkdir(plug)
        with open(os.path.join(plug, "refplugin.py"), "w") as f:
            f.write(PLUGIN)
        env = dict(os.environ, PYTHONPATH=plug, REF_OUT=os.path.join(tmp, "out.json"),
                   PYTHONDONTWRITEBYTECODE="1")
        common = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir=" + root]
        run = subprocess.run(common + ["-p", "refplugin", "-rA", "-o", "junit_family=xunit1",
                                       "--junitxml=" + os.path.join(tmp, "junit.xml")],
                             cwd=root, env=env, capture_output=True, text=True)
        with open(os.path.join(HERE, "ra.txt"), "w") as f:
            f.write(run.stdout.replace(root, "ROOT").replace(tmp, "TMP"))
        shutil.copy(os.path.join(tmp, "junit.xml"), os.path.join(HERE, "junit.xml"))
        with open(os.path.join(tmp, "out.json")) as f:
            outcomes = json.load(f)
        col = subprocess.run(common + ["--collect-only", "-q"], cwd=root, env=env,
                             capture_output=True, text=True)
        collected = sorted(l for l in col.stdout.splitlines() if "::" in l)
        with open(os.path.join(HERE, "expected.json"), "w") as f:
            json.dump({"outcomes": outcomes, "collected": collected}, f, indent=1, sort_keys=True)
            f.write("\n")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
