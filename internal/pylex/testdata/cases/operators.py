a **= 2; b //= 3; c >>= 1; d <<= 1; e @= f; g := 1
h = a->b ... [~x, -y, +z, x^y, x|y, x&y, x%y, x!=y, x<=y, x>=y, x==y]
lambda *a, **k: (a, k)
@decorator
def f(a, /, b, *, c) -> int: ...
