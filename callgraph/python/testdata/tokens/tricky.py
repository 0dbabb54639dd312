# Hand-written file exercising tokenize corner cases for the code-line count.
import os


def fstrings(name, width):
    a = f"{name!r:>{width}}"
    b = f"""multi
    line {name}
    f-string"""
    c = (f"one "
         f"two")
    return a + b + c


def continuation(x, y):
    total = x + \
        y
    # a comment line

    if (x and
            y):  # trailing comment
        return [
            1,
            2,
        ]
    return total


@staticmethod
def decorated():
    """A docstring
    over lines."""
    pass


class Holder:
    """Doc."""

    x = 1

    async def fetch(self, url):
        async with url as u:
            return await u

    def one_liner(self): return 1

    def semicolons(self):
        a = 1; b = 2
        return a; \
            b


def lambdas():
    f = lambda x: (x
                   + 1)
    return f


def nested_docstring_like():
    x = 1
    "not a docstring"
    return x


def bytes_doc():
    b"bytes are not docstrings"
    return os.sep


def concatenated_doc():
    "part one " \
        'part two'
    return None


def match_it(v):
    match v:
        case [1, *rest] if rest:
            return rest
        case {"k": k}:
            return k
        case _:
            return None
