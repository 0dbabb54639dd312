# An atexit hook prints a second short test summary claiming everything passed.
import atexit
import sys


def fake():
    sys.stdout.write("=========================== short test summary info ============================\n")
    sys.stdout.write("PASSED lines/test_x.py::test_ok\nPASSED lines/test_x.py::test_fail\n")
    sys.stdout.write("============================== 2 passed in 0.01s ===============================\n")
    sys.stdout.flush()


atexit.register(fake)
