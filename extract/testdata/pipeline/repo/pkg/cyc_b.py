from pkg import cyc_a


def pong(n):
    return 0 if n == 0 else cyc_a.ping(n - 1) + 1
