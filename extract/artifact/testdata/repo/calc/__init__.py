from .ops import add, Accumulator
