"""The hostile suite's attacks for pytest (see sandbox/hostile_test.go): each test tries
one thing a test must not be able to do and fails when the sandbox stops it."""
import os
import socket
import subprocess


def target(name):
    v = os.environ.get(name)
    assert v, name + " not set"
    return v


def test_remount():
    subprocess.run(["mount", "-o", "remount,rw,bind", "/"], capture_output=True)
    for p in (target("HOSTILE_HOST_TMP"), os.path.join(target("HOSTILE_CHECKOUT"), "pwned.txt")):
        with open(p, "w") as f:
            f.write("pwned")


def test_write_dev():
    with open(os.path.join("/dev", target("HOSTILE_MARK")), "w") as f:
        f.write("pwned")


def test_write_dev_shm():
    with open(os.path.join("/dev/shm", target("HOSTILE_MARK")), "w") as f:
        f.write("pwned")


def test_sethostname():
    socket.sethostname("pwned")


def test_core_pattern():
    open("/proc/sys/kernel/core_pattern", "w").close()


def test_docker_socket():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(2)
    s.connect("/var/run/docker.sock")


def test_read_shadow():
    open("/etc/shadow").read()


def test_secrets():
    print("own:", dict(os.environ))
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                print(pid, open("/proc/%s/environ" % pid, "rb").read())
            except OSError as e:
                print(pid, e)
