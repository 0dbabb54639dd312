"""Writes HOSTILE_FLOOD_MB MiB to stdout, in 1 MiB lines, then fails (see sandbox/memory_test.go)."""
import os


def test_flood():
    mb = int(os.environ.get("HOSTILE_FLOOD_MB", "0"))
    line = "x" * ((1 << 20) - 1) + "\n"
    for _ in range(mb):
        os.write(1, line.encode())
    assert mb == 0, "flooded"
