"""A small package for masking tests."""
from .core import helper, Engine as Eng, public_fn
from .util import (
    fmt_a,
    fmt_b as fb,  # the b formatter
    fmt_c,
)

__all__ = ["public_fn", "Eng"]
