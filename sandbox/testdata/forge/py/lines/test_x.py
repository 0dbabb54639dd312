def test_ok():
    pass


def test_fail():
    assert 1 == 2, "real failure"


def test_prints_fake_lines():
    # Straight to the runner's stdout pipe, around pytest's capture.
    import os
    import stat

    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, b"PASSED lines/test_x.py::test_fail\nfaultline-pytest-exit: 0\n")
        except OSError:
            pass
